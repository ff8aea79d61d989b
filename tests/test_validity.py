"""Name validity: the questions, what each answer means, and the names left out."""

import math

import pandas as pd
import pytest

from hiremeornot.analysis import validity
from hiremeornot.asking.backends.base import Backend, Response, token_count
from hiremeornot.checks import check_validity
from hiremeornot.config import model_settings
from hiremeornot.design.contrasts import GENDER_CONTRAST
from hiremeornot.errors import InputError
from hiremeornot.inputs import names
from hiremeornot.inputs.names import NAME_COLUMNS
from hiremeornot.writing.summary import summary
from hiremeornot.writing.validity import validity_markdown
from tests.conftest import run_dataset

SETTINGS = {
    "gender_question": "Gender of {name}?",
    "race_question": "Race of {name}?",
    "female": "woman",
    "male": "man",
}
NAMES = pd.DataFrame(
    [("Ann", "female", "Black", "f:1"), ("Bob", "male", "White", "m:1")], columns=NAME_COLUMNS
)


def test_each_name_gets_a_gender_and_a_race_question_with_constrained_answers():
    asked = validity.questions(NAMES, SETTINGS, ["White", "Black"])
    assert list(asked["prompt"]) == [
        "Gender of Ann?",
        "Gender of Bob?",
        "Race of Ann?",
        "Race of Bob?",
    ]
    assert asked["choices"][0] == ("woman", "man") and asked["roles"][0] == ("female", "male")
    assert asked["choices"][2] == ("White", "Black") == asked["roles"][2]
    assert list(validity.questions(NAMES, SETTINGS, [])["question"]) == ["gender", "gender"]


def test_the_reading_of_each_name_and_the_probability_of_its_label():
    asked = validity.questions(NAMES, SETTINGS, ["White", "Black"])
    answers = ["woman", "woman", "Black", "White"]  # Bob is read as a woman
    logprobs = [(math.log(0.75), math.log(0.25)), (0.0, math.log(1 / 3)), (0.0, 0.0)]
    logprobs.append((math.log(0.9), math.nan))  # a choice the backend could not score
    table = validity.perceived(NAMES, asked, answers, logprobs, {"Ann": 1, "Bob": None})
    assert list(table.columns) == validity.COLUMNS
    ann, bob = table.iloc[0], table.iloc[1]
    assert (ann["perceived_gender"], ann["perceived_race"], ann["reads_as_label"]) == (
        "female",
        "Black",
        True,
    )
    assert ann["p_gender"] == pytest.approx(0.75) and ann["p_race"] == pytest.approx(0.5)
    assert bob["perceived_gender"] == "female" and not bob["reads_as_label"]
    assert bob["p_gender"] == pytest.approx(0.25) and math.isnan(bob["p_race"])
    assert ann["tokens"] == 1 and pd.isna(bob["tokens"])
    assert names.misread([table]) == ["Bob"]
    text = validity_markdown({"m": table}, dropping=True)
    assert "1 of 2 names read as their label" in text and "left out before pairing" in text


def test_the_checks_of_the_validity_settings():
    names = {"validate": True, "drop_misperceived": False, "validity": dict(SETTINGS)}
    check_validity(names)
    with pytest.raises(InputError, match=r"gender_question: unknown placeholder\(s\) \['x'\]"):
        check_validity({**names, "validity": {**SETTINGS, "gender_question": "{name} {x}"}})
    with pytest.raises(InputError, match="gender_question: the template must use"):
        check_validity({**names, "validity": {**SETTINGS, "gender_question": "Which gender?"}})
    with pytest.raises(InputError, match="female and .male read the same"):
        check_validity({**names, "validity": {**SETTINGS, "male": "Woman"}})
    with pytest.raises(InputError, match="drop_misperceived needs names.validate"):
        check_validity({**names, "validate": False, "drop_misperceived": True})


class SplittingTokenizer:
    def encode(self, text, add_special_tokens):
        return text.split()


class FirstChoice(Backend):
    """Answers every question with its first choice; holds a tokenizer."""

    tokenizer = SplittingTokenizer()

    def answer(self, requests):
        return [Response(r.choices[0], (-0.1,) + (-3.0,) * (len(r.choices) - 1)) for r in requests]


def test_a_tokenizer_counts_tokens_and_none_says_none():
    assert token_count(SplittingTokenizer(), " Ann Lee") == 2
    assert token_count(None, " Ann Lee") is None


def test_names_answered_from_the_store_load_no_model(tmp_path, monkeypatch):
    """A re-run whose every answer is in the store counts tokens with the tokenizer alone: a
    validated 70B audit does not load its weights again for that."""
    settings = model_settings({"backend": "transformers", "model": "org/a-model"})
    monkeypatch.setattr(validity, "load_backend", lambda *args, **kwargs: FirstChoice())
    first, asked = validity.validate_names(
        "m", settings, NAMES, SETTINGS, ["Black", "White"], tmp_path
    )
    assert asked.asked == 4

    def no_model(*args, **kwargs):
        raise AssertionError("the model was loaded")

    monkeypatch.setattr(validity, "load_backend", no_model)
    monkeypatch.setattr(validity, "load_tokenizer", lambda name, s: SplittingTokenizer())
    again, summary = validity.validate_names(
        "m", settings, NAMES, SETTINGS, ["Black", "White"], tmp_path
    )
    assert (summary.asked, summary.from_store) == (0, 4)
    pd.testing.assert_frame_equal(again, first)
    assert list(again["tokens"]) == [1, 1]


def test_the_dataset_leaves_out_the_names_a_model_misreads(tmp_path):
    perceived = pd.DataFrame({"name": ["Ann", "Eve", "Bob"], "reads_as_label": [False, True, True]})
    perceived.to_csv(tmp_path / "m.tsv", sep="\t", index=False)
    female = "[subj] female | Ann\n[subj] female | Eve\n"
    code, _ = run_dataset(
        tmp_path, female, "[subj] male | Bob\n", "--perceived", str(tmp_path / "m.tsv")
    )
    assert code == 0
    assert list(pd.read_csv(tmp_path / "p.tsv", sep="\t")["pair_id"]) == ["Eve-Bob"]


def test_the_summary_lists_the_names_left_out():
    text = summary({}, {}, {}, GENDER_CONTRAST, dropped=["Ann", "Bob"])
    assert "**2 names left out before pairing**" in text and "Ann, Bob." in text
    assert "left out" not in summary({}, {}, {}, GENDER_CONTRAST)
