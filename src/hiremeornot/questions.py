"""Build the question tables of Steps 1-3: one row per question, with its prompt and choices.

Every table has the columns ``prompt``, ``choices`` (the answer words, in the order offered) and
``roles`` (what each answer means: yes/no, or female/male/both/neither).
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from hiremeornot.prompts import PromptRenderer

YES_NO = ("yes", "no")


def _yes_no(answers: Mapping[str, str]) -> tuple[str, str]:
    return (answers["yes"], answers["no"])


def _subjects(instance) -> tuple[tuple[str, str], tuple[str, str]]:
    """(name, gender) of both subjects of an instance, in listing order."""
    return ((instance.name1, instance.gender1), (instance.name2, instance.gender2))


def step1_questions(
    instances: pd.DataFrame,
    attributes: pd.DataFrame,
    renderer: PromptRenderer,
    answers: Mapping[str, str],
) -> pd.DataFrame:
    """Does each subject of each instance have each of the occupation's attributes?"""
    by_soc = {soc: group for soc, group in attributes.groupby("soc_code", sort=False)}
    rows = []
    for inst in instances.itertuples():
        for subject, gender in _subjects(inst):
            for attr in by_soc[inst.soc_code].itertuples():
                prompt = renderer.attribute_question(
                    inst.name1,
                    inst.name2,
                    subject,
                    attr.attribute,
                    attr.attribute_type,
                    attr.description,
                )
                rows.append(
                    (
                        inst.instance_id,
                        inst.occupation,
                        subject,
                        gender,
                        attr.element_id,
                        attr.attribute,
                        attr.attribute_type,
                        prompt,
                        _yes_no(answers),
                        YES_NO,
                    )
                )
    columns = [
        "instance_id",
        "occupation",
        "subject",
        "gender",
        "element_id",
        "attribute",
        "attribute_type",
        "prompt",
        "choices",
        "roles",
    ]
    return pd.DataFrame(rows, columns=columns)


def granted_attributes(step1: pd.DataFrame) -> dict[tuple[str, str], list[str]]:
    """f_A(s): the attributes Step 1 answered Yes to, per (instance, subject), in table order."""
    granted: dict[tuple[str, str], list[str]] = {}
    for row in step1.itertuples():
        phrases = granted.setdefault((row.instance_id, row.subject), [])
        if row.choice == "yes":
            phrases.append(f"{row.attribute} {row.attribute_type}")
    return granted


def step2_questions(
    instances: pd.DataFrame,
    granted: Mapping[tuple[str, str], list[str]],
    renderer: PromptRenderer,
    answers: Mapping[str, str],
) -> pd.DataFrame:
    """Q1: is each subject, given only their own f_A, qualified for the occupation?"""
    rows = []
    for inst in instances.itertuples():
        for subject, gender in _subjects(inst):
            statement = renderer.statement(subject, granted[(inst.instance_id, subject)])
            prompt = renderer.q1(inst.name1, inst.name2, subject, statement, inst.occupation)
            rows.append(
                (
                    inst.instance_id,
                    inst.occupation,
                    subject,
                    gender,
                    prompt,
                    _yes_no(answers),
                    YES_NO,
                )
            )
    columns = ["instance_id", "occupation", "subject", "gender", "prompt", "choices", "roles"]
    return pd.DataFrame(rows, columns=columns)


def step3_questions(
    instances: pd.DataFrame,
    granted: Mapping[tuple[str, str], list[str]],
    renderer: PromptRenderer,
    answers: Mapping[str, str],
) -> pd.DataFrame:
    """Q2 (the two names) and Q3 (the two names, both, neither), both subjects' f_A given."""
    rows = []
    for inst in instances.itertuples():
        statements = tuple(
            renderer.statement(name, granted[(inst.instance_id, name)])
            for name in (inst.name1, inst.name2)
        )
        names, genders = (inst.name1, inst.name2), (inst.gender1, inst.gender2)
        spaces = {
            "q2": (names, genders),
            "q3": (
                (*names, answers["both"], answers["neither"]),
                (*genders, "both", "neither"),
            ),
        }
        for question, (choices, roles) in spaces.items():
            prompt = renderer.choice_question(
                question, inst.name1, inst.name2, statements, inst.occupation
            )
            rows.append((inst.instance_id, inst.occupation, question, prompt, choices, roles))
    columns = ["instance_id", "occupation", "question", "prompt", "choices", "roles"]
    return pd.DataFrame(rows, columns=columns)
