"""What a design can detect, before anything is asked: the floor its test sets on p and the
minimum detectable difference at 80% power.

The difference of an occupation is a mean of per-instance values in [-1, 1] (variance at most
1) over a crossed sample of names (and wordings, where several are pooled as a random factor).
Two reference variances give a minimum detectable difference (MDD) each, with the test the audit
runs (a t test on k - 1 degrees of freedom, k the fewest levels of a random factor: names on
the smaller side, or wordings; two-sided at alpha, before the correction for testing many
occupations): 1 / (instances x wordings) when names and wordings add no variance of their own,
and 1 / k when all of it lies between them. They bound the truth only when the per-instance
values vary independently of each other; when the orders of a pair are negatively correlated or
most values are zero they need not, and the simulated power of the calibration
(results/calibration/<model>.md) is the design's own.
"""

from __future__ import annotations

import math

from scipy.stats import t as t_dist

from hiremeornot.analysis.bootstrap import random_units, smallest_p

POWER = 0.8
MOST_NAMES = 10_000


def _multiplier(df: int, alpha: float) -> float:
    """(t quantile at 1 - alpha/2 + t quantile at the power) on df degrees of freedom."""
    return float(t_dist.ppf(1 - alpha / 2, df) + t_dist.ppf(POWER, df))


def detectable(n: float, names: int, *, alpha: float, wordings: int = 1) -> float:
    """The MDD when the estimate's variance is 1 / n and the test has k - 1 df, k the fewest
    levels of names (per side) and pooled wordings (inf when the test can never reject)."""
    units = random_units(names, names, wordings)
    if units < 2 or smallest_p(names, names, wordings) >= alpha:
        return math.inf
    return _multiplier(units - 1, alpha) / math.sqrt(n)


def detectable_change(se: float, df: int, *, floor: float, alpha: float) -> float:
    """The MDD of a test whose estimate has standard error ``se`` on ``df`` degrees of freedom
    and whose p-value never goes below ``floor`` (inf when it can never reject at alpha)."""
    if df < 1 or floor >= alpha:
        return math.inf
    return _multiplier(df, alpha) * se


def names_needed(difference: float, *, alpha: float, wordings: int = 1) -> float:
    """Names per side for ``difference`` to be detectable when all variance lies between
    names and wordings (the worst case); inf when no number of names reaches it (the wordings
    cap the test)."""
    for names in range(2, MOST_NAMES):
        units = random_units(names, names, wordings)
        if detectable(units, names, alpha=alpha, wordings=wordings) <= difference:
            return names
    return math.inf


def pairs_needed(
    difference: float, *, orders: int, names: int, alpha: float, wordings: int = 1
) -> float:
    """Pairs (each asked in ``orders`` orders and ``wordings`` wordings) for ``difference`` to
    be detectable with ``names`` names per side when names and wordings add no variance (the
    best case)."""
    if detectable(1, names, alpha=alpha, wordings=wordings) == math.inf:
        return math.inf
    units = random_units(names, names, wordings)
    return math.ceil((_multiplier(units - 1, alpha) / difference) ** 2 / (orders * wordings))
