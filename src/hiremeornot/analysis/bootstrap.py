"""The Local Law 144 summary's crossed name bootstrap of selection rates and impact ratios
(ll144.py).

Each resample draws, for every group, one name fewer than it has (n - 1 of its n, with
replacement; all n of a group of one or two, where n - 1 would leave the answers between its own
names unweighted), all groups in one draw, and weighs each answer by the product of the draw
counts of the two people of its question (``name`` and ``partner``), then recomputes every rate
and every ratio to the highest rate of that resample; the percentile interval of the draws is
reported. Drawing n - 1 makes the bootstrap variance of a mean over n names unbiased (n draws
understate it by (n - 1) / n): in rates pooled over occupations, where the names' own effects
dominate, n draws covered 92.7% of nominal 95% at 10 names a group, n - 1 draws 95.3%. The
product weights count the answers' own noise about three times, which matters little there;
per occupation, where that noise dominates, the crossed variance replaced it
(selection_variance.py). The summary keeps it because its scoring rates are scored against each
resample's own median (ll144.rescored). Each (occupation, question) has a random stream of its
own, so its result does not depend on which other occupations are in the table.
"""

from __future__ import annotations

import warnings
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from hiremeornot.analysis.impact import NOBODY, Asked, Bounds, Cells, lean_at_a_tie, ratios_of


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


def name_draws(
    cells: Cells, n_resamples: int, rng: np.random.Generator
) -> tuple[np.ndarray, dict[str, int]]:
    """One crossed draw of every group's names per resample (n - 1 of each group's n, with
    replacement; n of one or two): resamples x (names + 1) draw counts, the last column
    NOBODY's (always 1), and each name's column (names sorted by group, then name)."""
    first = np.r_[True, cells.name[1:] != cells.name[:-1]]  # a name's cells lie together
    names, groups = cells.name[first], cells.group[first]
    unknown = sorted(set(cells.partner) - set(names) - {NOBODY})
    if unknown:
        raise ValueError(f"selections: partner(s) {unknown[:3]} have no answers of their own")
    draws = np.ones((n_resamples, len(names) + 1))
    for group in np.unique(groups):
        members = np.flatnonzero(groups == group)
        drawn = len(members) - 1 if len(members) > 2 else len(members)
        draws[:, members] = resample_counts(
            rng, levels=len(members), draws=drawn, resamples=n_resamples
        )
    return draws, {name: i for i, name in enumerate(names)} | {NOBODY: len(names)}


def rates_under(cells: Cells, draws: np.ndarray, column: dict[str, int]) -> np.ndarray:
    """Resamples x groups (sorted): each group's rate with every answer weighted by the draw
    counts of its name and its partner; NaN where a group keeps no answer.

    A group's weighted answers in resample r are d_r' S d_r, with d_r the draw counts and S the
    group's answers by (name, partner): one product of the draws with every group's S (answers
    and selected), never a resamples x cells matrix. Counts and draws are whole numbers, so the
    sums are exact."""
    groups = cells.groups()
    of_group = np.searchsorted(groups, cells.group)
    names = np.array([column[name] for name in cells.name])
    partners = np.array([column[partner] for partner in cells.partner])
    people = draws.shape[1]
    by_pair = np.zeros(
        (people, 2, len(groups), people)
    )  # name, (answers, selected), group, partner
    np.add.at(by_pair, (names, 0, of_group, partners), cells.size)
    np.add.at(by_pair, (names, 1, of_group, partners), cells.selected)
    weighted = (draws @ by_pair.reshape(people, -1)).reshape(len(draws), 2, len(groups), people)
    totals, selected = np.einsum("rqgp,rp->qrg", weighted, draws)
    return np.divide(selected, totals, out=np.full_like(totals, np.nan), where=totals > 0)


# rates_under or its like: resamples x groups (sorted) from one Cells, the draws and their columns
RatesUnder = Callable[[Cells, np.ndarray, dict[str, int]], np.ndarray]


def percentile_bounds(draws: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Each column's percentile interval at ``confidence`` over its resamples, NaN left out
    (all NaN: NaN, as it should be). Columns without NaN, nearly all, are read at once (numpy's
    nanpercentile reads every column alone)."""
    tails = [100 * (1 - confidence) / 2, 100 * (1 + confidence) / 2]
    whole = ~np.isnan(draws).any(axis=0)
    bounds = np.full((2, draws.shape[1]), np.nan)
    bounds[:, whole] = np.percentile(draws[:, whole], tails, axis=0)
    if not whole.all():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            bounds[:, ~whole] = np.nanpercentile(draws[:, ~whole], tails, axis=0)
    return bounds[0], bounds[1]


@dataclass(frozen=True)
class NameBootstrap:
    """impact.BoundsOf by the crossed name bootstrap: ``under`` computes a resample's rates
    (rates_under; the Local Law 144 scoring rates rescore each resample)."""

    n_resamples: int
    seed: int
    under: RatesUnder = rates_under

    def __call__(self, asked: Asked, confidence: float) -> Bounds:
        stream = random_stream(self.seed, "|".join(asked.key))
        rng = np.random.default_rng(stream)
        draws, column = name_draws(asked.cells, self.n_resamples, rng)
        resampled = self.under(asked.cells, draws, column)
        rated = asked.rated
        rate_low, rate_high = percentile_bounds(resampled, confidence)
        ratio_low, ratio_high = percentile_bounds(ratios_of(resampled, rated), confidence)

        def spread_of(group: int, other: int) -> float:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                return float(np.nanstd(resampled[:, group] - resampled[:, other], ddof=1))

        lean = lean_at_a_tie(asked.rates, rated, asked.names, spread_of)
        return Bounds(rate_low, rate_high, ratio_low, ratio_high, lean)
