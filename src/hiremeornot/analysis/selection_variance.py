"""The crossed variance of selection rates, their differences and impact ratios (impact.py), and
of their paired changes between two runs about the same people (rate_changes.py).

Every answer is about two people: the one it selects or not, and the other person of its pair
(its partner). Both are sampled names, so a rate is a mean over a crossed sample, as
Confirmation is (crossed.py): a rate, a ratio or a change is linearised into each answer's share
of its deviation (the delta method), the answers summed into cells by their pair of people, and
its variance is crossed.influence_variance_parts's with the people as one random factor, each cell
belonging to both its people (whichever group each is in, and whichever role it plays: a
person selected in one group's answers is the partner in the other's). The intervals are the
estimate +- t(df) x SE (df: crossed.satterthwaite_df, with the fewest names of a group involved
less one where the names make the variance), the whole range where those names are too few
for the test's floor (crossed.smallest_p), as for the metrics.

A ratio's interval comes from its ratio to each other group: the law's ratio is a group's rate
over the highest rate, the smallest of its ratios to every group (and 1), so its interval runs
from the smallest lower bound to the smallest upper bound of those (capped at 1). The
reference's own ratio is 1 and its interval reaches down to its ratio over the runner-up's
lower bound: the truth may have another group on top.

This replaced a crossed name bootstrap (product weights of the two people's draw counts), which
counts the answers' own noise about three times: its per-occupation intervals covered
0.96-1.00 of nominal 95% and its rate changes 0.97-1.00 (docs/calibration.md). The Local Law 144
summary keeps that bootstrap (bootstrap.py): its rates are pooled over occupations, where the
names' own effects outweigh the answers' noise and it covers 0.93-0.97, and its scoring rates
are scored against each resample's own median.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from hiremeornot.analysis.crossed import (
    VarianceParts,
    can_reject,
    influence_variance_parts,
    satterthwaite_df,
    sign_test_floor,
)
from hiremeornot.analysis.distributions import t_quantile, t_upper

if TYPE_CHECKING:
    from hiremeornot.analysis.impact import Cells


@dataclass(frozen=True)
class PairCells:
    """One (occupation, question)'s answers, of one or more runs, summed by the pair of people
    they are about: each cell's two people (person codes; ``second`` -1 where an answer names
    one person only), its answers and selections (runs x cells x groups), per group the
    codes of the people it selects among (``subjects``) and of their partners, and each
    person's group (``group_of``; the number of groups for a partner with no answers of its
    own)."""

    group_of: np.ndarray
    first: np.ndarray
    second: np.ndarray
    answers: np.ndarray
    selected: np.ndarray
    subjects: list[frozenset[int]]
    partners: list[frozenset[int]]

    @property
    def totals(self) -> np.ndarray:
        """Runs x groups: each group's answers."""
        return self.answers.sum(axis=1)

    @property
    def rates(self) -> np.ndarray:
        """Runs x groups: each group's selection rate (NaN without answers)."""
        totals = self.totals
        chosen = self.selected.sum(axis=1)
        return np.divide(chosen, totals, out=np.full_like(totals, np.nan), where=totals > 0)

    def influence(self) -> np.ndarray:
        """Runs x cells x groups: each cell's share of its group's rate's deviation,
        (selected - rate x answers) / the group's answers."""
        rates = np.nan_to_num(self.rates)[:, None, :]
        totals = np.maximum(self.totals, 1)[:, None, :]
        return (self.selected - rates * self.answers) / totals

    def units(self, groups: np.ndarray) -> int:
        """The independent units behind a quantity of ``groups`` (indices): the fewest names
        a group selects among or meets as partners."""
        counts = [len(self.subjects[g]) for g in groups]
        counts += [len(self.partners[g]) for g in groups if self.partners[g]]
        return min(counts)

    def variance(self, coefficients: np.ndarray) -> VarianceParts:
        """The crossed variance, in its parts, of sum over runs and groups of coefficients
        (runs x groups) x each group's rate: over the cells holding answers of a group with a
        coefficient, as many as their answers."""
        involved = coefficients != 0
        counts = (self.answers * involved[:, None, :]).sum(axis=(0, 2))
        at = np.flatnonzero(counts > 0)
        if len(at) == 0:
            return VarianceParts(np.zeros(1), np.zeros(1), 0)
        influence = (self.influence() * coefficients[:, None, :]).sum(axis=(0, 2))[at]
        return influence_variance_parts(self._factors(at), influence[:, None], counts[at])

    def _factors(self, at: np.ndarray) -> list[list[np.ndarray]]:
        """The cells ``at``'s random factors: the people of each group, a factor of its own
        (its clustered term corrected by its own number of people), a cell belonging to
        each of its people."""
        people = np.r_[self.first[at], self.second[at]]
        groups = np.where(people >= 0, self.group_of[np.maximum(people, 0)], -1)
        factors = []
        for group in np.unique(groups[groups >= 0]):
            mine = groups == group
            codes = np.full(len(people), -1)
            codes[mine] = pd.factorize(people[mine])[0]
            factors.append([codes[: len(at)], codes[len(at) :]])
        return factors


def pair_cells(runs: list[Cells], groups: np.ndarray) -> PairCells:
    """The PairCells of one (occupation, question) from each run's Cells (the same people),
    the groups in the order of ``groups``."""
    from hiremeornot.analysis.impact import NOBODY

    people = pd.Index(
        sorted({*(n for c in runs for n in c.name), *(p for c in runs for p in c.partner)})
    )
    keyed = []
    for cells in runs:
        name = people.get_indexer(cells.name)
        partner = np.where(cells.partner == NOBODY, -1, people.get_indexer(cells.partner))
        first = np.where(partner < 0, name, np.minimum(name, partner))
        second = np.where(partner < 0, -1, np.maximum(name, partner))
        keyed.append((first, second, name, partner, np.searchsorted(groups, cells.group)))
    pairs = pd.MultiIndex.from_arrays(
        [np.concatenate([k[0] for k in keyed]), np.concatenate([k[1] for k in keyed])]
    ).unique()
    answers = np.zeros((len(runs), len(pairs), len(groups)))
    selected = np.zeros_like(answers)
    group_of = np.full(len(people), len(groups))
    subjects: list[set[int]] = [set() for _ in groups]
    partners: list[set[int]] = [set() for _ in groups]
    for run, (cells, (first, second, name, partner, group)) in enumerate(
        zip(runs, keyed, strict=True)
    ):
        cell = pairs.get_indexer(pd.MultiIndex.from_arrays([first, second]))
        np.add.at(answers[run], (cell, group), cells.size)
        np.add.at(selected[run], (cell, group), cells.selected)
        group_of[name] = group
        for g, n, p in zip(group, name, partner, strict=True):
            subjects[g].add(int(n))
            if p >= 0:
                partners[g].add(int(p))
    return PairCells(
        group_of=group_of,
        first=pairs.get_level_values(0).to_numpy(),
        second=pairs.get_level_values(1).to_numpy(),
        answers=answers,
        selected=selected,
        subjects=[frozenset(s) for s in subjects],
        partners=[frozenset(p) for p in partners],
    )


@dataclass(frozen=True)
class Spread:
    """A quantity's standard error (its crossed variance and its resolution, in quadrature:
    never 0, as crossed.CrossedMeans.se), the units behind it and the t reference's degrees of
    freedom."""

    se: float
    units: int
    df: float

    def reach(self, confidence: float) -> float:
        """How many standard errors an interval reaches either side: t(df); infinite where
        the test's floor with so few units is at or above 1 - confidence (the whole range)."""
        if not can_reject(self.units, confidence):
            return np.inf
        return float(t_quantile((1 + confidence) / 2, self.df))

    def bounds(self, estimate: float, confidence: float) -> tuple[float, float]:
        half = self.reach(confidence) * self.se
        return estimate - half, estimate + half

    def p_value(self, estimate: float) -> float:
        """The two-sided t-test's p of no change, never below the sign test's floor with
        these units."""
        if self.units < 2:
            return 1.0
        p = 2 * t_upper(abs(estimate) / self.se, self.df) if self.se > 0 else float(estimate == 0)
        return float(max(p, sign_test_floor(self.units)))


def rate_spread(cells: PairCells, run: int, group: int) -> Spread:
    """A group's rate in one run: one answer moves it by 1 / its answers."""
    coefficients = np.zeros(cells.answers.shape[::2])
    coefficients[run, group] = 1.0
    resolution = 1.0 / max(cells.totals[run, group], 1)
    return spread_of(cells, coefficients, resolution, [group])


def ratio_coefficients(cells: PairCells, run: int, group: int, other: int) -> np.ndarray:
    """The linearised ratio of a group's rate to another's: (I_group - ratio x I_other) /
    other's rate (runs x groups)."""
    rates = cells.rates[run]
    coefficients = np.zeros(cells.answers.shape[::2])
    coefficients[run, group] += 1.0 / rates[other]
    coefficients[run, other] -= rates[group] / rates[other] ** 2
    return coefficients


def ratio_resolution(cells: PairCells, run: int, group: int, other: int) -> float:
    """One answer of the group moves its ratio to ``other`` by 1 / (answers x other's rate)."""
    return 1.0 / (max(cells.totals[run, group], 1) * cells.rates[run, other])


def ratio_spread(cells: PairCells, run: int, group: int, other: int) -> Spread:
    coefficients = ratio_coefficients(cells, run, group, other)
    resolution = ratio_resolution(cells, run, group, other)
    return spread_of(cells, coefficients, resolution, [group, other])


def difference_spread(cells: PairCells, group: int, other: int) -> Spread:
    """The difference of two groups' rates in the first run."""
    coefficients = np.zeros(cells.answers.shape[::2])
    coefficients[0, group], coefficients[0, other] = 1.0, -1.0
    resolution = 1.0 / max(cells.totals[0, group], 1)
    return spread_of(cells, coefficients, resolution, [group, other])


def spread_of(
    cells: PairCells, coefficients: np.ndarray, resolution: float, groups: list[int]
) -> Spread:
    """The Spread of sum of coefficients (runs x groups) x the groups' rates: its crossed
    variance and ``resolution`` in quadrature, and the units of the ``groups`` it involves."""
    parts, units = cells.variance(coefficients), cells.units(np.unique(groups))
    se = float(np.sqrt(parts.total[0] + resolution**2))
    return Spread(se, units, float(satterthwaite_df(parts, resolution**2, units - 1)[0]))


def top_reach(cells: PairCells, run: int, confidence: float) -> float:
    """How far above the reference (the highest rate of a run) the true highest rate may lie:
    the largest upper bound of another group's ratio to it, at least 1."""
    rates = cells.rates[run]
    top = int(np.nanargmax(np.where(np.isnan(rates), -1, rates)))
    reach = 1.0
    if rates[top] > 0:
        for other in np.flatnonzero(np.nan_to_num(rates) > 0):
            if other != top:
                ratio = rates[other] / rates[top]
                reach = max(
                    reach, ratio_spread(cells, run, other, top).bounds(ratio, confidence)[1]
                )
    return reach


def ratio_bounds(
    cells: PairCells, rated: np.ndarray, confidence: float, run: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Per group: the interval of its impact ratio, the smallest of its ratios' lower and
    upper bounds to every other rated group with a rate above 0 (and 1); NaN where unrated or
    no rated rate is above 0."""
    rates = cells.rates[run]
    low, high = np.full(len(rates), np.nan), np.full(len(rates), np.nan)
    if not rated.any() or not (rates[rated] > 0).any():
        return low, high
    for group in np.flatnonzero(rated):
        low[group], high[group] = 1.0, 1.0
        for other in np.flatnonzero(rated & (rates > 0)):
            if other == group:
                continue
            ratio = rates[group] / rates[other]
            lower, upper = ratio_spread(cells, run, group, other).bounds(ratio, confidence)
            low[group] = min(low[group], max(lower, 0.0))
            high[group] = min(high[group], upper)
    return low, high
