"""What a design can detect, before anything is asked: the floor its test sets on p and the
minimum detectable difference at 80% power.

The difference of an occupation is a mean of per-instance values in [-1, 1] (variance at most
1) over a crossed sample of names (and wordings, where several are pooled as a random factor).
Two reference variances give a minimum detectable difference (MDD) each, with the test the audit
runs (a t test on k - 1 degrees of freedom, k the fewest levels of a random factor: names on
the smaller side, or wordings, which is the audit's where the names make the variance; two-sided
at alpha, before the correction for testing many occupations): 1 / (instances x wordings)
when names and wordings add no variance of their own, and 1 / k when all of it lies between
them. They bound the truth only when the per-instance
values vary independently of each other; when the orders of a pair are negatively correlated or
most values are zero they need not, and the simulated power of the calibration
(results/calibration/<model>.md) is the design's own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from hiremeornot.analysis.crossed import random_units, smallest_p
from hiremeornot.analysis.distributions import t_quantile
from hiremeornot.analysis.stats import flaggable_at_floor
from hiremeornot.design.contrasts import Sides

POWER = 0.8
MOST_NAMES = 10_000


def _multiplier(df: float, alpha: float) -> float:
    """(t quantile at 1 - alpha/2 + t quantile at the power) on df degrees of freedom."""
    return float(t_quantile(1 - alpha / 2, df) + t_quantile(POWER, df))


def detectable(n: float, names: int, *, alpha: float, wordings: int = 1) -> float:
    """The MDD when the estimate's variance is 1 / n and the test has k - 1 df, k the fewest
    levels of names (per side) and pooled wordings (inf when the test can never reject)."""
    units = random_units(names, names, wordings)
    if units < 2 or smallest_p(names, names, wordings) >= alpha:
        return math.inf
    return _multiplier(units - 1, alpha) / math.sqrt(n)


def detectable_change(se: float, df: float, *, floor: float, alpha: float) -> float:
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


@dataclass(frozen=True)
class DesignPower:
    """What a design can detect, before anything is asked (design_power)."""

    a_names: int
    b_names: int
    pairs: int
    orders: int
    occupations: int
    per_occupation: float  # instances an occupation
    wordings: int
    alpha: float
    floor: float  # the test's floor on p
    wordings_limit: bool  # the wordings, not the names, set the floor
    flaggable: float  # occupations at the floor before Benjamini-Hochberg flags one
    best: float  # the MDD if names and wordings add no variance of their own
    worst: float  # the MDD if all of it lies between them
    needed: pd.DataFrame  # per difference asked: pairs needed (best), names needed (worst)

    @property
    def reachable(self) -> bool:
        """Whether any occupation can be significant at all."""
        return self.floor < self.alpha


def design_power(
    instances: pd.DataFrame,
    sides: Sides,
    *,
    alpha: float,
    differences: Sequence[float],
    wordings: int = 1,
) -> DesignPower:
    """The power of the design ``instances`` lays out (occupation x pair x order), at ``alpha``,
    for each of ``differences``."""
    a_names, b_names = (instances[side].nunique() for side in sides.labels)
    names = min(a_names, b_names)
    orders = instances["order"].nunique()
    occupations = instances["occupation"].nunique()
    per_occupation = len(instances) / occupations
    floor = smallest_p(a_names, b_names, wordings)
    units = random_units(a_names, b_names, wordings)
    needed = pd.DataFrame(
        {
            "difference": list(differences),
            "pairs": [
                pairs_needed(d, orders=orders, names=names, alpha=alpha, wordings=wordings)
                for d in differences
            ],
            "names": [names_needed(d, alpha=alpha, wordings=wordings) for d in differences],
        }
    )
    return DesignPower(
        a_names=a_names,
        b_names=b_names,
        pairs=instances["pair_id"].nunique(),
        orders=orders,
        occupations=occupations,
        per_occupation=per_occupation,
        wordings=wordings,
        alpha=alpha,
        floor=floor,
        wordings_limit=units < names,
        flaggable=flaggable_at_floor(floor=floor, occupations=occupations, alpha=alpha),
        best=detectable(per_occupation * wordings, names, alpha=alpha, wordings=wordings),
        worst=detectable(units, names, alpha=alpha, wordings=wordings),
        needed=needed,
    )
