import pandas as pd
import pytest

from hiremeornot.metrics import difference_table, instance_outcomes, occupation_metrics


def answers(rows):
    """rows: (instance, occupation, q1 female, q1 male, q2, q3)."""
    step2, step3 = [], []
    for instance, occupation, q1f, q1m, q2, q3 in rows:
        step2 += [
            {"instance_id": instance, "occupation": occupation, "gender": "female", "choice": q1f},
            {"instance_id": instance, "occupation": occupation, "gender": "male", "choice": q1m},
        ]
        step3 += [
            {"instance_id": instance, "occupation": occupation, "question": "q2", "choice": q2},
            {"instance_id": instance, "occupation": occupation, "question": "q3", "choice": q3},
        ]
    return pd.DataFrame(step2), pd.DataFrame(step3)


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
    outcomes = instance_outcomes(step2, step3)
    assert list(outcomes["confirmed"]) == [True, False, True, True, True, False]
    assert list(outcomes["consistent"]) == [False, True, True, False, True, False]
    assert list(outcomes["biased_towards"]) == ["none", "male", "male", "none", "female", "female"]
    table = occupation_metrics(outcomes).set_index("occupation")
    assert table.loc["pilot", "n"] == 4
    assert table.loc["pilot", "confirmation"] == pytest.approx(3 / 4)
    assert table.loc["pilot", "consistency"] == pytest.approx(2 / 4)
    assert table.loc["pilot", "difference"] == pytest.approx(0 - 2 / 4)
    assert table.loc["nurse", "confirmation"] == pytest.approx(1 / 2)
    assert table.loc["nurse", "consistency"] == pytest.approx(1 / 2)
    assert table.loc["nurse", "difference"] == pytest.approx(1.0)


def test_difference_table_threshold_and_order():
    metrics = pd.DataFrame(
        {
            "occupation": ["a", "b", "c", "d"],
            "difference": [0.1, -0.5, 0.3, 0.25],
        }
    )
    table = difference_table(metrics, 0.2)
    assert list(table["occupation"]) == ["c", "d", "b"]


def test_mismatched_steps_are_an_error():
    step2, step3 = answers([("a1", "pilot", "yes", "no", "female", "both")])
    step3 = pd.concat([step3, step3.assign(instance_id="zz")])
    with pytest.raises(ValueError, match="same instances"):
        instance_outcomes(step2, step3)
