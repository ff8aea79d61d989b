"""Uncertainty for the per-occupation metrics: a crossed name bootstrap, tests, equivalence.

The names are a sample and cross each other: each female name meets several male names, so the
pairs (and their instances) are not independent. Resampling pairs ignores that and gives
intervals about half as wide as they should be (docs/method.md#statistics). Here every interval
and test comes from a two-way ("pigeonhole") bootstrap that resamples female names and male
names independently, both orders of a pair kept together.

- occupation_statistics: per occupation, t intervals (estimate +- t x bootstrap SE) of
  Confirmation, Consistency and the difference, the bootstrap test of the difference (BH across
  occupations), the two one-sided tests of equivalence within a margin, and a three-way verdict
  (reading_statistics: the same for several readings of the difference from one bootstrap).
- position_bias: share of Q2/Q3 answers naming the first-listed subject, exact test against 1/2,
  BH across occupations.
- attribute_gaps: Step-1 P(Yes | female) - P(Yes | male) per attribute, with name intervals.

The bootstrap works on arrays (name_bootstraps): a table's rows are summed once into cells
(group, names, wording), and each group's resamples are one matrix of cell weights (the
product of its levels' draw counts) times its cells' sums.

Female and male stand for the two sides of any contrast (contrasts.Sides), whose labels name
the columns (``female_names``, or ``black_names`` in a race contrast).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
from scipy.special import expit
from scipy.stats import binomtest, false_discovery_control
from scipy.stats import t as t_dist

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
    return min(1.0, 2.0 ** (1 - random_units(a_names, b_names, wordings)))


def flaggable_at_floor(*, floor: float, occupations: int, alpha: float) -> int | None:
    """How many occupations must sit at the p-value floor before Benjamini-Hochberg across
    ``occupations`` flags any (the j-th smallest p passes at j / m x alpha, so j at the floor
    pass together once j >= m x floor / alpha); None when none ever can (floor above alpha)."""
    needed = max(1, math.ceil(occupations * floor / alpha - 1e-12))
    return needed if floor <= alpha and needed <= occupations else None


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
        draws = resample_counts(rng, counted[factor], counted[factor], n_resamples)
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
    rng: np.random.Generator, levels: int, draws: int, resamples: int
) -> np.ndarray:
    """How often each of ``levels`` levels is drawn in ``draws`` draws with replacement, for
    each of ``resamples`` resamples (resamples x levels): a multinomial with equal
    probabilities, drawn as uniform picks counted per row (faster than numpy's multinomial,
    which draws one binomial after another)."""
    picks = (
        rng.integers(0, levels, size=(resamples, draws)) + levels * np.arange(resamples)[:, None]
    )
    return np.bincount(picks.ravel(), minlength=resamples * levels).reshape(resamples, levels)


def _stream(seed: int, key: str) -> list[int]:
    """A random stream per occupation (or attribute), so its result does not depend on others."""
    return [seed, zlib.crc32(key.encode())]


def difference_p_value(estimate: float, se: float, df: int, *, floor: float) -> float:
    """Two-sided t test of a zero difference with the bootstrap SE (NameBootstrap.se), never
    below ``floor``."""
    if df < 1 or estimate == 0:
        return 1.0
    return float(min(1.0, max(2 * t_dist.sf(abs(estimate) / se, df), floor)))


def equivalence_p_value(
    estimate: float, se: float, df: int, *, margin: float, floor: float
) -> float:
    """Two one-sided t tests of |difference| >= margin (the larger p), never below floor / 2."""
    if df < 1:
        return 1.0
    p = max(t_dist.sf((margin - estimate) / se, df), t_dist.sf((estimate + margin) / se, df))
    return float(min(1.0, max(p, floor / 2)))


def verdict(significant: bool, equivalent: bool, one_order: bool) -> str:
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
    p_values = np.asarray(p_values, dtype=float)
    return false_discovery_control(p_values, method="bh") if len(p_values) else p_values


def occupation_statistics(
    outcomes: pd.DataFrame, reading: str, settings: dict, sides: Sides
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per occupation: intervals of the three metrics and the tests of the difference.

    ``settings`` is the config's ``report`` section (bootstrap_resamples, confidence, seed,
    alpha, equivalence_margin). The difference is the ``reading`` one (metrics.READINGS).
    """
    return reading_statistics(outcomes, [reading], settings, sides)[reading]


def reading_statistics(
    outcomes: pd.DataFrame, readings: list[str], settings: dict, sides: Sides
) -> dict[str, tuple[pd.DataFrame, pd.DataFrame]]:
    """occupation_statistics of each of ``readings``, from one crossed bootstrap per occupation
    of every reading at once: an occupation's random stream draws the same names whatever is
    resampled, so each reading's numbers are those it would get alone."""
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
    boots = name_bootstraps(
        values,
        "occupation",
        columns,
        settings["bootstrap_resamples"],
        lambda occupation: _stream(settings["seed"], str(occupation)),
        sides,
    )
    by_occupation = outcomes.groupby("occupation", sort=False)
    one_order = by_occupation["order"].nunique() < 2
    instances = by_occupation["instance_id"].nunique()  # as metrics.tsv counts them
    favoured = {
        side: (sign * values[differences] > 0).groupby(values["occupation"], sort=False).sum()
        for side, sign in ((a, 1), (b, -1))
    }
    bounds = {
        occupation: boot.interval(settings["confidence"], lowest, 1.0)
        for occupation, boot in boots.items()
    }
    return {
        reading: _reading_tables(
            boots, bounds, 2 + i, reading, instances, favoured, one_order, settings, sides
        )
        for i, reading in enumerate(readings)
    }


def _reading_tables(
    boots: dict[Hashable, NameBootstrap],
    bounds: dict[Hashable, tuple[np.ndarray, np.ndarray]],
    column: int,
    reading: str,
    instances: pd.Series,
    favoured: dict[str, pd.DataFrame],
    one_order: pd.Series,
    settings: dict,
    sides: Sides,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One reading's intervals and tests (occupation_statistics) from the bootstraps of every
    reading: Confirmation, Consistency and this reading's difference, its ``column``."""
    a, b = sides.labels
    margin = settings["equivalence_margin"]
    metric_columns = dict(zip(METRICS, (0, 1, column), strict=True))
    intervals, tests = [], []
    for occupation, boot in boots.items():
        low, high = bounds[occupation]
        names = (boot.n_pairs, boot.a_names, boot.b_names)
        intervals += [
            (occupation, metric, boot.estimate[i], low[i], high[i], *names)
            for metric, i in metric_columns.items()
        ]
        floor = boot.floor
        estimate, se = boot.estimate[column], boot.se[column]
        tests.append(
            {
                "occupation": occupation,
                "n": instances[occupation],
                f"{a}_names": boot.a_names,
                f"{b}_names": boot.b_names,
                f"n_{a}": int(favoured[a].at[occupation, f"difference_{reading}"]),
                f"n_{b}": int(favoured[b].at[occupation, f"difference_{reading}"]),
                "difference": estimate,
                "smallest_p": floor,
                "names_alike": bool(boot.spread[column] == 0),  # SE: the resolution alone
                "p_value": difference_p_value(estimate, se, boot.df, floor=floor),
                "p_equivalence": equivalence_p_value(
                    estimate, se, boot.df, margin=margin, floor=floor
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
        verdict(s, e, one_order[o])
        for s, e, o in zip(
            table["significant"], table["equivalent"], table["occupation"], strict=True
        )
    ]
    return pd.DataFrame(intervals, columns=interval_columns(sides)), table[tests_columns(sides)]


def _sign_test(k: int, other: int) -> float:
    """Two-sided exact binomial p-value of k successes in k + other trials at p = 1/2."""
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
    n_resamples: int,
    confidence: float,
    seed: int,
    sides: Sides,
) -> pd.DataFrame:
    """Per occupation and attribute, P(Yes | female) - P(Yes | male) in Step 1, with intervals.

    ``answers`` has one row per (wording, instance, subject, attribute): wording, instance_id,
    occupation, female, male (the instance's names), gender, element_id, attribute,
    attribute_type, choice (yes/no), logprob_yes, logprob_no. Within an instance the two subjects
    are paired; the interval is the crossed name bootstrap (wordings a third factor where several
    ran). Rows with occupation "(all)" pool every occupation that lists the attribute. ``gap_p``
    is the same gap on the model's probability of Yes instead of its answer.
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
        boot = name_bootstrap(group, ["d"], n_resamples, _stream(seed, "|".join(key)), sides)
        low, high = boot.interval(confidence, -1.0, 1.0)
        rows.append(
            (
                *key,
                boot.n_pairs,
                group[f"yes_{a}"].mean(),
                group[f"yes_{b}"].mean(),
                boot.estimate[0],
                low[0],
                high[0],
                (group[f"p_yes_{a}"] - group[f"p_yes_{b}"]).mean(),
            )
        )
    return pd.DataFrame(rows, columns=gap_columns(sides))
