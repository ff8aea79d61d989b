"""Build the question tables of Steps 1-3: one row per question, with its prompt and choices.

Every table has the columns ``wording`` (the id of the prompt wording, prompts.PAPER by default),
``prompt``, ``choices`` (the answer words, in the order offered) and ``roles`` (what each answer
means: yes/no, or the sides' labels (female/male) and both/neither). Each wording is asked of
every instance. The subject's side is in a column named by the contrast's attribute (``gender``).

The column ``about`` says what each question asks, for Request.about (the simulated respondent
answers from it): ``question`` (step1, q1, q2, q3), ``wording``, and ``subject`` and ``side``
(Step 1, with ``attribute_type``; Q1, with ``occupation`` and ``granted``, the number of
attributes Step 1 granted the subject) or ``people`` (Q2, Q3, with ``occupation``: each person's
``name`` and ``side``, in listing order, the order of the choices). It is not written to the
step tables.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pandas as pd

from hiremeornot.design.contrasts import Sides
from hiremeornot.design.prompts import PromptRenderer

YES_NO = ("yes", "no")
ABOUT = "about"
QUESTION_COLUMNS = ["prompt", "choices", "roles", ABOUT]


def _yes_no(answers: Mapping[str, str]) -> tuple[str, str]:
    return (answers["yes"], answers["no"])


def _subjects(instance, sides: Sides) -> tuple[tuple[str, str], tuple[str, str]]:
    """(name, side) of both subjects of an instance, in listing order."""
    return tuple(
        (getattr(instance, f"name{i}"), getattr(instance, f"{sides.attribute}{i}")) for i in (1, 2)
    )


# A Step-1 question is fixed by who is listed first and second (the context), whom it asks
# about and which attribute: the key that joins its answer to every instance that shares it.
STEP1_KEY = ["name1", "name2", "subject", "element_id"]


def step1_row_columns(sides: Sides) -> list[str]:
    """instance_id, occupation, the A and B names (female, male), name1, name2, subject, the
    subject's side (gender), element_id, attribute, attribute_type, description."""
    return [
        "instance_id",
        "occupation",
        *sides.labels,
        "name1",
        "name2",
        "subject",
        sides.attribute,
        "element_id",
        "attribute",
        "attribute_type",
        "description",
    ]


def step1_rows(instances: pd.DataFrame, attributes: pd.DataFrame, sides: Sides) -> pd.DataFrame:
    """Every (instance, subject, attribute of the instance's occupation), in instance order."""
    subjects = pd.concat(
        [
            instances.assign(
                subject=instances[f"name{i}"],
                **{sides.attribute: instances[f"{sides.attribute}{i}"]},
            )
            for i in (1, 2)
        ]
    ).sort_index(kind="stable")
    rows = subjects.merge(attributes, on="soc_code", how="inner", sort=False)
    return rows[step1_row_columns(sides)].reset_index(drop=True)


def step1_questions(
    rows: pd.DataFrame,
    renderers: Mapping[str, PromptRenderer],
    answers: Mapping[str, str],
    sides: Sides,
) -> pd.DataFrame:
    """The distinct Step-1 questions of ``rows`` (see step1_rows) in each wording of
    ``renderers`` (id -> renderer): does the subject have the attribute? One per wording and
    STEP1_KEY, with its prompt."""
    distinct = rows.drop_duplicates(STEP1_KEY)
    columns = [*STEP1_KEY, sides.attribute, "attribute", "attribute_type"]
    tables = [
        distinct[columns]
        .assign(
            prompt=[
                renderer.attribute_question(
                    row.name1,
                    row.name2,
                    row.subject,
                    row.attribute,
                    row.attribute_type,
                    row.description,
                )
                for row in distinct.itertuples()
            ],
            choices=[_yes_no(answers)] * len(distinct),
            roles=[YES_NO] * len(distinct),
            about=[
                {
                    "question": "step1",
                    "wording": wording,
                    "subject": subject,
                    "side": side,
                    "attribute_type": attribute_type,
                }
                for subject, side, attribute_type in zip(
                    distinct["subject"],
                    distinct[sides.attribute],
                    distinct["attribute_type"],
                    strict=True,
                )
            ],
        )
        .assign(wording=wording)
        for wording, renderer in renderers.items()
    ]
    return pd.concat(tables, ignore_index=True)[["wording", *columns, *QUESTION_COLUMNS]]


def join_step1(rows: pd.DataFrame, step1: pd.DataFrame) -> pd.DataFrame:
    """``rows`` once per wording of ``step1``, each with its Step-1 answer (choice, logprob_yes,
    logprob_no), joined by STEP1_KEY; a row without an answer is an error."""
    answer_columns = ["choice", "logprob_yes", "logprob_no"]
    joined = pd.concat(
        [
            rows.drop(columns="description")
            .merge(group[[*STEP1_KEY, *answer_columns]], on=STEP1_KEY, how="left", validate="m:1")
            .assign(wording=wording)
            for wording, group in step1.groupby("wording", sort=False)
        ],
        ignore_index=True,
    )
    missing = int(joined["choice"].isna().sum())
    if missing:
        raise ValueError(f"{missing} (instance, subject, attribute) rows have no Step-1 answer")
    return joined[["wording", *joined.columns.drop("wording")]]


Granted = Mapping[tuple[str, str, str], list[str]]


def granted_attributes(step1: pd.DataFrame) -> dict[tuple[str, str, str], list[str]]:
    """f_A(s): the attributes Step 1 answered Yes to, per (wording, instance, subject), in table
    order."""
    granted: dict[tuple[str, str, str], list[str]] = {}
    for row in step1.itertuples():
        phrases = granted.setdefault((row.wording, row.instance_id, row.subject), [])
        if row.choice == "yes":
            phrases.append(f"{row.attribute} {row.attribute_type}")
    return granted


def _instances_in_wordings(
    instances: pd.DataFrame, renderers: Mapping[str, PromptRenderer]
) -> Iterator[tuple[str, PromptRenderer, Any]]:
    """(wording, its renderer, instance) for every instance in every wording, wording by
    wording."""
    for wording, renderer in renderers.items():
        for inst in instances.itertuples():
            yield wording, renderer, inst


def step2_questions(
    instances: pd.DataFrame,
    granted: Granted,
    renderers: Mapping[str, PromptRenderer],
    answers: Mapping[str, str],
    sides: Sides,
) -> pd.DataFrame:
    """Q1: is each subject, given only their own f_A, qualified for the occupation? ``granted``:
    how many attributes f_A holds."""
    rows = []
    for wording, renderer, inst in _instances_in_wordings(instances, renderers):
        for subject, side in _subjects(inst, sides):
            facts = granted[(wording, inst.instance_id, subject)]
            statement = renderer.statement(subject, facts)
            prompt = renderer.q1(inst.name1, inst.name2, subject, statement, inst.occupation)
            about = {
                "question": "q1",
                "wording": wording,
                "occupation": inst.occupation,
                "subject": subject,
                "side": side,
                "granted": len(facts),
            }
            rows.append(
                (wording, inst.instance_id, inst.occupation, subject, side, len(facts), prompt)
                + (_yes_no(answers), YES_NO, about)
            )
    columns = [
        "wording",
        "instance_id",
        "occupation",
        "subject",
        sides.attribute,
        "granted",
        *QUESTION_COLUMNS,
    ]
    return pd.DataFrame(rows, columns=columns)


def step3_questions(
    instances: pd.DataFrame,
    granted: Granted,
    renderers: Mapping[str, PromptRenderer],
    answers: Mapping[str, str],
    sides: Sides,
) -> pd.DataFrame:
    """Q2 (the two names) and Q3 (the two names, both, neither), both subjects' f_A given; the
    roles of the names are their sides."""
    rows = []
    for wording, renderer, inst in _instances_in_wordings(instances, renderers):
        statements = tuple(
            renderer.statement(name, granted[(wording, inst.instance_id, name)])
            for name in (inst.name1, inst.name2)
        )
        people = _subjects(inst, sides)
        names, labels = zip(*people, strict=True)
        spaces = {
            "q2": (names, labels),
            "q3": (
                (*names, answers["both"], answers["neither"]),
                (*labels, "both", "neither"),
            ),
        }
        for question, (choices, roles) in spaces.items():
            prompt = renderer.choice_question(
                question, inst.name1, inst.name2, statements, inst.occupation
            )
            about = {
                "question": question,
                "wording": wording,
                "occupation": inst.occupation,
                "people": [{"name": name, "side": side} for name, side in people],
            }
            rows.append(
                (wording, inst.instance_id, inst.occupation, question, prompt, choices, roles)
                + (about,)
            )
    columns = ["wording", "instance_id", "occupation", "question", *QUESTION_COLUMNS]
    return pd.DataFrame(rows, columns=columns)
