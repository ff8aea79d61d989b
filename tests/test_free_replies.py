"""The free-answer parser (asking/free_replies.py): a table of reply shapes read as a reader
would, and the guarantees each rule gives."""

from __future__ import annotations

import itertools

import pandas as pd
import pytest

from hiremeornot.asking.free_replies import NON_ANSWERS, read_reply
from tests.conftest import REPO

REPLIES = pd.read_csv(
    REPO / "tests" / "data" / "free_replies.tsv", sep="\t", dtype=str, keep_default_na=False
)


@pytest.mark.parametrize("row", list(REPLIES.itertuples(index=False)), ids=lambda row: row.why)
def test_each_reply_shape_reads_as_a_reader_reads_it(row):
    reading = read_reply(
        row.reply.replace("\\n", "\n"), row.choices.split("|"), row.roles.split("|")
    )
    assert reading.answer == row.expected, reading.rule


def test_the_table_covers_every_outcome_and_rule():
    readings = [
        read_reply(r.reply.replace("\\n", "\n"), r.choices.split("|"), r.roles.split("|"))
        for r in REPLIES.itertuples()
    ]
    assert {reading.rule for reading in readings} == {
        "empty",
        "refusal",
        "leading",
        "stated",
        "hedge",
        "mentioned",
        "not offered",
        "several",
        "none",
    }
    assert set(NON_ANSWERS) <= {reading.answer for reading in readings}


@pytest.mark.parametrize(
    ("choices", "roles"),
    [
        (("Yes", "No"), ("yes", "no")),
        (("Lakisha Washington", "Greg Baker"), ("black", "white")),
        (("Mary", "John", "both", "neither"), ("female", "male", "both", "neither")),
    ],
)
def test_every_choice_given_as_the_constraint_would_give_it_reads_as_itself(choices, roles):
    for choice, dressing in itertools.product(
        choices, ("{}", "{}.", "**{}**", " {}\n", "Answer: {}")
    ):
        assert read_reply(dressing.format(choice), choices, roles).answer == choice


def test_choices_and_roles_must_pair():
    with pytest.raises(ValueError, match="2 choices but 1 roles"):
        read_reply("Yes", ["Yes", "No"], ["yes"])
