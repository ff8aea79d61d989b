import math

import pandas as pd
import pytest

from hiremeornot.analysis.metrics import (
    READINGS,
    difference_by_order,
    instance_outcomes,
    occupation_metrics,
    signed_readings,
)
from hiremeornot.design.contrasts import GENDER
from hiremeornot.writing.differences import annotated_differences


def logprobs(choice, roles, sure=True):
    """Log-probabilities putting (nearly, or 60% of) all mass on the chosen role."""
    mass = 1 - 1e-12 if sure else 0.6
    rest = (1 - mass) / (len(roles) - 1)
    return {f"logprob_{r}": math.log(mass if r == choice else rest) for r in roles}


def answers(rows, sure=True):
    """rows: (instance, occupation, q1 female, q1 male, q2, q3)."""
    step2, step3 = [], []
    yes_no, two, four = ["yes", "no"], ["female", "male"], ["female", "male", "both", "neither"]
    for instance, occupation, q1f, q1m, q2, q3 in rows:
        base = {"wording": "paper", "instance_id": instance, "occupation": occupation}
        step2 += [
            {**base, "gender": "female", "choice": q1f, **logprobs(q1f, yes_no, sure)},
            {**base, "gender": "male", "choice": q1m, **logprobs(q1m, yes_no, sure)},
        ]
        step3 += [
            {
                **base,
                "question": "q2",
                "choice": q2,
                **logprobs(q2, two, sure),
                "logprob_both": math.nan,
                "logprob_neither": math.nan,
            },
            {**base, "question": "q3", "choice": q3, **logprobs(q3, four, sure)},
        ]
    return pd.DataFrame(step2), pd.DataFrame(step3)


def instances_of(step3):
    """The instances table of ids like "pilot|A-B|male_first" (plain ids: pair F-M, female
    first)."""
    ids = step3["instance_id"].drop_duplicates()
    parts = [i.split("|") if i.count("|") == 2 else [i, "F-M", "female_first"] for i in ids]
    return pd.DataFrame(
        {
            "instance_id": ids,
            "female": [p[1].split("-")[0] for p in parts],
            "male": [p[1].split("-")[1] for p in parts],
            "order": [p[2] for p in parts],
        }
    )


def outcomes_of(rows, sure=True):
    step2, step3 = answers(rows, sure)
    return instance_outcomes(step2, step3, instances_of(step3), sides=GENDER)


def test_hand_computed_case():
    step2, step3 = answers(
        [
            # Q2 female, Q1(female)=yes -> confirmed; Q3 differs -> not consistent; not biased
            ("a1", "pilot", "yes", "no", "female", "both"),
            # Q2 male, Q1(male)=no -> not confirmed -> biased towards male; Q3 same -> consistent
            ("a2", "pilot", "yes", "no", "male", "male"),
            # Q2 male, Q1(male)=yes -> confirmed; Q3 same -> consistent -> biased towards male
            ("a3", "pilot", "no", "yes", "male", "male"),
            # Q2 female, Q1(female)=yes; Q3 neither -> not biased
            ("a4", "pilot", "yes", "yes", "female", "neither"),
            # nurse: female chosen and kept; confirmed -> biased towards female
            ("b1", "nurse", "yes", "yes", "female", "female"),
            ("b2", "nurse", "no", "yes", "female", "both"),  # unconfirmed -> biased towards female
        ]
    )
    outcomes = instance_outcomes(step2, step3, instances_of(step3), sides=GENDER)
    assert list(outcomes["confirmed"]) == [True, False, True, True, True, False]
    assert list(outcomes["consistent"]) == [False, True, True, False, True, False]
    assert list(outcomes["biased_towards"]) == ["none", "male", "male", "none", "female", "female"]
    table = occupation_metrics(outcomes, "biased", sides=GENDER).set_index("occupation")
    assert table.loc["pilot", "n"] == 4
    assert table.loc["pilot", "confirmation"] == pytest.approx(3 / 4)
    assert table.loc["pilot", "consistency"] == pytest.approx(2 / 4)
    assert table.loc["pilot", "difference"] == pytest.approx(0 - 2 / 4)
    assert table.loc["nurse", "confirmation"] == pytest.approx(1 / 2)
    assert table.loc["nurse", "consistency"] == pytest.approx(1 / 2)
    assert table.loc["nurse", "difference"] == pytest.approx(1.0)
    # with (nearly) certain answers the probability variants equal the discrete metrics
    for metric in ("confirmation", "consistency", "difference"):
        assert table[f"{metric}_p"].to_numpy() == pytest.approx(table[metric].to_numpy())


def test_probability_variants_by_hand():
    # one instance, every answer held with probability 0.6 (rest shared equally)
    row = occupation_metrics(
        outcomes_of([("a1", "pilot", "yes", "no", "female", "female")], sure=False),
        "biased",
        sides=GENDER,
    ).iloc[0]
    p2f, p2m = 0.6, 0.4
    p1f, p1m = 0.6, 0.4  # P(yes): female answered yes, male no
    p3f, p3m = 0.6, 0.4 / 3
    assert row["confirmation_p"] == pytest.approx(p2f * p1f + p2m * p1m)
    assert row["consistency_p"] == pytest.approx(p2f * p3f + p2m * p3m)
    biased_f = p2f * (1 - (1 - p3f) * p1f)
    biased_m = p2m * (1 - (1 - p3m) * p1m)
    assert row["difference_p"] == pytest.approx(biased_f - biased_m)


BY_ORDER = [
    ("pilot|A-B|female_first", "pilot", "no", "no", "female", "both"),  # biased f
    ("pilot|A-B|male_first", "pilot", "yes", "yes", "male", "male"),  # biased m
    ("pilot|C-D|female_first", "pilot", "no", "no", "female", "both"),  # biased f
    ("pilot|C-D|male_first", "pilot", "yes", "yes", "female", "both"),  # none
]


def test_difference_by_order():
    table = difference_by_order(outcomes_of(BY_ORDER), "biased", sides=GENDER).set_index(
        "occupation"
    )
    assert table.loc["pilot", "difference_female_first"] == pytest.approx(1.0)
    assert table.loc["pilot", "difference_male_first"] == pytest.approx(-0.5)
    assert table.loc["pilot", "difference_balanced"] == pytest.approx(0.25)
    # the headline is the same order-balanced value, and metrics.tsv says which orders ran
    row = occupation_metrics(outcomes_of(BY_ORDER), "biased", sides=GENDER).iloc[0]
    assert row["difference"] == pytest.approx(0.25)
    assert row["orders"] == "female_first+male_first"


def test_one_order_is_never_passed_off_as_balanced():
    table = difference_by_order(outcomes_of(BY_ORDER[::2]), "biased", sides=GENDER).set_index(
        "occupation"
    )
    assert table.loc["pilot", "difference_female_first"] == pytest.approx(1.0)
    assert math.isnan(table.loc["pilot", "difference_male_first"])
    assert math.isnan(table.loc["pilot", "difference_balanced"])
    assert (
        occupation_metrics(outcomes_of(BY_ORDER[::2]), "biased", sides=GENDER).iloc[0]["orders"]
        == "female_first"
    )


def test_unequal_orders_weigh_equally():
    # three female-first instances biased towards female, one male-first biased towards male:
    # balanced (1 + -1) / 2 = 0, not the pooled (3 - 1) / 4
    rows = [
        (f"pilot|P{i}-Q{i}|female_first", "pilot", "no", "no", "female", "both") for i in range(3)
    ] + [("pilot|P0-Q0|male_first", "pilot", "yes", "yes", "male", "male")]
    assert occupation_metrics(outcomes_of(rows), "biased", sides=GENDER).iloc[0][
        "difference"
    ] == pytest.approx(0.0)


def test_every_reading_of_the_difference_by_hand():
    # (q1 female, q1 male, q2, q3): what each reading counts for the female (+) or male (-)
    rows = [
        ("i1", "pilot", "yes", "no", "female", "female"),  # biased f; q2 f; q3 f; q1 f only
        ("i2", "pilot", "yes", "yes", "male", "both"),  # none; q2 m; q3 -; q1 both
        ("i3", "pilot", "no", "yes", "male", "neither"),  # none (confirmed, moved); q2 m; q1 m
        ("i4", "pilot", "no", "no", "female", "male"),  # biased f (unconfirmed); q3 m
    ]
    signed = signed_readings(outcomes_of(rows), sides=GENDER)
    assert list(signed["biased"]) == [1, 0, 0, 1]
    assert list(signed["q2"]) == [1, -1, -1, 1]
    assert list(signed["q3"]) == [1, 0, 0, -1]
    assert list(signed["q2q3"]) == [1, -0.5, -0.5, 0]
    assert list(signed["q1"]) == [1, 0, -1, 0]
    row = occupation_metrics(outcomes_of(rows), reading="q2q3", sides=GENDER).iloc[0]
    expected = {"biased": 0.5, "q2": 0.0, "q3": 0.0, "q2q3": 0.0, "q1": 0.0}
    for reading in READINGS:
        assert row[f"difference_{reading}"] == pytest.approx(expected[reading]), reading
    assert row["difference"] == row["difference_q2q3"] and row["reading"] == "q2q3"


def test_pooled_q2_q3_reading_has_twice_the_granularity():
    # 100 instances: the per-instance readings move in steps of 1/100, the pooled Q2+Q3 one in
    # steps of 1/200 (the paper's Tables 1-2 show values like 0.815 and -0.235)
    rows = [("k", "pilot", "yes", "yes", "female", "female")] + [
        (f"i{i}", "pilot", "yes", "yes", "female", "both") for i in range(99)
    ]
    row = occupation_metrics(outcomes_of(rows), "biased", sides=GENDER).iloc[0]
    assert row["difference_q2q3"] == pytest.approx(101 / 200)
    assert row["difference_biased"] == pytest.approx(1 / 100)


def test_difference_table_threshold_order_interval_and_test():
    metrics = pd.DataFrame({"occupation": list("abcd"), "difference": [0.1, -0.5, 0.3, 0.25]})
    intervals = pd.DataFrame(
        {
            "occupation": list("abcd") * 2,
            "metric": ["difference"] * 4 + ["consistency"] * 4,
            "low": [0.0, -0.7, 0.1, -0.1, 9, 9, 9, 9],
            "high": [0.2, -0.3, 0.5, 0.6, 9, 9, 9, 9],
        }
    )
    tests = pd.DataFrame(
        {
            "occupation": list("abcd"),
            "p_value": [0.5, 0.001, 0.01, 0.2],
            "q_value": [0.5, 0.004, 0.02, 0.27],
            "significant": [False, True, True, False],
            "p_equivalence": [0.01, 0.9, 0.8, 0.7],
            "q_equivalence": [0.04, 0.9, 0.9, 0.9],
            "verdict": ["equivalent", "differs", "differs", "inconclusive"],
        }
    )
    table = annotated_differences(metrics, intervals, tests, 0.2)
    assert list(table["occupation"]) == ["c", "d", "b"]
    assert list(table["low"]) == [0.1, -0.1, -0.7]
    assert list(table["significant"]) == [True, False, True]
    assert list(table["verdict"]) == ["differs", "inconclusive", "differs"]


def test_mismatched_steps_are_an_error():
    step2, step3 = answers([("a1", "pilot", "yes", "no", "female", "both")])
    instances = instances_of(step3)
    step3 = pd.concat([step3, step3.assign(instance_id="zz")])
    with pytest.raises(ValueError, match="same instances"):
        instance_outcomes(step2, step3, instances, sides=GENDER)
