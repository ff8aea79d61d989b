"""Uncertainty for the per-occupation metrics: intervals over crossed names, tests, equivalence.

The names are a sample and cross each other: each female name meets several male names, so the
pairs (and their instances) are not independent. Treating pairs as independent gives intervals
about half as wide as they should be (docs/method.md#statistics). Here every interval and test
rests on a mean's variance clustered two ways, by female name and by male name (wordings a third
factor where several are pooled), the answers' own noise counted once (analysis/crossed.py).

- occupation_statistics: per occupation, t intervals (estimate +- t x SE) of Confirmation,
  Consistency and the difference, the t test of the difference (BH across occupations), the
  two one-sided tests of equivalence within a margin, and a three-way verdict
  (reading_statistics: the same for several readings of the difference at once).
- position_bias: share of Q2/Q3 answers naming the first-listed subject, exact test against 1/2,
  BH across occupations.
- attribute_gaps: Step-1 P(Yes | female) - P(Yes | male) per attribute, with name intervals.

The variance itself (method of moments, on arrays) is analysis/crossed.py.

Female and male stand for the two sides of any contrast (contrasts.Sides), whose labels name
the columns (``female_names``, or ``black_names`` in a race contrast).
"""

from __future__ import annotations

import math
from collections.abc import Hashable

import numpy as np
import pandas as pd
from scipy.special import expit

from hiremeornot.analysis.crossed import CrossedMeans, crossed_mean, crossed_means
from hiremeornot.analysis.distributions import t_upper
from hiremeornot.analysis.metrics import signed_readings
from hiremeornot.design.contrasts import Sides
from hiremeornot.design.dataset import instance_order

METRICS = ("confirmation", "consistency", "difference")
CONFOUNDED = "confounded with position"


def name_count_columns(sides: Sides) -> list[str]:
    """female_names, male_names: how many names of each side."""
    return [f"{side}_names" for side in sides.labels]


def interval_columns(sides: Sides) -> list[str]:
    return [
        "occupation",
        "metric",
        "estimate",
        "low",
        "high",
        "n_pairs",
        *name_count_columns(sides),
    ]


def tests_columns(sides: Sides) -> list[str]:
    return [
        "occupation",
        "n",
        *name_count_columns(sides),
        *[f"n_{side}" for side in sides.labels],
        *TEST_RESULT_COLUMNS,
    ]


TEST_RESULT_COLUMNS = [
    "difference",
    "smallest_p",
    "names_alike",
    "p_value",
    "q_value",
    "significant",
    "p_equivalence",
    "q_equivalence",
    "equivalent",
    "verdict",
]
POSITION_COLUMNS = [
    "occupation",
    "question",
    "n_named",
    "first_listed",
    "share_first",
    "p_value",
    "q_value",
]


def flaggable_at_floor(*, floor: float, occupations: int, alpha: float) -> int | None:
    """How many occupations must sit at the p-value floor before Benjamini-Hochberg across
    ``occupations`` flags any (the j-th smallest p passes at j / m x alpha, so j at the floor
    pass together once j >= m x floor / alpha); None when none ever can (floor above alpha)."""
    needed = max(1, math.ceil(occupations * floor / alpha - 1e-12))
    return needed if floor <= alpha and needed <= occupations else None


def difference_p_value(estimate: float, se: float, df: float, *, floor: float) -> float:
    """Two-sided t test of a zero difference with the clustered SE (CrossedMeans.se), never
    below ``floor``."""
    if df < 1 or estimate == 0:
        return 1.0
    return float(min(1.0, max(2 * t_upper(abs(estimate) / se, df), floor)))


def equivalence_p_value(
    estimate: float, se: float, df: float, *, margin: float, floor: float
) -> float:
    """Two one-sided t tests of |difference| >= margin, each at half the level (twice the larger
    p), never below ``floor``: the level at which the interval of the same level lies inside
    +-margin, so that "equivalent" is never printed beside an interval that reaches past the
    margin (the textbook tests at the full level match an interval of twice 1 - confidence,
    which the tables do not show)."""
    if df < 1:
        return 1.0
    p = max(t_upper((margin - estimate) / se, df), t_upper((estimate + margin) / se, df))
    return float(min(1.0, max(2 * p, floor)))


def verdict(*, significant: bool, equivalent: bool, one_order: bool) -> str:
    """differs, equivalent or inconclusive; with one listing order, confounded with position.

    Equivalence wins over significance: a difference shown to lie within the margin is one the
    user declared negligible, however precisely it is measured.
    """
    if one_order:
        return CONFOUNDED
    if equivalent:
        return "equivalent"
    return "differs" if significant else "inconclusive"


def q_values(p_values) -> np.ndarray:
    """Benjamini-Hochberg q-values of a sequence of p-values (empty for none)."""
    from scipy.stats import false_discovery_control  # scipy.stats where it runs (distributions)

    p_values = np.asarray(p_values, dtype=float)
    return false_discovery_control(p_values, method="bh") if len(p_values) else p_values


def occupation_statistics(
    outcomes: pd.DataFrame, reading: str, settings: dict, sides: Sides
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per occupation: intervals of the three metrics and the tests of the difference.

    ``settings`` is the config's ``report`` section (confidence, alpha, equivalence_margin).
    The difference is the ``reading`` one (metrics.READINGS).
    """
    return reading_statistics(outcomes, [reading], settings, sides)[reading]


def reading_statistics(
    outcomes: pd.DataFrame, readings: list[str], settings: dict, sides: Sides
) -> dict[str, tuple[pd.DataFrame, pd.DataFrame]]:
    """occupation_statistics of each of ``readings``, every reading's means and variances
    from one pass over the cells; each reading's numbers are those it would get alone."""
    a, b = sides.labels
    differences = [f"difference_{reading}" for reading in readings]
    signed = signed_readings(outcomes, sides)
    values = pd.DataFrame(
        {
            "occupation": outcomes["occupation"],
            a: outcomes[a],
            b: outcomes[b],
            "wording": outcomes["wording"],
            "confirmation": outcomes["confirmed"].astype(float),
            "consistency": outcomes["consistent"].astype(float),
            **{column: signed[r] for column, r in zip(differences, readings, strict=True)},
        }
    )
    columns = ["confirmation", "consistency", *differences]
    lowest = np.array([0.0, 0.0, *[-1.0] * len(readings)])  # rates in [0, 1], differences [-1, 1]
    by_occupation_means = crossed_means(values, "occupation", columns, sides)
    by_occupation = outcomes.groupby("occupation", sort=False)
    one_order = by_occupation["order"].nunique() < 2
    instances = by_occupation["instance_id"].nunique()  # as metrics.tsv counts them
    favoured = {
        side: (sign * values[differences] > 0).groupby(values["occupation"], sort=False).sum()
        for side, sign in ((a, 1), (b, -1))
    }
    bounds = {
        occupation: means.interval(settings["confidence"], lowest, 1.0)
        for occupation, means in by_occupation_means.items()
    }
    return {
        reading: _reading_tables(
            by_occupation_means,
            bounds,
            2 + i,
            reading,
            instances,
            favoured,
            one_order,
            settings,
            sides,
        )
        for i, reading in enumerate(readings)
    }


def _reading_tables(
    by_occupation_means: dict[Hashable, CrossedMeans],
    bounds: dict[Hashable, tuple[np.ndarray, np.ndarray]],
    column: int,
    reading: str,
    instances: pd.Series,
    favoured: dict[str, pd.DataFrame],
    one_order: pd.Series,
    settings: dict,
    sides: Sides,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One reading's intervals and tests (occupation_statistics) from the crossed means of every
    reading: Confirmation, Consistency and this reading's difference, its ``column``."""
    a, b = sides.labels
    margin = settings["equivalence_margin"]
    metric_columns = dict(zip(METRICS, (0, 1, column), strict=True))
    intervals, tests = [], []
    for occupation, means in by_occupation_means.items():
        low, high = bounds[occupation]
        names = (means.n_pairs, means.a_names, means.b_names)
        intervals += [
            (occupation, metric, means.estimate[i], low[i], high[i], *names)
            for metric, i in metric_columns.items()
        ]
        floor = means.floor
        estimate, se = means.estimate[column], means.se[column]
        tests.append(
            {
                "occupation": occupation,
                "n": instances[occupation],
                f"{a}_names": means.a_names,
                f"{b}_names": means.b_names,
                f"n_{a}": int(favoured[a].at[occupation, f"difference_{reading}"]),
                f"n_{b}": int(favoured[b].at[occupation, f"difference_{reading}"]),
                "difference": estimate,
                "smallest_p": floor,
                "names_alike": bool(means.names_alike[column]),  # SE: the resolution alone
                "p_value": difference_p_value(estimate, se, means.df[column], floor=floor),
                "p_equivalence": equivalence_p_value(
                    estimate, se, means.df[column], margin=margin, floor=floor
                ),
            }
        )
    table = pd.DataFrame(tests)
    alpha = settings["alpha"]
    table["q_value"] = q_values(table["p_value"])
    table["significant"] = table["q_value"] < alpha
    table["q_equivalence"] = q_values(table["p_equivalence"])
    table["equivalent"] = table["q_equivalence"] < alpha
    table["verdict"] = [
        verdict(significant=s, equivalent=e, one_order=one_order[o])
        for s, e, o in zip(
            table["significant"], table["equivalent"], table["occupation"], strict=True
        )
    ]
    return pd.DataFrame(intervals, columns=interval_columns(sides)), table[tests_columns(sides)]


def _sign_test(k: int, other: int) -> float:
    """Two-sided exact binomial p-value of k successes in k + other trials at p = 1/2."""
    from scipy.stats import binomtest  # scipy.stats where it runs (distributions)

    if k + other == 0:
        return 1.0
    return float(binomtest(int(k), int(k + other), p=0.5).pvalue)


def position_bias(step3: pd.DataFrame, sides: Sides) -> pd.DataFrame:
    """Per occupation and question: how often the named subject is the first-listed one.

    Only answers naming a subject (a side's label, "female" or "male") count; the p-value is
    the two-sided exact binomial test of first_listed out of n_named at 1/2, and the q-value its
    Benjamini-Hochberg correction across the occupations of that question. With no named
    answer, share_first is NaN and the p-value 1.
    """
    orders = instance_order(step3["instance_id"])
    unknown = sorted(set(orders) - set(sides.orders))
    if unknown:
        raise ValueError(f"unknown listing orders in instance ids: {unknown}")
    named = step3["choice"].isin(sides.labels)
    table = (
        pd.DataFrame(
            {
                "occupation": step3["occupation"],
                "question": step3["question"],
                "named": named,
                "first": named & (step3["choice"] == orders.map(sides.first_listed)),
            }
        )
        .groupby(["occupation", "question"], sort=False)
        .agg(n_named=("named", "sum"), first_listed=("first", "sum"))
        .reset_index()
    )
    table["share_first"] = table["first_listed"] / table["n_named"].where(table["n_named"] > 0)
    table["p_value"] = [
        _sign_test(k, n - k) for k, n in zip(table["first_listed"], table["n_named"], strict=True)
    ]
    table["q_value"] = table.groupby("question", sort=False)["p_value"].transform(q_values)
    return table[POSITION_COLUMNS]


def gap_columns(sides: Sides) -> list[str]:
    return [
        "occupation",
        "element_id",
        "attribute",
        "attribute_type",
        "n_pairs",
        *[f"p_yes_{side}" for side in sides.labels],
        "gap",
        "low",
        "high",
        "gap_p",
    ]


ALL_OCCUPATIONS = "(all)"


def attribute_gaps(
    answers: pd.DataFrame,
    *,
    confidence: float,
    sides: Sides,
) -> pd.DataFrame:
    """Per occupation and attribute, P(Yes | female) - P(Yes | male) in Step 1, with intervals.

    ``answers`` has one row per (wording, instance, subject, attribute): wording, instance_id,
    occupation, female, male (the instance's names), gender, element_id, attribute,
    attribute_type, choice (yes/no), logprob_yes, logprob_no. Within an instance the two subjects
    are paired; the interval is over crossed names (crossed.crossed_mean; wordings a third
    factor where several ran). Rows with occupation "(all)" pool every occupation that lists the
    attribute. ``gap_p`` is the same gap on the model's probability of Yes instead of its
    answer.
    """
    a, b = sides.labels
    p_yes = expit(answers["logprob_yes"] - answers["logprob_no"])
    keys = [
        "wording",
        "instance_id",
        a,
        b,
        "occupation",
        "element_id",
        "attribute",
        "attribute_type",
    ]
    wide = (
        answers.assign(yes=(answers["choice"] == "yes").astype(float), p_yes=p_yes)
        .pivot(index=keys, columns=sides.attribute, values=["yes", "p_yes"])
        .reset_index()
    )
    wide.columns = ["_".join(c).strip("_") for c in wide.columns]
    wide["d"] = wide[f"yes_{a}"] - wide[f"yes_{b}"]
    pooled = wide.assign(occupation=ALL_OCCUPATIONS)
    rows = []
    for key, group in pd.concat([wide, pooled]).groupby(keys[4:], sort=False):
        means = crossed_mean(group, ["d"], sides)
        low, high = means.interval(confidence, -1.0, 1.0)
        rows.append(
            (
                *key,
                means.n_pairs,
                group[f"yes_{a}"].mean(),
                group[f"yes_{b}"].mean(),
                means.estimate[0],
                low[0],
                high[0],
                (group[f"p_yes_{a}"] - group[f"p_yes_{b}"]).mean(),
            )
        )
    return pd.DataFrame(rows, columns=gap_columns(sides))
