"""An intervention's effect: an arm's answers set against the baseline's, paired by question.

An arm (arms.with_arms) asks every question of the baseline's design again with one instruction
added (a system text, a preamble before each prompt's context, or both), Step 1 included, so
its Steps 2-3 state its own Step-1 answers. The comparison is compare.py's, with the arm's
preamble left out of its prompts: a *flip* is a question whose text (less the instruction) was
identical in both arms and was answered otherwise; a Step-2/3 question that reads differently
because the arm's Step 1 granted other attributes is counted apart, as *changed through Step 1*.

Per occupation and pooled over occupations, the change arm - baseline of Confirmation,
Consistency and the difference is paired.paired_changes' (crossed name bootstrap of the
per-instance differences, BH across occupations, the minimum detectable change at 80% power);
the selection rates and impact ratios' changes are rate_changes.paired_rate_changes'. Each row
of the difference gets an ``outcome`` in words, from the change's test and the two arms' own
verdicts on the gap (their tests.tsv per occupation; pooled, the same test on all instances at
once): see OUTCOMES.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from hiremeornot.analysis import compare, rate_changes
from hiremeornot.analysis.stats import ALL_OCCUPATIONS, CONFOUNDED, occupation_statistics

# What an instruction did to the gap (the difference), by the test of the change and the two
# arms' verdicts on the gap.
OUTCOMES = {
    "removed": "removed the gap (the arm's difference is shown to lie within the margin)",
    "reversed": "reversed the gap (the arm's difference is significant the other way)",
    "reduced": "reduced the gap (smaller, not shown to be gone)",
    "widened": "widened the gap",
    "created": "created a gap the baseline did not show",
    "changed": "changed the difference, with a gap shown in neither arm",
    "confounded": "changed the difference, but one arm's gap is confounded with position",
    "no detectable change": "no detectable change",
}
GAP_COLUMNS = ["occupation", "difference", "verdict"]


@dataclass(frozen=True)
class Effect:
    """What an instruction changed: compare's comparison (flips, per-metric changes, with
    ``outcome`` beside the difference's) and the changes of the selection rates."""

    comparison: compare.Comparison
    changes: pd.DataFrame  # paired.change_columns + baseline_verdict, arm_verdict, outcome
    rates: pd.DataFrame  # rate_changes.RATE_CHANGE_COLUMNS (empty without selections)


def pooled_gaps(run: compare.Run, settings: Mapping[str, Any]) -> pd.DataFrame:
    """A run's difference and verdict pooled over occupations (GAP_COLUMNS):
    stats.occupation_statistics' test with every instance in one occupation, ALL_OCCUPATIONS
    (one test: its q-value is its p-value)."""
    pooled = run.outcomes.assign(occupation=ALL_OCCUPATIONS)
    _, tests = occupation_statistics(pooled, settings["difference"], settings, run.sides)
    return tests[GAP_COLUMNS]


def outcome(significant: bool, baseline: str, baseline_gap: float, arm: str, arm_gap: float) -> str:
    """The OUTCOMES key of one occupation's change in the difference: ``significant`` is the
    change's test; ``baseline``/``arm`` each arm's verdict on its gap (stats.verdict)."""
    if not significant:
        return "no detectable change"
    if CONFOUNDED in (baseline, arm):
        return "confounded"
    if baseline != "differs":
        return "created" if arm == "differs" else "changed"
    if arm == "equivalent":
        return "removed"
    if arm == "differs" and np.sign(arm_gap) == -np.sign(baseline_gap):
        return "reversed"
    return "reduced" if abs(arm_gap) < abs(baseline_gap) else "widened"


def with_outcomes(changes: pd.DataFrame, gaps: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """The changes with each arm's verdict on the gap and the difference rows' ``outcome``
    (empty for Confirmation and Consistency). ``gaps``: GAP_COLUMNS of runs ``a`` and ``b``."""
    table = changes.copy()
    for run, column in (("a", "baseline_verdict"), ("b", "arm_verdict")):
        verdicts = gaps[run].set_index("occupation")
        table[column] = table["occupation"].map(verdicts["verdict"]).fillna("")
        table[f"gap_{run}"] = table["occupation"].map(verdicts["difference"])
    is_gap = table["metric"] == "difference"
    table["outcome"] = [
        outcome(r.significant, r.baseline_verdict, r.gap_a, r.arm_verdict, r.gap_b) if gap else ""
        for r, gap in zip(table.itertuples(), is_gap, strict=True)
    ]
    table.loc[~is_gap, ["baseline_verdict", "arm_verdict"]] = ""
    return table.drop(columns=["gap_a", "gap_b"])


def intervention_effect(
    baseline: compare.Run,
    arm: compare.Run,
    tests: Mapping[str, pd.DataFrame],
    settings: Mapping[str, Any],
    selections: tuple[pd.DataFrame, pd.DataFrame] | None = None,
) -> Effect:
    """Compare the arm with the baseline: flips, paired changes with their outcomes, and (with
    both runs' ``selections``) the changes of the selection rates and impact ratios. ``tests``:
    each run's tests.tsv by ``a`` (baseline) and ``b`` (arm); ``settings``: the config's
    ``report``."""
    comparison = compare.compare(baseline, arm, settings)
    gaps = {
        name: pd.concat([tests[name][GAP_COLUMNS], pooled_gaps(run, settings)])
        for name, run in (("a", baseline), ("b", arm))
    }
    rates = pd.DataFrame(columns=rate_changes.RATE_CHANGE_COLUMNS)
    if selections is not None:
        rates = rate_changes.paired_rate_changes(
            *selections,
            confidence=settings["confidence"],
            alpha=settings["alpha"],
            pooled_label=ALL_OCCUPATIONS,
        )
    return Effect(comparison, with_outcomes(comparison.changes, gaps), rates)
