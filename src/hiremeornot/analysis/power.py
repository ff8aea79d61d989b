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
from collections.abc import Mapping
from typing import Any

import pandas as pd
from scipy.stats import t as t_dist

from hiremeornot.analysis.stats import flaggable_at_floor, random_units, smallest_p
from hiremeornot.design.contrasts import Sides
from hiremeornot.writing.report import markdown_table

POWER = 0.8
MOST_NAMES = 10_000


def _multiplier(df: int, alpha: float) -> float:
    """(t quantile at 1 - alpha/2 + t quantile at the power) on df degrees of freedom."""
    return float(t_dist.ppf(1 - alpha / 2, df) + t_dist.ppf(POWER, df))


def detectable(n: float, names: int, alpha: float, wordings: int = 1) -> float:
    """The MDD when the estimate's variance is 1 / n and the test has k - 1 df, k the fewest
    levels of names (per side) and pooled wordings (inf when the test can never reject)."""
    units = random_units(names, names, wordings)
    if units < 2 or smallest_p(names, names, wordings) >= alpha:
        return math.inf
    return _multiplier(units - 1, alpha) / math.sqrt(n)


def names_needed(difference: float, alpha: float, wordings: int = 1) -> float:
    """Names per side for ``difference`` to be detectable when all variance lies between
    names and wordings (the worst case); inf when no number of names reaches it (the wordings
    cap the test)."""
    for names in range(2, MOST_NAMES):
        units = random_units(names, names, wordings)
        if detectable(units, names, alpha, wordings) <= difference:
            return names
    return math.inf


def pairs_needed(
    difference: float, orders: int, names: int, alpha: float, wordings: int = 1
) -> float:
    """Pairs (each asked in ``orders`` orders and ``wordings`` wordings) for ``difference`` to
    be detectable with ``names`` names per side when names and wordings add no variance (the
    best case)."""
    if detectable(1, names, alpha, wordings) == math.inf:
        return math.inf
    units = random_units(names, names, wordings)
    return math.ceil((_multiplier(units - 1, alpha) / difference) ** 2 / (orders * wordings))


def _format(value: float) -> str:
    return "none (the test cannot reject)" if value == math.inf else f"{min(value, 1.0):.3f}"


def power_markdown(
    instances: pd.DataFrame,
    models: list[str],
    settings: dict,
    sides: Sides,
    capacity: Mapping[str, Any],
    wordings: int = 1,
) -> str:
    """The power section of the estimate; ``settings`` is the config's ``report`` section,
    ``capacity`` what the name list offers (the dataset job's ``capacity.json``: see
    ``contrasts.list_capacity``), ``wordings`` the number of wordings pooled."""
    alpha = settings["alpha"]
    female, male = (instances[side].nunique() for side in sides.labels)
    names = min(female, male)
    pairs = instances["pair_id"].nunique()
    orders = instances["order"].nunique()
    occupations = instances["occupation"].nunique()
    per_occupation = len(instances) / occupations
    floor = smallest_p(female, male, wordings)
    units = random_units(female, male, wordings)
    limit = (
        f"{wordings} wordings pooled as a random factor"
        if units < names
        else f"{names} independent names on the smaller side"
    )
    needed = flaggable_at_floor(floor, occupations, alpha)
    lines = [
        "## Power\n",
        f"The design is the same for every model ({', '.join(models)}): {female} "
        f"{sides.a_words} and {male} {sides.b_words} names, {pairs} pairs, {orders} listing "
        f"order(s), {per_occupation:.0f} instances per occupation, {wordings} wording(s). "
        f"Two-sided tests at alpha = "
        f"{alpha}, {POWER:.0%} power, "
        "per occupation and before the Benjamini-Hochberg correction across occupations "
        "(which asks for more).\n",
        f"- The test's floor on p: {floor:.3g} (the exact sign test's smallest p with {limit}; "
        "a choice of the test, not the smallest p the design allows)."
        + (
            " **It is not below alpha: no occupation can be significant, whatever the model does.**"
            if floor >= alpha
            else f" With Benjamini-Hochberg across {occupations} occupations, {needed} must sit at "
            "that floor before any can be flagged."
        ),
        "- Minimum detectable difference: "
        f"{_format(detectable(per_occupation * wordings, names, alpha, wordings))} if names and "
        "wordings add no variance of their own, "
        f"{_format(detectable(units, names, alpha, wordings))} if all variance lies between "
        "them. These bound it only when the per-instance values vary independently (not when "
        "the orders of a pair are negatively correlated, or most values are zero): the "
        "calibration's simulated power is the design's own (below).",
    ]
    if orders == 1:
        lines.append(
            f"- With one listing order, position and {sides.attribute} are confounded: no "
            f"difference is a {sides.attribute} finding, whatever its p-value."
        )
    rows = [
        {
            "difference": difference,
            f"pairs needed ({names} names per side, no name variance)": pairs_needed(
                difference, orders, names, alpha, wordings
            ),
            "names per side needed (all variance between names)": names_needed(
                difference, alpha, wordings
            ),
        }
        for difference in settings["power_differences"]
    ]
    table = pd.DataFrame(rows).astype(object).replace(math.inf, "unreachable")
    note = (
        f"\n{_capacity_sentence(female, male, pairs, capacity, sides)}\n\n"
        "These are closed-form bounds. For the power of this very design, with its tests, "
        "corrections and verdicts, plant the effect you care about in a simulated model "
        "(backend: simulated) and ask for `results/calibration/<model>.md`: it runs hundreds of "
        "simulated audits of the design and reports how often each planted difference is found "
        "(docs/calibration.md).\n"
    )
    return "\n".join(lines) + "\n\n" + markdown_table(table, digits=2) + note


def _capacity_sentence(
    female: int, male: int, pairs: int, capacity: Mapping[str, Any], sides: Sides
) -> str:
    """How many names and pairs this design uses, beside what its name list offers."""
    if capacity["list"] is None:
        return f"The control's design is its one pair, {sides.a_words} and {sides.b_words}."
    used = (
        f"This design uses {female} {sides.a_words} and {male} {sides.b_words} names in {pairs} "
        "pairs"
    )
    listed_a, listed_b = (capacity["names"][label] for label in sides.labels)
    misread = (
        f" (after the {capacity['misread']} names some model misreads are dropped)"
        if capacity["misread"]
        else ""
    )
    offered = (
        f"the list `{capacity['list']}` has {listed_a} {sides.a_words} and {listed_b} "
        f"{sides.b_words} names{misread}, which make {capacity['pairs']} pairs"
    )
    if pairs >= capacity["pairs"]:
        return f"{used}: {offered}, all of them in this design; a longer list makes more."
    return f"{used}; {offered} (`names.pairs` higher, or `all`, uses more)."
