import pytest

from hiremeornot.atomic import atomic_output


def test_a_failed_write_leaves_the_old_file_and_no_partial(tmp_path):
    target = tmp_path / "out" / "table.tsv"
    with atomic_output(target) as partial:
        partial.write_text("complete")
    with pytest.raises(RuntimeError), atomic_output(target) as partial:
        partial.write_text("half")
        raise RuntimeError("killed")
    assert target.read_text() == "complete"
    assert [p.name for p in target.parent.iterdir()] == ["table.tsv"]
