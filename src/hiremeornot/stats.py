"""Uncertainty for the per-occupation metrics: clustered bootstrap intervals and exact tests.

- bootstrap_intervals: percentile intervals for Confirmation, Consistency and the difference,
  resampling name pairs (both listing orders of a pair stay together).
- paired_difference_tests: exact sign test (= exact McNemar) of biased-towards-female against
  biased-towards-male per occupation, with Benjamini-Hochberg q-values across occupations.
- position_bias: share of Q2/Q3 answers naming the first-listed subject, exact test against 1/2.
"""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd
from scipy.stats import binomtest, bootstrap, false_discovery_control

from hiremeornot.dataset import instance_order, instance_pair
from hiremeornot.metrics import signed_bias

METRICS = ("confirmation", "consistency", "difference")
FIRST_LISTED = {"female_first": "female", "male_first": "male"}
INTERVAL_COLUMNS = ["occupation", "metric", "estimate", "low", "high", "n_pairs"]
TEST_COLUMNS = [
    "occupation",
    "n",
    "n_female",
    "n_male",
    "difference",
    "p_value",
    "q_value",
    "significant",
]
POSITION_COLUMNS = ["occupation", "question", "n_named", "first_listed", "share_first", "p_value"]


def _sign_test(k: int, other: int) -> float:
    """Two-sided exact binomial p-value of k successes in k + other trials at p = 1/2."""
    if k + other == 0:
        return 1.0
    return float(binomtest(int(k), int(k + other), p=0.5).pvalue)


def _instance_values(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Per instance: its pair and the indicators whose occupation means are the three metrics."""
    return pd.DataFrame(
        {
            "occupation": outcomes["occupation"],
            "pair": instance_pair(outcomes["instance_id"]),
            "confirmation": outcomes["confirmed"].astype(float),
            "consistency": outcomes["consistent"].astype(float),
            "difference": signed_bias(outcomes),
        }
    )


def _ratio(sums: np.ndarray, counts: np.ndarray, axis: int) -> np.ndarray:
    """The pooled mean over the pairs: total of the indicators over the number of instances."""
    return sums.sum(axis=axis) / counts.sum(axis=axis)


def _clustered_interval(
    sums: np.ndarray, counts: np.ndarray, n_resamples: int, confidence: float, seed: list[int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Estimate, low and high for each row of sums (metrics x pairs), resampling the pairs."""
    estimate = _ratio(sums, counts, axis=-1)
    if counts.size < 2:
        return estimate, estimate, estimate
    result = bootstrap(
        (sums, np.broadcast_to(counts, sums.shape)),
        _ratio,
        n_resamples=n_resamples,
        vectorized=True,
        paired=True,
        axis=-1,
        confidence_level=confidence,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    constant = np.ptp(sums / counts, axis=-1) == 0
    low = np.where(constant, estimate, result.confidence_interval.low)
    high = np.where(constant, estimate, result.confidence_interval.high)
    return estimate, low, high


def bootstrap_intervals(
    outcomes: pd.DataFrame, n_resamples: int = 2000, confidence: float = 0.95, seed: int = 0
) -> pd.DataFrame:
    """Per occupation and metric: the estimate and a clustered percentile bootstrap interval.

    The cluster is the name pair: each resample draws the occupation's pairs with replacement and
    recomputes each metric as the pooled mean over the drawn pairs' instances (sum of indicators
    over number of instances, so a pair missing an order weighs less). scipy.stats.bootstrap
    expresses this directly: the per-pair sums and counts are its samples, paired=True draws
    pairs as units. Percentile rather than BCa: BCa is NaN when the bootstrap distribution is
    degenerate and unstable when few pairs give few distinct values. When every pair has the
    same mean (or there is one pair) every resample gives the estimate: low == high == estimate.
    Each occupation gets its own random stream, from seed and its name, so its interval does not
    depend on the other occupations in the table.
    """
    values = _instance_values(outcomes)
    rows = []
    for occupation, group in values.groupby("occupation", sort=False):
        per_pair = group.groupby("pair", sort=False)
        sums = per_pair[list(METRICS)].sum().to_numpy().T
        counts = per_pair.size().to_numpy().astype(float)
        stream = [seed, zlib.crc32(str(occupation).encode())]
        estimate, low, high = _clustered_interval(sums, counts, n_resamples, confidence, stream)
        rows += [
            (occupation, metric, estimate[i], low[i], high[i], counts.size)
            for i, metric in enumerate(METRICS)
        ]
    return pd.DataFrame(rows, columns=INTERVAL_COLUMNS)


def paired_difference_tests(outcomes: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Per occupation: exact test of biased-towards-female vs -male, BH q-values across them.

    Each instance is biased towards the female subject, the male one, or no one; the two biased
    counts are the discordant counts of a paired design, so the exact McNemar test is a two-sided
    binomial test of n_female out of n_female + n_male at 1/2 (p = 1 when both are zero).
    """
    biased = outcomes["biased_towards"]
    table = (
        pd.DataFrame(
            {
                "occupation": outcomes["occupation"],
                "female": biased == "female",
                "male": biased == "male",
            }
        )
        .groupby("occupation", sort=False)
        .agg(n=("female", "size"), n_female=("female", "sum"), n_male=("male", "sum"))
        .reset_index()
    )
    table["difference"] = (table["n_female"] - table["n_male"]) / table["n"]
    table["p_value"] = [
        _sign_test(f, m) for f, m in zip(table["n_female"], table["n_male"], strict=True)
    ]
    table["q_value"] = false_discovery_control(table["p_value"].to_numpy(), method="bh")
    table["significant"] = table["q_value"] < alpha
    return table[TEST_COLUMNS]


def position_bias(step3: pd.DataFrame) -> pd.DataFrame:
    """Per occupation and question: how often the named subject is the first-listed one.

    Only answers naming a subject ("female" or "male") count; the p-value is the two-sided exact
    binomial test of first_listed out of n_named at 1/2. With no named answer, share_first is NaN
    and the p-value 1.
    """
    order = instance_order(step3["instance_id"])
    unknown = sorted(set(order) - set(FIRST_LISTED))
    if unknown:
        raise ValueError(f"unknown listing orders in instance ids: {unknown}")
    named = step3["choice"].isin(["female", "male"])
    table = (
        pd.DataFrame(
            {
                "occupation": step3["occupation"],
                "question": step3["question"],
                "named": named,
                "first": named & (step3["choice"] == order.map(FIRST_LISTED)),
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
    return table[POSITION_COLUMNS]


GAP_COLUMNS = [
    "occupation",
    "element_id",
    "attribute",
    "attribute_type",
    "n_pairs",
    "p_yes_female",
    "p_yes_male",
    "gap",
    "low",
    "high",
    "gap_p",
]
ALL_OCCUPATIONS = "(all)"


def attribute_gaps(
    answers: pd.DataFrame, n_resamples: int = 2000, confidence: float = 0.95, seed: int = 0
) -> pd.DataFrame:
    """Per occupation and attribute, P(Yes | female) - P(Yes | male) in Step 1, with intervals.

    ``answers`` has one row per (instance, subject, attribute): instance_id, occupation, gender,
    element_id, attribute, attribute_type, choice (yes/no), logprob_yes, logprob_no. Within an
    instance the two subjects are paired; the interval is the clustered bootstrap over name
    pairs. Rows with occupation "(all)" pool every occupation that lists the attribute.
    ``gap_p`` is the same gap on the model's probability of Yes instead of its answer.
    """
    p_yes = 1 / (1 + np.exp(answers["logprob_no"] - answers["logprob_yes"]))
    keys = ["instance_id", "occupation", "element_id", "attribute", "attribute_type"]
    wide = (
        answers.assign(yes=(answers["choice"] == "yes").astype(float), p_yes=p_yes)
        .pivot(index=keys, columns="gender", values=["yes", "p_yes"])
        .reset_index()
    )
    wide.columns = ["_".join(c).strip("_") for c in wide.columns]
    wide["pair"] = instance_pair(wide["instance_id"])
    wide["d"] = wide["yes_female"] - wide["yes_male"]
    pooled = wide.assign(occupation=ALL_OCCUPATIONS)
    rows = []
    for key, group in pd.concat([wide, pooled]).groupby(keys[1:], sort=False):
        per_pair = group.groupby("pair", sort=False)
        sums = per_pair["d"].sum().to_numpy()[None, :]
        counts = per_pair.size().to_numpy().astype(float)
        stream = [seed, zlib.crc32("|".join(key).encode())]
        estimate, low, high = _clustered_interval(sums, counts, n_resamples, confidence, stream)
        rows.append(
            (
                *key,
                counts.size,
                group["yes_female"].mean(),
                group["yes_male"].mean(),
                estimate[0],
                low[0],
                high[0],
                (group["p_yes_female"] - group["p_yes_male"]).mean(),
            )
        )
    return pd.DataFrame(rows, columns=GAP_COLUMNS)
