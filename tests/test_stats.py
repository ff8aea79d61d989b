import math
import warnings

import numpy as np
import pandas as pd
import pytest

from hiremeornot.metrics import INSTANCE_COLUMNS, occupation_metrics
from hiremeornot.names import ORDERS
from hiremeornot.stats import (
    attribute_gaps,
    bootstrap_intervals,
    paired_difference_tests,
    position_bias,
)

# (q1_female, q1_male, q2, q3) giving each direction of bias (see metrics.py)
BIAS_ANSWERS = {
    "female": ("yes", "yes", "female", "female"),  # kept the choice -> biased towards female
    "male": ("yes", "yes", "male", "male"),
    "none": ("yes", "yes", "female", "both"),  # confirmed and not kept -> biased towards no one
}
CONFIRMED = ("yes", "yes", "female", "both")
UNCONFIRMED = ("no", "yes", "female", "both")


def outcomes_table(rows):
    """rows: (occupation, pair, order, q1_female, q1_male, q2, q3) -> an outcomes table."""
    table = pd.DataFrame(
        rows, columns=["occupation", "pair", "order", "q1_female", "q1_male", "q2", "q3"]
    )
    table["instance_id"] = table["occupation"] + "|" + table["pair"] + "|" + table["order"]
    chosen_q1 = table["q1_female"].where(table["q2"] == "female", table["q1_male"])
    table["confirmed"] = chosen_q1 == "yes"
    table["consistent"] = table["q2"] == table["q3"]
    biased = table["consistent"] | ~table["confirmed"]
    table["biased_towards"] = table["q2"].where(biased, "none")
    # certain answers: the probability variants are the indicators themselves
    table["confirmed_p"] = table["confirmed"].astype(float)
    table["consistent_p"] = table["consistent"].astype(float)
    for gender in ("female", "male"):
        table[f"biased_{gender}_p"] = (table["biased_towards"] == gender).astype(float)
    return table[INSTANCE_COLUMNS]


def instance_rows(occupation, answers):
    """Instance i is pair i // 2 in order ORDERS[i % 2]; answers are (q1f, q1m, q2, q3)."""
    return [
        (occupation, f"F{i // 2}-M{i // 2}", ORDERS[i % 2], *answer)
        for i, answer in enumerate(answers)
    ]


def biased_rows(occupation, labels):
    return instance_rows(occupation, [BIAS_ANSWERS[label] for label in labels])


def planted_labels(n_pairs=60, female=0.7, male=0.1, seed=1):
    n = 2 * n_pairs
    n_female, n_male = round(female * n), round(male * n)
    labels = ["female"] * n_female + ["male"] * n_male + ["none"] * (n - n_female - n_male)
    return list(np.random.default_rng(seed).permutation(labels))


def null_rows(n_occupations=200, n_pairs=60, seed=2):
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(n_occupations):
        labels = rng.choice(["female", "male", "none"], size=2 * n_pairs, p=[0.2, 0.2, 0.6])
        rows += biased_rows(f"null{k}", labels)
    return rows


def test_planted_difference_is_significant_and_nulls_are_not():
    outcomes = outcomes_table(biased_rows("planted", planted_labels()) + null_rows())
    table = paired_difference_tests(outcomes).set_index("occupation")
    planted = table.loc["planted"]
    assert (planted["n"], planted["n_female"], planted["n_male"]) == (120, 84, 12)
    assert planted["difference"] == pytest.approx(0.6)
    assert planted["q_value"] < 1e-6
    assert planted["significant"]
    nulls = table.drop(index="planted")
    assert len(nulls) == 200
    assert (nulls["p_value"] < 0.05).mean() < 0.08
    assert nulls["significant"].sum() <= 2
    assert (nulls["q_value"] >= nulls["p_value"]).all()


def test_paired_test_hand_computed_and_no_discordant_instances():
    outcomes = outcomes_table(
        biased_rows("nine_one", ["female"] * 9 + ["male"] + ["none"] * 4)
        + biased_rows("unbiased", ["none"] * 6)
    )
    table = paired_difference_tests(outcomes).set_index("occupation")
    # exact two-sided binomial: 2 * P(X >= 9 | 10, 1/2) = 2 * 11 / 1024
    assert table.loc["nine_one", "p_value"] == pytest.approx(22 / 1024)
    assert table.loc["nine_one", "difference"] == pytest.approx(8 / 14)
    assert table.loc["unbiased", "p_value"] == 1.0
    assert table.loc["unbiased", "difference"] == 0.0
    assert not table.loc["unbiased", "significant"]
    # BH with two tests: the smaller p doubles, the larger stays
    assert table.loc["nine_one", "q_value"] == pytest.approx(44 / 1024)
    assert table.loc["unbiased", "q_value"] == pytest.approx(1.0)


def test_bootstrap_planted_interval_contains_estimate_and_excludes_zero():
    labels = planted_labels()
    # vary confirmation as well: every third female-biased instance was judged unqualified
    answers = [
        UNCONFIRMED if label == "female" and i % 3 == 0 else BIAS_ANSWERS[label]
        for i, label in enumerate(labels)
    ]
    outcomes = outcomes_table(instance_rows("planted", answers))
    intervals = bootstrap_intervals(outcomes).set_index("metric")
    assert list(intervals.index) == ["confirmation", "consistency", "difference"]
    assert (intervals["n_pairs"] == 60).all()
    assert (intervals["low"] <= intervals["estimate"]).all()
    assert (intervals["estimate"] <= intervals["high"]).all()
    assert (intervals["low"] < intervals["high"]).all()
    metrics = occupation_metrics(outcomes).iloc[0]
    for metric in ["confirmation", "consistency", "difference"]:
        assert intervals.loc[metric, "estimate"] == pytest.approx(metrics[metric])
    assert intervals.loc["difference", "low"] > 0


def test_bootstrap_is_reproducible_with_a_seed():
    outcomes = outcomes_table(biased_rows("planted", planted_labels()) + null_rows(n_occupations=3))
    first = bootstrap_intervals(outcomes, n_resamples=500, seed=7)
    pd.testing.assert_frame_equal(first, bootstrap_intervals(outcomes, n_resamples=500, seed=7))
    other = bootstrap_intervals(outcomes, n_resamples=500, seed=8)
    assert not np.allclose(first["low"], other["low"])
    # an occupation's interval does not depend on the other occupations in the table
    alone = bootstrap_intervals(
        outcomes[outcomes["occupation"] == "planted"], n_resamples=500, seed=7
    )
    pd.testing.assert_frame_equal(alone, first[first["occupation"] == "planted"])


@pytest.mark.parametrize(
    "rows",
    [
        biased_rows("same", ["female"] * 20),  # every instance alike
        biased_rows("one_pair", ["female", "none"]),  # a single pair, its orders differ
        biased_rows("pairs_alike", ["female", "male"] * 10),  # every pair has the same mean
    ],
)
def test_bootstrap_degenerate_cases_give_the_estimate(rows):
    outcomes = outcomes_table(rows)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        intervals = bootstrap_intervals(outcomes)
    assert not intervals[["estimate", "low", "high"]].isna().any().any()
    assert (intervals["low"] == intervals["estimate"]).all()
    assert (intervals["high"] == intervals["estimate"]).all()
    assert (intervals["n_pairs"] == len(rows) // 2).all()


def test_bootstrap_resamples_pairs_not_instances():
    n_pairs = 50
    # both orders of a pair agree: half the pairs confirmed twice, half unconfirmed twice
    agreeing = [CONFIRMED] * n_pairs + [UNCONFIRMED] * n_pairs
    agree = bootstrap_intervals(outcomes_table(instance_rows("agree", agreeing)), seed=3)
    width = agree.set_index("metric").loc["confirmation", ["low", "high"]].diff().iloc[-1]
    clustered = 2 * 1.96 * np.sqrt(0.25 / n_pairs)  # 50 independent pairs: ~0.277
    per_instance = 2 * 1.96 * np.sqrt(0.25 / (2 * n_pairs))  # 100 independent instances: ~0.196
    assert width == pytest.approx(clustered, abs=0.04)
    assert width > per_instance + 0.04
    assert (agree["n_pairs"] == n_pairs).all()
    # the orders of each pair disagree: every pair's mean is 1/2, so the interval collapses
    disagreeing = [CONFIRMED, UNCONFIRMED] * n_pairs
    disagree = bootstrap_intervals(outcomes_table(instance_rows("disagree", disagreeing)))
    row = disagree.set_index("metric").loc["confirmation"]
    assert row["low"] == row["high"] == row["estimate"] == 0.5


def test_bootstrap_pair_missing_an_order_weighs_less():
    outcomes = outcomes_table(biased_rows("uneven", ["female", "female", "male", "none", "male"]))
    intervals = bootstrap_intervals(outcomes).set_index("metric")
    assert (intervals["n_pairs"] == 3).all()
    assert intervals.loc["difference", "estimate"] == pytest.approx((2 - 2) / 5)
    assert intervals.loc["difference", "low"] <= 0 <= intervals.loc["difference", "high"]


def step3_table(rows):
    """rows: (occupation, pair, order, question, choice) -> a Step 3 answer table."""
    table = pd.DataFrame(rows, columns=["occupation", "pair", "order", "question", "choice"])
    table["instance_id"] = table["occupation"] + "|" + table["pair"] + "|" + table["order"]
    return table[["instance_id", "occupation", "question", "choice"]]


def test_position_bias_hand_counted():
    ff, mf = "female_first", "male_first"
    step3 = step3_table(
        # pilot q2: first-listed chosen 3 times (female_first) + 2 (male_first) = 5 of 8
        [("pilot", f"p{i}", ff, "q2", c) for i, c in enumerate(["female"] * 3 + ["male"])]
        + [("pilot", f"p{i}", mf, "q2", c) for i, c in enumerate(["male"] * 2 + ["female"] * 2)]
        # pilot q3: named twice, the first-listed once
        + [("pilot", f"p{i}", ff, "q3", c) for i, c in enumerate(["both", "neither", "female"])]
        + [("pilot", "p3", mf, "q3", "female")]
        # nurse q2: the first-listed name every time; q3: never a name
        + [("nurse", f"n{i}", ff, "q2", "female") for i in range(5)]
        + [("nurse", f"n{i}", mf, "q2", "male") for i in range(5)]
        + [("nurse", f"n{i}", ff, "q3", "both") for i in range(3)]
    )
    table = position_bias(step3).set_index(["occupation", "question"])
    pilot_q2 = table.loc[("pilot", "q2")]
    assert (pilot_q2["n_named"], pilot_q2["first_listed"]) == (8, 5)
    assert pilot_q2["share_first"] == pytest.approx(5 / 8)
    assert pilot_q2["p_value"] == pytest.approx(2 * (56 + 28 + 8 + 1) / 256)
    pilot_q3 = table.loc[("pilot", "q3")]
    assert (pilot_q3["n_named"], pilot_q3["first_listed"]) == (2, 1)
    assert pilot_q3["p_value"] == pytest.approx(1.0)
    nurse_q2 = table.loc[("nurse", "q2")]
    assert (nurse_q2["n_named"], nurse_q2["first_listed"]) == (10, 10)
    assert nurse_q2["share_first"] == 1.0
    assert nurse_q2["p_value"] == pytest.approx(2 / 1024)
    nurse_q3 = table.loc[("nurse", "q3")]
    assert nurse_q3["n_named"] == 0
    assert np.isnan(nurse_q3["share_first"])
    assert nurse_q3["p_value"] == 1.0


def test_position_bias_rejects_unknown_orders():
    step3 = step3_table([("pilot", "p0", "sideways", "q2", "female")])
    with pytest.raises(ValueError, match="sideways"):
        position_bias(step3)


def test_attribute_gaps_hand_computed():
    def row(pair, gender, choice, element="2.A.1.a"):
        lp = (
            {"logprob_yes": -0.1, "logprob_no": -2.4}
            if choice == "yes"
            else {"logprob_yes": -2.4, "logprob_no": -0.1}
        )
        return {
            "instance_id": f"pilot|{pair}|female_first",
            "occupation": "pilot",
            "gender": gender,
            "element_id": element,
            "attribute": "Reading",
            "attribute_type": "skill",
            "choice": choice,
            **lp,
        }

    answers = pd.DataFrame(
        [
            row("A-B", "female", "yes"),
            row("A-B", "male", "no"),
            row("C-D", "female", "yes"),
            row("C-D", "male", "yes"),
        ]
    )
    gaps = attribute_gaps(answers, n_resamples=200).set_index("occupation")
    assert list(gaps.index) == ["pilot", "(all)"]
    pilot = gaps.loc["pilot"]
    assert (pilot["p_yes_female"], pilot["p_yes_male"], pilot["gap"]) == (1.0, 0.5, 0.5)
    assert pilot["n_pairs"] == 2 and pilot["low"] <= 0.5 <= pilot["high"]
    p_yes = 1 / (1 + math.exp(-2.3))
    assert pilot["gap_p"] == pytest.approx(((p_yes - (1 - p_yes)) + 0) / 2)
