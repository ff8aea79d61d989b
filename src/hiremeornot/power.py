"""What a design can detect, before anything is asked: the smallest p-value it allows and the
minimum detectable difference at 80% power.

The difference of an occupation is a mean of per-instance values in [-1, 1] (variance at most
1) over a crossed sample of names. Its variance lies between two bounds: 1 / instances when the
names add no variance of their own, and 1 / min(female names, male names) when all of it lies
between names. Each bound gives a minimum detectable difference (MDD) with the test the audit
runs (a t test on min(names) - 1 degrees of freedom, two-sided at alpha, before the correction
for testing many occupations), so the true MDD lies between them.
"""

from __future__ import annotations

import math

import pandas as pd
from scipy.stats import t as t_dist

from hiremeornot.contrasts import GENDER, Sides
from hiremeornot.report import markdown_table
from hiremeornot.stats import smallest_p

POWER = 0.8
MOST_NAMES = 10_000


def _multiplier(df: int, alpha: float) -> float:
    """(t quantile at 1 - alpha/2 + t quantile at the power) on df degrees of freedom."""
    return float(t_dist.ppf(1 - alpha / 2, df) + t_dist.ppf(POWER, df))


def detectable(n: float, names: int, alpha: float) -> float:
    """The MDD when the estimate's variance is 1 / n and the test has names - 1 df (inf when
    the test can never reject)."""
    if names < 2 or smallest_p(names, names) >= alpha:
        return math.inf
    return _multiplier(names - 1, alpha) / math.sqrt(n)


def names_needed(difference: float, alpha: float) -> int:
    """Names per gender for ``difference`` to be detectable when all variance lies between
    names (the worst case)."""
    for names in range(2, MOST_NAMES):
        if detectable(names, names, alpha) <= difference:
            return names
    return MOST_NAMES


def pairs_needed(difference: float, orders: int, names: int, alpha: float) -> float:
    """Pairs (each asked in ``orders`` orders) for ``difference`` to be detectable with
    ``names`` names per side when the names add no variance (the best case)."""
    if detectable(1, names, alpha) == math.inf:
        return math.inf
    return math.ceil((_multiplier(names - 1, alpha) / difference) ** 2 / orders)


def _format(value: float) -> str:
    return "none (the test cannot reject)" if value == math.inf else f"{min(value, 1.0):.3f}"


def power_markdown(
    instances: pd.DataFrame, models: list[str], settings: dict, sides: Sides = GENDER
) -> str:
    """The power section of the estimate; ``settings`` is the config's ``report`` section."""
    alpha = settings["alpha"]
    female, male = (instances[side].nunique() for side in sides.labels)
    names = min(female, male)
    pairs = instances["pair_id"].nunique()
    orders = instances["order"].nunique()
    per_occupation = len(instances) / instances["occupation"].nunique()
    floor = smallest_p(female, male)
    lines = [
        "## Power\n",
        f"The design is the same for every model ({', '.join(models)}): {female} "
        f"{sides.a_words} and {male} {sides.b_words} names, {pairs} pairs, {orders} listing "
        f"order(s), {per_occupation:.0f} instances per occupation. Two-sided tests at alpha = "
        f"{alpha}, {POWER:.0%} power, "
        "per occupation and before the Benjamini-Hochberg correction across occupations "
        "(which asks for more).\n",
        f"- Smallest achievable p-value: {floor:.3g} (the exact sign test's with {names} "
        "independent names on the smaller side)."
        + (
            " **It is not below alpha: no occupation can be significant, whatever the model does.**"
            if floor >= alpha
            else ""
        ),
        f"- Minimum detectable difference: {_format(detectable(per_occupation, names, alpha))} "
        "if the names add no variance of their own, "
        f"{_format(detectable(names, names, alpha))} if all variance lies between names; the "
        "truth lies between the two.",
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
                difference, orders, names, alpha
            ),
            "names per side needed (all variance between names)": names_needed(difference, alpha),
        }
        for difference in settings["power_differences"]
    ]
    table = pd.DataFrame(rows).astype(object).replace(math.inf, "unreachable")
    note = (
        f"\nThese lists allow at most {female * male} pairs.\n\n"
        "These are closed-form bounds. For the power of this very design, with its tests, "
        "corrections and verdicts, plant the effect you care about in a simulated model "
        "(backend: simulated) and ask for `results/calibration/<model>.md`: it runs hundreds of "
        "simulated audits of the design and reports how often each planted difference is found "
        "(docs/calibration.md).\n"
    )
    return "\n".join(lines) + "\n\n" + markdown_table(table, digits=2) + note
