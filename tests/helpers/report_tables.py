"""One model's metrics, tests and position tables for two occupations, made by hand, and their
findings: what the summary, the difference tables and the findings tests read."""

from __future__ import annotations

import pandas as pd

from hiremeornot.analysis.findings import model_findings
from hiremeornot.design.contrasts import GENDER_CONTRAST

ANSWERED = pd.DataFrame({"step": ["all"], "answers": [24], "measured": [24], "share_forced": [0.0]})
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


def found(metrics, tests, position):
    """The findings of these tables, of a model whose answers were all measured, none forced."""
    return model_findings(
        metrics,
        tests,
        position,
        ANSWERED,
        model={"backend": "openai", "model": "gpt-4o"},
        settings=REPORT,
        contrast=GENDER_CONTRAST,
    )
