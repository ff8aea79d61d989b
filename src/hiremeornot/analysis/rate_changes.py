"""Paired changes between two runs about the same people (a baseline and an intervention arm, or
two models): each group's selection rate and impact ratio in both, and the change of each with
a percentile interval from one crossed draw of names applied to both runs, so that the change is
paired (docs/method.md#interventions).

A rate is a share of answers, so it moves in steps of one answer (1 / n_answers, its
resolution): a rate-change interval reaches at least a normal quantile of steps either side of
the change, and its test rejects no change only beyond as many, so that where every name
changed alike (each answer the same in both runs, say) the interval is not 0 [0, 0] and the test
does not claim what a single answer could overturn."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import norm

from hiremeornot.analysis.bootstrap import random_stream
from hiremeornot.analysis.crossed import smallest_p
from hiremeornot.analysis.impact import (
    KEYS,
    Cells,
    Tally,
    as_tally,
    name_draws,
    percentile_bounds,
    pooled_tally,
    rates_under,
    ratios_of,
)
from hiremeornot.analysis.stats import q_values


def paired_resampled_rates(
    first: Cells, second: Cells, n_resamples: int, seed: list[int]
) -> tuple[np.ndarray, np.ndarray]:
    """_resampled_rates of two runs' answers about the same people (a baseline and an arm),
    both under the same draws of names, so that their difference is paired."""
    people = [set(zip(c.group, c.name, strict=True)) for c in (first, second)]
    if people[0] != people[1]:
        raise ValueError("the two runs' selections are about different names or groups")
    draws, column = name_draws(first, n_resamples, np.random.default_rng(seed))
    return rates_under(first, draws, column), rates_under(second, draws, column)


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


def _percentile_p(draws: np.ndarray, floor: float) -> np.ndarray:
    """Two-sided percentile-bootstrap p-values of no change (per column), never below
    ``floor``: twice the share of draws on the far side of zero."""
    with np.errstate(invalid="ignore"):
        below = np.nanmean(draws <= 0, axis=0)
        above = np.nanmean(draws >= 0, axis=0)
    return np.clip(2 * np.minimum(below, above), floor, 1.0)


def with_resolution(
    change: np.ndarray,
    bounds: tuple[np.ndarray, np.ndarray],
    p_value: np.ndarray,
    resolution: np.ndarray,
    confidence: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A rate change's interval widened to at least ``change`` +- z x ``resolution`` (within
    [-1, 1]) and its p-value raised to at least the normal test's of change / resolution, so
    that the widened interval leaves 0 out only where the resolution's test rejects no change
    at 1 - confidence too."""
    reach = norm.ppf((1 + confidence) / 2) * resolution
    low = np.clip(np.fmin(bounds[0], change - reach), -1.0, 1.0)
    high = np.clip(np.fmax(bounds[1], change + reach), -1.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        steps = np.abs(change) / resolution
    return low, high, np.fmax(p_value, 2 * norm.sf(steps))


def paired_rate_changes(
    first: pd.DataFrame | Tally,
    second: pd.DataFrame | Tally,
    *,
    n_resamples: int,
    seed: int,
    confidence: float,
    alpha: float,
    pooled_label: str,
) -> pd.DataFrame:
    """Per (occupation, question, group), then pooled over occupations (``pooled_label``): the
    selection rate and impact ratio of two runs about the same people (A, a baseline; B, an
    arm), and the change B - A of each with a percentile interval from one crossed name draw
    applied to both runs (paired_resampled_rates). ``p_value`` tests no change in the rate (the
    percentile bootstrap's, never below 1 / n_resamples nor the floor crossed.smallest_p sets
    with the fewest names of a group; with_resolution sets the rate's interval and p-value at
    least one answer's resolution apart); q-values are Benjamini-Hochberg across
    occupations per question and group (the pooled rows are tests of their own). Either
    selection table may be its Tally."""
    tallies = (as_tally(first), as_tally(second))
    pooled = tuple(pooled_tally(counted, pooled_label) for counted in tallies)
    parts = [
        _paired_changes(*runs, n_resamples=n_resamples, seed=seed, confidence=confidence)
        for runs in (tallies, pooled)
    ]
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


def _paired_changes(
    a: Tally, b: Tally, *, n_resamples: int, seed: int, confidence: float
) -> pd.DataFrame:
    """paired_rate_changes' rows of each (occupation, question) of ``a``, less the q-values."""
    tallies = (a, b)
    table, other = (counted.rates for counted in tallies)
    if not table[KEYS].equals(other[KEYS]):
        raise ValueError("the two runs' selections are about different names or groups")
    rates = [table["rate"].to_numpy(), other["rate"].to_numpy()]
    ratios = [np.full(len(table), np.nan) for _ in rates]
    changes = {kind: np.full((n_resamples, len(table)), np.nan) for kind in ("rate", "ratio")}
    floor = np.ones(len(table))
    for (occupation, question), at in table.groupby(KEYS[:2], sort=False).indices.items():
        stream = random_stream(seed, f"{occupation}|{question}|paired")
        key = (occupation, question)
        draws = paired_resampled_rates(*(t.cells[key] for t in tallies), n_resamples, stream)
        rated = np.ones(len(at), dtype=bool)
        changes["rate"][:, at] = draws[1] - draws[0]
        changes["ratio"][:, at] = ratios_of(draws[1], rated) - ratios_of(draws[0], rated)
        for run in range(2):
            ratios[run][at] = ratios_of(rates[run][at], rated)
        fewest = int(table["n_names"].to_numpy()[at].min())
        floor[at] = smallest_p(fewest, fewest)  # the floor the other tests set with as few
    change = rates[1] - rates[0]
    p_value = _percentile_p(changes["rate"], np.maximum(1 / n_resamples, floor))
    rate_low, rate_high, p_value = with_resolution(
        change,
        percentile_bounds(changes["rate"], confidence),
        p_value,
        1.0 / table["n_answers"].to_numpy(float),
        confidence,
    )
    ratio_low, ratio_high = percentile_bounds(changes["ratio"], confidence)
    return table.assign(
        rate_a=rates[0],
        rate_b=rates[1],
        rate_change=change,
        rate_change_low=rate_low,
        rate_change_high=rate_high,
        ratio_a=ratios[0],
        ratio_b=ratios[1],
        ratio_change=ratios[1] - ratios[0],
        ratio_change_low=ratio_low,
        ratio_change_high=ratio_high,
        p_value=p_value,
    )
