import pytest

from hiremeornot.errors import InputError
from hiremeornot.names import make_pairs, read_name_lists, read_names
from tests.conftest import needs_data, subjects_dir


@needs_data
def test_reads_both_upstream_lists():
    small = read_name_lists(subjects_dir("ethical-interventions"))
    assert len(small["female"]) == len(small["male"]) == 10
    assert small["female"][0] == "Mary" and small["male"][0] == "James"
    large = read_name_lists(subjects_dir("unqover"))
    assert len(large["female"]) == len(large["male"]) == 70
    assert large["female"][:10] == small["female"]


@needs_data
def test_all_pairs_and_seeded_sample():
    lists = read_name_lists(subjects_dir("ethical-interventions"))
    every = make_pairs(lists, "all", 0)
    assert len(every) == 100 and every["pair_id"].is_unique
    sample = make_pairs(lists, 7, seed=3)
    assert len(sample) == 7
    assert sample.equals(make_pairs(lists, 7, seed=3))
    assert not sample.equals(make_pairs(lists, 7, seed=4))
    assert set(sample["pair_id"]) <= set(every["pair_id"])
    with pytest.raises(InputError, match="101 pairs"):
        make_pairs(lists, 101, 0)


def write(folder, female, male):
    folder.mkdir(exist_ok=True)
    (folder / "female").write_text(female)
    (folder / "male").write_text(male)
    return folder


def test_empty_list(tmp_path):
    with pytest.raises(InputError, match="female: no names"):
        read_name_lists(write(tmp_path / "n", "", "[subj] male | John"))


def test_duplicated_name(tmp_path):
    folder = write(tmp_path / "n", "[subj] female | Mary\n[subj] female | Mary", "[subj] male | J")
    with pytest.raises(InputError, match=r"female: duplicated name\(s\) \['Mary'\]"):
        read_name_lists(folder)


def test_name_in_both_genders(tmp_path):
    folder = write(tmp_path / "n", "[subj] female | Alex", "[subj] male | Alex")
    with pytest.raises(InputError, match=r"both the female and the male list: \['Alex'\]"):
        read_name_lists(folder)


def test_malformed_and_mistagged_lines(tmp_path):
    (tmp_path / "female").write_text("Mary\n")
    with pytest.raises(InputError, match=r"female:1: expected"):
        read_names(tmp_path / "female", "female")
    (tmp_path / "female").write_text("[subj] female | Mary\n[subj] male | John\n")
    with pytest.raises(InputError, match=r"female:2: the name is tagged 'male'"):
        read_names(tmp_path / "female", "female")
