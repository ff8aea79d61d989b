"""How much probability the model put on the answer space before the constraint held it there.

Every answer is held to its answer words. Where the backend sees the model's unconstrained
distribution (transformers, extractive QA, the simulated respondent), each answer records the
probability of the whole answer space (``answer_mass``, see backends/base.py). Near 1, the model
would have answered with one of the words anyway; below one half, the constraint chose the
answer more than the model did. discrim-eval trusts an answer only above 0.99. This module
gives the distribution of that mass per step and question (report.answer_space_sentence says
it in words).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

FORCED = 0.5  # below it, an answer was forced by the constraint
TRUSTED = 0.99  # discrim-eval's bar for an answer it trusts
QUANTILES = (0.05, 0.25, 0.5)
COLUMNS = [
    "step",
    "question",
    "answers",
    "measured",
    "mass_p05",
    "mass_p25",
    "mass_median",
    "share_forced",
    "share_below_trusted",
]


def question_of(table: pd.DataFrame, step: str) -> pd.Series:
    """Each row's question: attribute (Step 1), q1 (Step 2), or the Step-3 table's own."""
    if "question" in table:
        return table["question"].astype(str)
    return pd.Series("attribute" if step == "step1" else "q1", index=table.index)


def mass_distribution(tables: Sequence[tuple[str, pd.DataFrame]]) -> pd.DataFrame:
    """One row per step and question, and a last row for every answer (step ``all``): how
    many answers, how many had their mass measured, its quantiles and the shares below
    FORCED and TRUSTED (of those measured; NaN where none was)."""
    parts = []
    for step, table in tables:
        masses = table.get("answer_mass", np.nan)  # tables written before it: not measured
        parts.append(
            pd.DataFrame(
                {"step": step, "question": question_of(table, step), "mass": masses},
                index=table.index,
            )
        )
    answers = pd.concat(parts, ignore_index=True)
    rows = [
        _row(step, question, group)
        for (step, question), group in answers.groupby(["step", "question"], sort=True)
    ]
    rows.append(_row("all", "all", answers))
    return pd.DataFrame(rows, columns=COLUMNS)


def _row(step: str, question: str, group: pd.DataFrame) -> dict:
    mass = group["mass"].astype(float).dropna()
    quantiles = mass.quantile(QUANTILES) if len(mass) else pd.Series(np.nan, index=QUANTILES)
    return {
        "step": step,
        "question": question,
        "answers": len(group),
        "measured": len(mass),
        "mass_p05": quantiles[0.05],
        "mass_p25": quantiles[0.25],
        "mass_median": quantiles[0.5],
        "share_forced": (mass < FORCED).mean() if len(mass) else np.nan,
        "share_below_trusted": (mass < TRUSTED).mean() if len(mass) else np.nan,
    }
