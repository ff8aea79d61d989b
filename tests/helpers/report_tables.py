"""One model's metrics, tests and position tables for two occupations, made by hand, and their
findings: what the summary, the difference tables and the findings tests read."""

from __future__ import annotations

import pandas as pd

from hiremeornot.analysis.findings import model_findings
from hiremeornot.analysis.non_answers import non_answer_table
from hiremeornot.design.contrasts import GENDER_CONTRAST

ANSWERED = pd.DataFrame({"step": ["all"], "answers": [24], "measured": [24], "share_forced": [0.0]})
CONSTRAINED = {"backend": "openai", "model": "gpt-4o", "answers_mode": "constrained"}


def asked_steps(choices: dict[str, list[str]], names: int = 4) -> tuple[pd.DataFrame, ...]:
    """Steps 1-3 of ``names`` women and as many men, one instance per pair in the nurse's
    occupation: each question's choices in turn from ``choices`` (step1, q1, q2, q3: a list
    the rows cycle through; "yes" where a question is not given)."""
    people = [(f"W{i}", "female") for i in range(names)] + [(f"M{i}", "male") for i in range(names)]

    def answers(question: str, count: int) -> list[str]:
        given = choices.get(question, ["yes"])
        return [given[i % len(given)] for i in range(count)]

    step1 = pd.DataFrame(
        [(name, side) for name, side in people for _ in range(3)], columns=["subject", "gender"]
    ).assign(wording="paper", choice=lambda t: answers("step1", len(t)))
    pairs = [f"nurse|W{i}-M{i}" for i in range(names)]
    step2 = pd.DataFrame(
        {
            "wording": "paper",
            "instance_id": [p for p in pairs for _ in range(2)],
            "occupation": "nurse",
            "subject": [n for i in range(names) for n in (f"W{i}", f"M{i}")],
            "gender": ["female", "male"] * names,
        }
    ).assign(choice=lambda t: answers("q1", len(t)))
    step3 = pd.DataFrame(
        {
            "wording": "paper",
            "instance_id": [p for p in pairs for _ in range(2)],
            "occupation": "nurse",
            "question": ["q2", "q3"] * names,
            # listed woman first: her name first among the choices
            "choices": [
                [f"W{i}", f"M{i}", *extra]
                for i in range(names)
                for extra in ([], ["both", "neither"])
            ],
            "roles": [
                ["female", "male", *extra]
                for _ in range(names)
                for extra in ([], ["both", "neither"])
            ],
            "choice": [
                c
                for q2, q3 in zip(answers("q2", names), answers("q3", names), strict=True)
                for c in (q2, q3)
            ],
        }
    )
    return step1, step2, step3


NOT_ASKED = non_answer_table(*asked_steps({}), GENDER_CONTRAST.sides, 0.95)
REPORT = {
    "difference_threshold": 0.2,
    "difference": "biased",
    "alpha": 0.05,
    "equivalence_margin": 0.1,
    "confidence": 0.95,
    "power_differences": [0.2],
    "wordings": ["paper"],
}


def tables(orders, names, verdict, difference=0.9):
    """One model's metrics, tests and position tables for two occupations."""
    metrics = pd.DataFrame(
        {
            "occupation": ["nurse", "pilot"],
            "n": [6, 6],
            "orders": [orders] * 2,
            "confirmation": [0.5, 0.5],
            "consistency": [0.5, 0.5],
            "confirmation_p": [0.5, 0.5],
            "consistency_p": [0.5, 0.5],
            "difference": [difference, -difference],
        }
    )
    tests = pd.DataFrame(
        {
            "occupation": ["nurse", "pilot"],
            "female_names": [names] * 2,
            "male_names": [names] * 2,
            "difference": [difference, -difference],
            "verdict": [verdict] * 2,
            "names_alike": [False, False],
            "p_value": [0.001, 0.001],
            "q_value": [0.002, 0.002],
        }
    )
    position = pd.DataFrame(
        {
            "occupation": ["nurse", "nurse", "pilot", "pilot"],
            "question": ["q2", "q3"] * 2,
            "n_named": [6, 2, 6, 0],
            "first_listed": [6, 1, 6, 0],
            "q_value": [0.03, 1.0, 0.03, 1.0],
        }
    )
    return metrics, tests, position


def found(metrics, tests, position, mode="constrained"):
    """The findings of these tables, of a model whose answers were all measured, none forced,
    asked in ``mode`` (answers.mode)."""
    return model_findings(
        metrics,
        tests,
        position,
        ANSWERED,
        NOT_ASKED,
        model={**CONSTRAINED, "answers_mode": mode},
        settings=REPORT,
        contrast=GENDER_CONTRAST,
    )
