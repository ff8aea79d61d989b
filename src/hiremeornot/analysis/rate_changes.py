"""Paired changes between two runs about the same people (a baseline and an intervention arm, or
two models): each group's selection rate and impact ratio in both, and the change of each with
an interval from its crossed variance over the names, both runs' answers summed into the same
cells of people so that the change is paired (selection_variance.py,
docs/method.md#interventions).

A rate is a share of answers, so it moves in steps of one answer (1 / n_answers, its
resolution): the standard error of a change is never below it, so that where every name
changed alike (each answer the same in both runs, say) the interval is not 0 [0, 0] and the test
does not claim what a single answer could overturn."""

from __future__ import annotations

import numpy as np
import pandas as pd

from hiremeornot.analysis.impact import KEYS, Tally, as_tally, pooled_tally, ratios_of
from hiremeornot.analysis.selection_variance import (
    PairCells,
    pair_cells,
    ratio_coefficients,
    ratio_resolution,
    spread_of,
    top_reach,
)
from hiremeornot.analysis.stats import q_values

RATE_CHANGE_COLUMNS = [
    *KEYS,
    "n_names",
    "n_answers",
    "rate_a",
    "rate_b",
    "rate_change",
    "rate_change_low",
    "rate_change_high",
    "ratio_a",
    "ratio_b",
    "ratio_change",
    "ratio_change_low",
    "ratio_change_high",
    "p_value",
    "q_value",
    "significant",
]


def paired_rate_changes(
    first: pd.DataFrame | Tally,
    second: pd.DataFrame | Tally,
    *,
    confidence: float,
    alpha: float,
    pooled_label: str,
) -> pd.DataFrame:
    """Per (occupation, question, group), then pooled over occupations (``pooled_label``): the
    selection rate and impact ratio of two runs about the same people (A, a baseline; B, an
    arm), and the change B - A of each with its interval (the change +- t x its crossed
    standard error, within [-1, 1]; the whole range with too few names). ``p_value`` tests no
    change in the rate (the t-test's, never below the floor crossed.smallest_p sets with the
    fewest names); q-values are Benjamini-Hochberg across occupations per question and group
    (the pooled rows are tests of their own). Either selection table may be its Tally."""
    tallies = (as_tally(first), as_tally(second))
    pooled = tuple(pooled_tally(counted, pooled_label) for counted in tallies)
    parts = [_paired_changes(*runs, confidence=confidence) for runs in (tallies, pooled)]
    table = pd.concat(parts, ignore_index=True)  # each in order, the pooled rows last
    if table.empty:
        return pd.DataFrame(columns=RATE_CHANGE_COLUMNS)
    each = table["occupation"] != pooled_label
    table["q_value"] = table["p_value"]
    table.loc[each, "q_value"] = (
        table[each].groupby(["question", "group"])["p_value"].transform(q_values)
    )
    table["significant"] = table["q_value"] < alpha
    return table[RATE_CHANGE_COLUMNS]


def _paired_changes(a: Tally, b: Tally, *, confidence: float) -> pd.DataFrame:
    """paired_rate_changes' rows of each (occupation, question) of ``a``, less the q-values."""
    table, other = a.rates, b.rates
    if not table[KEYS].equals(other[KEYS]):
        raise ValueError("the two runs' selections are about different names or groups")
    rates = [table["rate"].to_numpy(), other["rate"].to_numpy()]
    ratios = [np.full(len(table), np.nan) for _ in rates]
    found = {name: np.full(len(table), np.nan) for name in CHANGE_BOUNDS}
    for key, at in table.groupby(KEYS[:2], sort=False).indices.items():
        runs = [a.cells[key], b.cells[key]]
        people = [set(zip(run.group, run.name, strict=True)) for run in runs]
        if people[0] != people[1]:
            raise ValueError("the two runs' selections are about different names or groups")
        cells = pair_cells(runs, runs[0].groups())
        rated = np.ones(len(at), dtype=bool)
        for run in range(2):
            ratios[run][at] = ratios_of(rates[run][at], rated)
        for name, values in _changes_of(cells, confidence).items():
            found[name][at] = values
    return table.assign(
        rate_a=rates[0],
        rate_b=rates[1],
        rate_change=rates[1] - rates[0],
        ratio_a=ratios[0],
        ratio_b=ratios[1],
        ratio_change=ratios[1] - ratios[0],
        **found,
    )


CHANGE_BOUNDS = [
    "rate_change_low",
    "rate_change_high",
    "ratio_change_low",
    "ratio_change_high",
    "p_value",
]


def _changes_of(cells: PairCells, confidence: float) -> dict[str, np.ndarray]:
    """CHANGE_BOUNDS per group of one (occupation, question) of two runs' PairCells.

    A ratio change is linearised with each run's reference held, so where another group may
    truly be on top (a tie the data cannot exclude), a run's true ratio can lie below the one
    to its reference by up to the ratio x (1 - 1 / top_reach): the interval reaches that much
    further on the side it would move the change."""
    rates = cells.rates
    groups = rates.shape[1]
    found = {name: np.full(groups, np.nan) for name in CHANGE_BOUNDS}
    tops = np.nanargmax(np.where(np.isnan(rates), -1, rates), axis=1)
    for group in range(groups):
        coefficients = np.zeros_like(rates)
        coefficients[1, group], coefficients[0, group] = 1.0, -1.0
        resolution = 1.0 / max(cells.totals[0, group], 1)
        rate = spread_of(cells, coefficients, resolution, [group])
        change = rates[1, group] - rates[0, group]
        low, high = rate.bounds(change, confidence)
        found["rate_change_low"][group], found["rate_change_high"][group] = _clipped(low, high)
        found["p_value"][group] = rate.p_value(change)
        references = rates[[0, 1], tops]
        if (references > 0).all():
            coefficients = ratio_coefficients(cells, 1, group, tops[1]) - ratio_coefficients(
                cells, 0, group, tops[0]
            )
            resolution = max(ratio_resolution(cells, run, group, tops[run]) for run in (0, 1))
            ratio = spread_of(cells, coefficients, resolution, [group, *tops])
            ratios = rates[:, group] / references
            low, high = ratio.bounds(ratios[1] - ratios[0], confidence)
            slack = [ratios[run] * (1 - 1 / top_reach(cells, run, confidence)) for run in (0, 1)]
            low, high = _clipped(low - slack[1], high + slack[0])
            found["ratio_change_low"][group], found["ratio_change_high"][group] = low, high
    return found


def _clipped(low: float, high: float) -> tuple[float, float]:
    return float(np.clip(low, -1.0, 1.0)), float(np.clip(high, -1.0, 1.0))
