"""Answer spaces that cannot collide: two choices of one question never read the same."""

import pandas as pd
import pytest

from hiremeornot.checks import check_answer_space, check_config
from hiremeornot.errors import InputError
from hiremeornot.inputs.names import NAME_COLUMNS, check_answer_words
from tests.conftest import run_dataset
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
    check_answer_space({**ANSWERS, "yes": "Oui", "no": "Non"})
    # swapped words would read every answer crossed (tests/test_input_classes.py has them all)
    with pytest.raises(InputError, match="^answers.yes: 'No' is the word of answers.no"):
        check_answer_space({**ANSWERS, "no": "Yes", "yes": "No"})


def test_the_config_check_refuses_answers_that_collide():
    with pytest.raises(InputError, match="^answers.both and answers.neither read the same"):
        check_config(config(answers={**DEFAULT.get("answers", {}), "both": "x", "neither": "X"}))


@pytest.mark.parametrize(("name", "key"), [("Both", "both"), ("Yes", "yes")])
def test_a_name_that_reads_as_an_answer_word_is_named_with_its_file(name, key):
    names = pd.DataFrame(
        [("Mary", "female", "", "f:1"), (name, "female", "", "f:2"), ("James", "male", "", "m:1")],
        columns=NAME_COLUMNS,
    )
    with pytest.raises(InputError) as error:
        check_answer_words(names, ANSWERS)
    assert str(error.value) == (
        f"f:2: the name {name!r} reads as answers.{key} ({ANSWERS[key]!r}); "
        f"remove the name or change answers.{key}"
    )
    check_answer_words(names.drop(index=1), ANSWERS)


def test_the_dataset_step_refuses_such_a_name(tmp_path, capsys):
    female = "[subj] female | Mary\n[subj] female | Neither\n"
    code, folder = run_dataset(tmp_path, female, "[subj] male | James\n")
    assert code == 1
    assert f"{folder}/female:2: the name 'Neither' reads as answers.neither" in (
        capsys.readouterr().err
    )
    assert not (tmp_path / "i.parquet").exists()
