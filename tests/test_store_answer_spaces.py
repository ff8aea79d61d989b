"""Answer spaces that cannot collide: two choices of one question never read the same."""

import pytest

from hiremeornot.cli import main
from hiremeornot.errors import InputError
from hiremeornot.names import check_answer_words
from hiremeornot.plan import check_answer_space, check_config
from tests.conftest import OCCUPATIONS_TABLE
from tests.test_config import DEFAULT, config

ANSWERS = {"yes": "Yes", "no": "No", "both": "both", "neither": "neither"}


@pytest.mark.parametrize(
    ("change", "keys"),
    [
        ({"no": "Yes"}, "answers.yes and answers.no"),
        ({"no": " yes"}, "answers.yes and answers.no"),  # case and spaces aside
        ({"neither": "Both"}, "answers.both and answers.neither"),
    ],
)
def test_answers_offered_together_must_differ(change, keys):
    with pytest.raises(InputError, match=f"^{keys} read the same"):
        check_answer_space({**ANSWERS, **change})
    check_answer_space({**ANSWERS, "no": "Yes", "yes": "No"})  # swapped is fine


def test_the_config_check_refuses_answers_that_collide():
    with pytest.raises(InputError, match="^answers.both and answers.neither read the same"):
        check_config(config(answers={**DEFAULT.get("answers", {}), "both": "x", "neither": "X"}))


@pytest.mark.parametrize(("name", "key"), [("Both", "both"), ("Yes", "yes")])
def test_a_name_that_reads_as_an_answer_word_is_named_with_its_file(tmp_path, name, key):
    names = {"female": ["Mary", name], "male": ["James"]}
    with pytest.raises(InputError) as error:
        check_answer_words(names, tmp_path, ANSWERS)
    assert str(error.value) == (
        f"{tmp_path}/female: the name {name!r} reads as answers.{key} ({ANSWERS[key]!r}); "
        f"remove the name or change answers.{key}"
    )
    check_answer_words({"female": ["Mary"], "male": ["James"]}, tmp_path, ANSWERS)


def test_the_dataset_step_refuses_such_a_name(tmp_path, capsys):
    (tmp_path / "female").write_text("[subj] female | Mary\n[subj] female | Neither\n")
    (tmp_path / "male").write_text("[subj] male | James\n")
    settings = '{"select": ["nurse"], "pairs": "all", "seed": 0, "orders": ["female_first"], '
    settings += '"answers": {"yes": "Yes", "no": "No", "both": "both", "neither": "neither"}}'
    command = ["dataset", "--settings", settings, "--occupations", str(OCCUPATIONS_TABLE)]
    command += ["--names-dir", str(tmp_path), "--out-pairs", str(tmp_path / "p.tsv")]
    assert main([*command, "--out", str(tmp_path / "i.parquet")]) == 1
    assert "female: the name 'Neither' reads as answers.neither" in capsys.readouterr().err
    assert not (tmp_path / "i.parquet").exists()
