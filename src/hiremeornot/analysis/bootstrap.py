"""The crossed ("pigeonhole") name bootstrap every interval and test rests on.

The names are a sample and cross each other: each female name meets several male names, so the
pairs (and their instances) are not independent. A two-way bootstrap resamples female names and
male names independently (and wordings, where several are pooled), both orders of a pair kept
together (docs/method.md#statistics).

It works on arrays (name_bootstraps): a table's rows are summed once into cells (group, names,
wording), and each group's resamples are one matrix of cell weights (the product of its levels'
draw counts) times its cells' sums. smallest_p is the floor the tests set on p with that many
independent units.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
from scipy.stats import t as t_dist

from hiremeornot.design.contrasts import Sides


@dataclass(frozen=True)
class NameBootstrap:
    """Bootstrap draws of some per-instance means over a crossed sample of names."""

    estimate: np.ndarray  # one per column
    draws: np.ndarray  # columns x kept resamples
    n_pairs: int
    a_names: int  # the names of side A (female)
    b_names: int
    rows: int  # the rows (instances x wordings) the means are over
    wordings: int = 1  # more than one: wordings are resampled too, a third random factor

    @property
    def units(self) -> int:
        """The fewest levels of a random factor: names on the smaller side, or wordings."""
        return min(self.levels)

    @property
    def floor(self) -> float:
        """The smallest p-value the design allows (smallest_p)."""
        return smallest_p(self.a_names, self.b_names, self.wordings)

    @property
    def df(self) -> int:
        """Degrees of freedom of the t reference: the fewest levels of a factor, less one."""
        return self.units - 1

    @property
    def resolution(self) -> float:
        """The bootstrap SE that one changed answer (a reading moved by 1) would give the mean:
        sqrt(prod(2 - 1/k) - 1) / rows, over the k levels of each resampled factor. A resampled
        row weighs the product of its levels' draw counts (each Binomial(k, 1/k), second moment
        2 - 1/k), and the mean divides by about ``rows``."""
        second_moment = np.prod([2 - 1 / k for k in self.levels])
        return float(np.sqrt(second_moment - 1) / self.rows)

    @property
    def levels(self) -> tuple[int, ...]:
        """The number of levels of each resampled factor (names of each side, wordings)."""
        return resampled_levels(self.a_names, self.b_names, self.wordings)

    @cached_property
    def spread(self) -> np.ndarray:
        """The bootstrap standard deviation of each column (0 where the names show no spread)."""
        if self.draws.shape[1] < 2:
            return np.zeros(len(self.estimate))
        spread = self.draws.std(axis=1, ddof=1)
        return np.where(np.isclose(spread, 0, atol=1e-12), 0.0, spread)

    @property
    def se(self) -> np.ndarray:
        """The standard error of each column: the bootstrap's spread and the data's resolution
        added in quadrature, so that it never collapses to 0 where the names show no spread and
        moves smoothly when one answer gives them some."""
        return np.sqrt(np.square(self.spread) + self.resolution**2)

    def interval(self, confidence: float, lowest, highest) -> tuple[np.ndarray, np.ndarray]:
        """estimate +- t(df) x SE of each column, clipped to [lowest, highest] (scalars or one
        per column): the values the tests of difference_p_value would not reject at 1 -
        confidence, so that an interval and its test never disagree. Where the test's floor is
        at or above 1 - confidence (a single name on one side, or too few), no value can be
        rejected: the whole range.
        """
        if self.df < 1 or self.floor >= 1 - confidence:
            shape = self.estimate.shape
            return np.broadcast_to(lowest, shape).copy(), np.broadcast_to(highest, shape).copy()
        half = t_dist.ppf((1 + confidence) / 2, self.df) * self.se
        return (
            np.clip(self.estimate - half, lowest, highest),
            np.clip(self.estimate + half, lowest, highest),
        )


def resampled_levels(a_names: int, b_names: int, wordings: int = 1) -> tuple[int, ...]:
    """The levels of each random factor: the names of each side, and the wordings where
    several are pooled."""
    return (a_names, b_names, *([wordings] if wordings > 1 else []))


def random_units(a_names: int, b_names: int, wordings: int = 1) -> int:
    """The independent units a crossed design carries at most: the names on the smaller side,
    or the wordings where several are pooled as a random factor."""
    return min(resampled_levels(a_names, b_names, wordings))


def smallest_p(a_names: int, b_names: int, wordings: int = 1) -> float:
    """The floor the test sets on its two-sided p-value with this many names of each side (and
    wordings, where several are pooled).

    The crossed design carries at most random_units independent units; the floor is the exact
    sign test's smallest p with that many, a guard the test chooses against over-confidence with
    few names or wordings (with 3 names on one side, or 3 wordings, nothing goes below 0.25). It
    is not the smallest p the data could support: another test could go lower.
    """
    return sign_test_floor(random_units(a_names, b_names, wordings))


def sign_test_floor(units: int) -> float:
    """The two-sided exact sign test's smallest p with ``units`` independent units: 2^(1-k)."""
    return min(1.0, 2.0 ** (1 - units))


def name_bootstrap(
    frame: pd.DataFrame,
    columns: list[str],
    n_resamples: int,
    seed: list[int],
    sides: Sides,
) -> NameBootstrap:
    """Crossed bootstrap of the means of ``columns`` over ``frame``'s rows (instances).

    ``frame`` has the sides' name columns (``female``, ``male``), and may have ``wording``. Each
    resample draws as many female names as there are, with replacement, and as many male names,
    independently (and as many wordings, where there are several); a cell weighs the product of
    its levels' draw counts, and each column's statistic is the pooled mean (sum over the
    weighted cells' instances / their number). Resamples in which no observed cell survives
    (possible when pairs are a sample of all female x male pairs) are left out.
    """
    whole = frame.assign(_whole="")
    return name_bootstraps(whole, "_whole", columns, n_resamples, lambda _: seed, sides)[""]


def name_bootstraps(
    frame: pd.DataFrame,
    by: str,
    columns: list[str],
    n_resamples: int,
    seeds: Callable[[Hashable], list[int]],
    sides: Sides,
) -> dict[Hashable, NameBootstrap]:
    """name_bootstrap of each group of ``frame``'s rows by the column ``by`` (in order of first
    appearance), each group's resamples from its own stream ``seeds(group)``. The rows are
    summed into cells (group, names, wording) once; each group's resamples are then one matrix
    of cell weights times its cells' sums, so no group costs a DataFrame of its own."""
    factors = [*sides.labels, *(["wording"] if "wording" in frame else [])]
    cells = frame.groupby([by, *factors], sort=False)
    sums = cells[columns].sum().to_numpy(dtype=float)  # cells x columns
    sizes = cells.size()
    counts = sizes.to_numpy(dtype=float)
    keys = sizes.index.to_frame(index=False)
    levels = {factor: keys[factor].to_numpy() for factor in factors}
    group_codes, groups = pd.factorize(keys[by])
    result = {}
    for code, group in enumerate(groups):
        at = np.flatnonzero(group_codes == code)
        result[group] = _cell_bootstrap(
            {factor: values[at] for factor, values in levels.items()},
            sums[at],
            counts[at],
            n_resamples,
            seeds(group),
            sides,
        )
    return result


def _cell_bootstrap(
    levels: dict[str, np.ndarray],
    sums: np.ndarray,
    counts: np.ndarray,
    n_resamples: int,
    seed: list[int],
    sides: Sides,
) -> NameBootstrap:
    """The crossed bootstrap of one group's cells: each cell's level of every factor
    (``levels``: the sides' names, and wordings), its sums of the columns and its rows."""
    factors = list(sides.labels)
    if "wording" in levels and len(pd.unique(levels["wording"])) > 1:
        factors.append("wording")
    rng = np.random.default_rng(seed)
    weights = np.ones((n_resamples, len(counts)))
    codes, counted = {}, {}
    for factor in factors:
        codes[factor], uniques = pd.factorize(levels[factor])
        counted[factor] = len(uniques)
        draws = resample_counts(
            rng, levels=counted[factor], draws=counted[factor], resamples=n_resamples
        )
        weights *= draws[:, codes[factor]]
    totals = weights @ counts
    kept = totals > 0
    return NameBootstrap(
        estimate=sums.sum(axis=0) / counts.sum(),
        draws=(weights[kept] @ sums).T / totals[kept],
        n_pairs=len(np.unique(codes[sides.a] * counted[sides.b] + codes[sides.b])),
        a_names=counted[sides.a],
        b_names=counted[sides.b],
        rows=int(counts.sum()),
        wordings=counted.get("wording", 1),
    )


def resample_counts(
    rng: np.random.Generator, *, levels: int, draws: int, resamples: int
) -> np.ndarray:
    """How often each of ``levels`` levels is drawn in ``draws`` draws with replacement, for
    each of ``resamples`` resamples (resamples x levels): a multinomial with equal
    probabilities, drawn as uniform picks counted per row (faster than numpy's multinomial,
    which draws one binomial after another)."""
    picks = (
        rng.integers(0, levels, size=(resamples, draws)) + levels * np.arange(resamples)[:, None]
    )
    return np.bincount(picks.ravel(), minlength=resamples * levels).reshape(resamples, levels)


def random_stream(seed: int, key: str) -> list[int]:
    """A random stream per occupation (or attribute), so its result does not depend on others."""
    return [seed, zlib.crc32(key.encode())]
