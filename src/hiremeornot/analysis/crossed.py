"""Means over a crossed sample of names and their standard errors: every interval and test of
Confirmation, Consistency, the differences and the paired changes rests on them.

The names are a sample and cross each other: each female name meets several male names, so the
pairs (and their instances) are not independent. The variance of a mean over such a table is
that of an additive crossed random-effects model (female name + male name + the answer's own
noise; wordings a third factor where several are pooled), estimated by the method of moments:
the cluster-robust variance by female name plus the one by male name (each counts the answers'
own noise once), less the answers' own noise, read from what an additive fit of the names'
effects leaves (crossed_variance_parts). In a complete design with one row a cell it is the two-way
ANOVA's (MS_A + MS_B - MS_E) / N. A mean's rows are summed once into cells (group, names,
wording): no resampling.

This replaced a crossed ("pigeonhole") bootstrap that drew the names of each side and weighed a
cell by the product of its names' draw counts: that counts the answers' own noise about three
times (once in each side's resampling and once in their product) and its intervals covered
0.97-1.00 of nominal 95% (docs/calibration.md#intervals-at-their-nominal-level-2026-12-05).
Cameron, Gelbach and Miller's two-way cluster-robust variance (the same less the variance
clustered by pair) was tried too: it counts the noise once but takes some of the names'
variance out with the pairs' and came out 5-12% low with 20 names a side (the same page).

smallest_p is the floor the tests set on p with that many independent units.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from hiremeornot.analysis.distributions import t_quantile
from hiremeornot.design.contrasts import Sides


@dataclass(frozen=True)
class CrossedMeans:
    """Means of some per-instance values over a crossed sample of names, with their variance."""

    estimate: np.ndarray  # one per column
    parts: VarianceParts  # each column's variance: the names' share and the answers' own
    n_pairs: int
    a_names: int  # the names of side A (female)
    b_names: int
    rows: int  # the rows (instances x wordings) the means are over
    wordings: int = 1  # more than one: wordings are a third random factor

    @property
    def units(self) -> int:
        """The fewest levels of a random factor: names on the smaller side, or wordings."""
        return min(self.levels)

    @property
    def floor(self) -> float:
        """The smallest p-value the design allows (smallest_p)."""
        return smallest_p(self.a_names, self.b_names, self.wordings)

    @property
    def variance(self) -> np.ndarray:
        """The clustered variance of each column's mean: the names' share and the answers'."""
        return self.parts.total

    @property
    def df(self) -> np.ndarray:
        """Per column, the degrees of freedom of the t reference (satterthwaite_df): units - 1
        where the names make the variance, more where the answers' noise does."""
        return satterthwaite_df(self.parts, self.resolution**2, self.units - 1)

    @property
    def levels(self) -> tuple[int, ...]:
        """The number of levels of each random factor (names of each side, wordings)."""
        return random_levels(self.a_names, self.b_names, self.wordings)

    @property
    def resolution(self) -> float:
        """The standard error one changed answer (a reading moved by 1, all else equal) gives
        the mean: 1 / rows (each clustered term is then 1 / rows^2)."""
        return 1.0 / self.rows

    @property
    def names_alike(self) -> np.ndarray:
        """Per column: the names show no spread at all (the variance is nil)."""
        return self.variance <= 1e-9 * self.resolution**2

    @property
    def se(self) -> np.ndarray:
        """The standard error of each column: the clustered variance and the data's resolution
        added in quadrature, so that it never collapses to 0 where the names show no spread and
        moves smoothly when one answer gives them some."""
        return np.sqrt(self.variance + self.resolution**2)

    def can_reject(self, confidence: float) -> bool:
        """Whether a test at 1 - ``confidence`` can reject (can_reject of its units)."""
        return can_reject(self.units, confidence)

    def interval(self, confidence: float, lowest, highest) -> tuple[np.ndarray, np.ndarray]:
        """estimate +- t(df) x SE of each column, clipped to [lowest, highest] (scalars or one
        per column): the values the tests of difference_p_value would not reject at 1 -
        confidence, so that an interval and its test never disagree. Where the test's floor is
        at or above 1 - confidence (a single name on one side, or too few), no value can be
        rejected: the whole range.
        """
        if not self.can_reject(confidence):
            shape = self.estimate.shape
            return np.broadcast_to(lowest, shape).copy(), np.broadcast_to(highest, shape).copy()
        half = t_quantile((1 + confidence) / 2, self.df) * self.se
        return (
            np.clip(self.estimate - half, lowest, highest),
            np.clip(self.estimate + half, lowest, highest),
        )


def random_levels(a_names: int, b_names: int, wordings: int = 1) -> tuple[int, ...]:
    """The levels of each random factor: the names of each side, and the wordings where
    several are pooled."""
    return (a_names, b_names, *([wordings] if wordings > 1 else []))


def random_units(a_names: int, b_names: int, wordings: int = 1) -> int:
    """The independent units a crossed design carries at most: the names on the smaller side,
    or the wordings where several are pooled as a random factor."""
    return min(random_levels(a_names, b_names, wordings))


def smallest_p(a_names: int, b_names: int, wordings: int = 1) -> float:
    """The floor the test sets on its two-sided p-value with this many names of each side (and
    wordings, where several are pooled).

    The crossed design carries at most random_units independent units; the floor is the exact
    sign test's smallest p with that many, a guard the test chooses against over-confidence with
    few names or wordings (with 3 names on one side, or 3 wordings, nothing goes below 0.25). It
    is not the smallest p the data could support: another test could go lower.
    """
    return sign_test_floor(random_units(a_names, b_names, wordings))


def can_reject(units: int, confidence: float) -> bool:
    """Whether a test on ``units`` independent units can reject at 1 - ``confidence``: two
    units or more, and the sign test's floor on p below it."""
    return units >= 2 and sign_test_floor(units) < 1 - confidence


def sign_test_floor(units: int) -> float:
    """The two-sided exact sign test's smallest p with ``units`` independent units: 2^(1-k)."""
    return min(1.0, 2.0 ** (1 - units))


def crossed_variance_parts(
    factors: Sequence[np.ndarray], sums: np.ndarray, counts: np.ndarray
) -> VarianceParts:
    """The variance of each column's pooled mean (sum of ``sums`` / sum of ``counts``) over
    cells whose level of every random factor ``factors`` gives (integer codes, one array per
    factor), the factors' effects added up (the method of moments of an additive crossed
    random-effects model), in its two parts: influence_variance_parts of the cells' deviations
    from the mean. In a complete design with one row a cell its total is the two-way ANOVA's
    (MS_A + MS_B - MS_E) / N (tests/test_stats.py checks it against statsmodels)."""
    rows = counts.sum()
    mean = sums.sum(axis=0) / rows
    deviations = (sums - np.outer(counts, mean)) / rows
    return influence_variance_parts([[codes] for codes in factors], deviations, counts)


def satterthwaite_df(parts: VarianceParts, exact: float, base: int) -> np.ndarray:
    """Satterthwaite's degrees of freedom of the variance parts.levels + parts.residual +
    ``exact``: the names' share estimated on ``base`` degrees of freedom (the fewest levels of a
    random factor less one), the answers' noise on parts.residual_df, ``exact`` (a resolution)
    without error. It is ``base`` where the names make the variance and rises towards the
    noise's where the noise does (as in a paired change, whose names cancel), so an interval is
    no wider than a precise variance needs; never below ``base``, and ``base`` where nothing
    varies."""
    if base < 1:
        return np.full(np.shape(parts.levels), float(base))
    # the names' share is read from clustered terms that each hold the answers' noise once:
    # where it is above 0 its estimate varies with both (where it is 0, the variance is the
    # noise's alone, read on the residual's degrees of freedom)
    names = np.where(parts.levels > 0, parts.total, 0.0)
    spread = np.square(names) / base
    if parts.residual_df > 0:
        spread = spread + np.square(parts.residual) / parts.residual_df
    squared = np.square(parts.total + exact)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.maximum(np.where(spread > 0, squared / spread, base), base)


class VarianceParts(NamedTuple):
    """A crossed variance as the factors' share (``levels``: never below 0) and the answers'
    own (``residual``, estimated with ``residual_df`` degrees of freedom)."""

    levels: np.ndarray
    residual: np.ndarray
    residual_df: int

    @property
    def total(self) -> np.ndarray:
        """The variance: the factors' share and the answers' own."""
        return self.levels + self.residual


def influence_variance_parts(
    factors: Sequence[Sequence[np.ndarray]], influence: np.ndarray, counts: np.ndarray
) -> VarianceParts:
    """The variance of each column's sum of ``influence`` (cells x columns: each cell's share
    of an estimate's deviation, a column summing to 0, as (sums - counts x mean) / rows does
    for a mean) under the additive random effects of ``factors``, the cells holding ``counts``
    answers, as the factors' share and the answers' own.

    A factor is one or more arrays of level codes (-1: none): a cell belongs to every level
    they give it, as a pair's cell belongs to both its people when a person is one factor
    whichever role it plays (subject or partner). Each factor's term is the cluster-robust
    variance by its levels (the squared sums of the cells' influence per level, times
    G / (G - 1)): it holds that factor's variance and, once more for each level a cell belongs
    to, the answers' own. The residual term is the same over the cells after the factors'
    additive effects are fitted (weighted least squares of the cells' means, times cells /
    (cells - rank)): the answers' own variance. So the variance is the factors' terms less each
    cell's residual once for every membership past its first, never below the residual term (the
    names' share is never below 0: a chance low would otherwise shrink the interval to nothing,
    as it did in 3% of occupations with no name effects)."""
    total = sum(_clustered_term(memberships, influence) for memberships in factors)
    left, rank = _unfitted(factors, influence, counts)
    cells = len(counts)
    if cells <= rank:
        return VarianceParts(np.maximum(total, 0.0), np.zeros_like(total), 0)
    scale = cells / (cells - rank)
    memberships = sum((codes >= 0).astype(float) for m in factors for codes in m)
    residual_term = scale * np.square(left).sum(axis=0)
    excess = scale * (np.square(left) * (memberships - 1)[:, None]).sum(axis=0)
    levels = np.maximum(total - excess - residual_term, 0.0)
    return VarianceParts(levels, residual_term, cells - rank)


def _clustered_term(memberships: Sequence[np.ndarray], influence: np.ndarray) -> np.ndarray:
    """The cluster-robust variance of the influence's sum by a factor's levels (0 with a single
    level), a cell counted in each level it belongs to."""
    count = max(int(codes.max()) for codes in memberships) + 1
    per_level = sum(_level_sums(codes, influence, count) for codes in memberships)
    levels = sum(np.bincount(codes[codes >= 0], minlength=count) for codes in memberships)
    present = int(np.count_nonzero(levels))
    if present < 2:
        return np.zeros(influence.shape[1])
    return present / (present - 1) * np.square(per_level).sum(axis=0)


def _level_sums(codes: np.ndarray, values: np.ndarray, count: int) -> np.ndarray:
    """Each level's sum of ``values`` (cells x columns) over the cells of code >= 0: levels x
    columns."""
    kept = codes >= 0
    return np.stack(
        [np.bincount(codes[kept], weights=column[kept], minlength=count) for column in values.T],
        axis=1,
    )


def _unfitted(
    factors: Sequence[Sequence[np.ndarray]], influence: np.ndarray, counts: np.ndarray
) -> tuple[np.ndarray, int]:
    """What the additive fit of the factors' effects leaves of each cell's influence (cells x
    columns), and the fit's rank: the weighted least squares of the cells' means (influence /
    counts, weighed by counts) on an intercept and every level of every factor."""
    blocks = [np.ones((len(counts), 1))]
    for memberships in factors:
        count = max(int(codes.max()) for codes in memberships) + 1
        block = np.zeros((len(counts), count))
        for codes in memberships:
            at = np.flatnonzero(codes >= 0)
            np.add.at(block, (at, codes[at]), 1.0)
        blocks.append(block)
    design = np.hstack(blocks)
    weighted = design * counts[:, None]
    # the normal equations by eigenvalues (their pseudo-inverse): the levels are few, the
    # cells many, and this is some 25 times faster than a least-squares solver on the cells
    values, vectors = np.linalg.eigh(design.T @ weighted)
    kept = values > values.max() * 1e-10
    basis = vectors[:, kept]
    coefficients = basis @ ((basis.T @ (design.T @ influence)) / values[kept, None])
    return influence - weighted @ coefficients, int(kept.sum())


def crossed_mean(frame: pd.DataFrame, columns: list[str], sides: Sides) -> CrossedMeans:
    """The means of ``columns`` over ``frame``'s rows (instances), with their clustered
    variance. ``frame`` has the sides' name columns (``female``, ``male``), and may have
    ``wording``."""
    return crossed_means(frame.assign(_whole=""), "_whole", columns, sides)[""]


def crossed_means(
    frame: pd.DataFrame, by: str, columns: list[str], sides: Sides
) -> dict[Hashable, CrossedMeans]:
    """crossed_mean of each group of ``frame``'s rows by the column ``by`` (in order of first
    appearance). The rows are summed into cells (group, names, wording) once."""
    factors = [*sides.labels, *(["wording"] if "wording" in frame else [])]
    cells = frame.groupby([by, *factors], sort=False)
    sums = cells[columns].sum().to_numpy(dtype=float)  # cells x columns
    sizes = cells.size()
    counts = sizes.to_numpy(dtype=float)
    keys = sizes.index.to_frame(index=False)
    group_codes, groups = pd.factorize(keys[by])
    result = {}
    for code, group in enumerate(groups):
        at = np.flatnonzero(group_codes == code)
        result[group] = _group_means(
            {factor: keys[factor].to_numpy()[at] for factor in factors},
            sums[at],
            counts[at],
            sides,
        )
    return result


def _group_means(
    levels: dict[str, np.ndarray], sums: np.ndarray, counts: np.ndarray, sides: Sides
) -> CrossedMeans:
    """One group's CrossedMeans from its cells: each cell's level of every factor (``levels``:
    the sides' names, and wordings), its sums of the columns and its rows."""
    codes = {factor: pd.factorize(values)[0] for factor, values in levels.items()}
    counted = {factor: int(code.max()) + 1 for factor, code in codes.items()}
    factors = [*sides.labels, *(["wording"] if counted.get("wording", 1) > 1 else [])]
    parts = crossed_variance_parts([codes[f] for f in factors], sums, counts)
    return CrossedMeans(
        estimate=sums.sum(axis=0) / counts.sum(),
        parts=parts,
        n_pairs=len(np.unique(codes[sides.a] * counted[sides.b] + codes[sides.b])),
        a_names=counted[sides.a],
        b_names=counted[sides.b],
        rows=int(counts.sum()),
        wordings=counted.get("wording", 1),
    )
