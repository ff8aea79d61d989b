"""The distribution of the answer space's probability, and what the summary says of it."""

import math

import pandas as pd
import pytest

from hiremeornot.analysis.answer_space import mass_distribution
from hiremeornot.analysis.findings import forced_answers
from hiremeornot.writing.summary import answer_space_sentence


def sentence(distribution: pd.DataFrame, free: tuple[str, ...] = ()) -> str:
    """The summary's sentence of a distribution, with its forced_answers finding (``free``: the
    questions asked free; every step was where it names all four)."""
    every_free = len(free) == 4
    found = pd.Series(forced_answers(distribution, every_free))
    return answer_space_sentence(distribution, found, list(free))


def step(masses, question=None):
    table = pd.DataFrame({"answer_mass": masses})
    return table if question is None else table.assign(question=question)


def test_shares_are_counted_per_question_and_over_every_answer():
    tables = [
        ("step1", step([0.9, 0.995, 0.4, 1.0])),
        ("step2", step([0.2, 0.3])),
        ("step3", step([0.6, 0.7, 0.1, 0.05], ["q2", "q2", "q3", "q3"])),
    ]
    rows = mass_distribution(tables).set_index("question")
    assert list(rows.index) == ["attribute", "q1", "q2", "q3", "all"]
    assert rows.loc["attribute", "share_forced"] == 0.25
    assert rows.loc["attribute", "share_below_trusted"] == 0.5
    assert rows.loc["q1", "share_forced"] == 1.0 and rows.loc["q2", "share_forced"] == 0.0
    assert rows.loc["all", "answers"] == 10 and rows.loc["all", "share_forced"] == 0.5
    assert rows.loc["all", "mass_median"] == pytest.approx(0.5)
    assert forced_answers(mass_distribution(tables), False)["outcome"] == "mostly forced"  # half
    text = sentence(mass_distribution(tables))
    assert text.startswith("Answer space: 50% of the answers had less than half")
    assert "attribute 25%, q1 100%, q2 0%, q3 100%" in text and "**Most answers" in text


def test_answers_whose_mass_was_not_seen_are_never_counted_as_measured():
    tables = [("step1", step([math.nan, 0.995])), ("step2", pd.DataFrame({"answer": ["Yes"]}))]
    rows = mass_distribution(tables).set_index("question")
    assert rows.loc["all", "measured"] == 1 and rows.loc["all", "answers"] == 3
    assert math.isnan(rows.loc["q1", "share_forced"])
    found = forced_answers(mass_distribution(tables), False)
    assert (found["outcome"], found["count"], found["total"]) == ("mostly chosen", 1, 3)
    text = sentence(mass_distribution(tables))
    assert "0% of the answers (measured for 1 of 3 answers)" in text
    assert "q1" not in text and "**Most" not in text


def test_a_backend_that_shows_no_mass_is_said_to_be_unmeasured():
    distribution = mass_distribution([("step1", step([math.nan, math.nan]))])
    assert forced_answers(distribution, False)["outcome"] == "not measured"
    text = sentence(distribution)
    assert "is not known" in text and "%" not in text


def test_questions_asked_free_are_said_to_have_no_probabilities():
    tables = [("step1", step([0.9, 0.995])), ("step2", step([math.nan, math.nan]))]
    text = sentence(mass_distribution(tables), ("q1",))
    assert "(measured for 2 of 4 answers; Q1 asked free have no probabilities)" in text
    every = sentence(mass_distribution([("step1", step([math.nan]))]), ("step1", "q1", "q2", "q3"))
    assert "every question was asked free, so no answer was forced" in every
