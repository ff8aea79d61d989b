"""The planted truth against a brute-force simulation of the same generative model."""

import numpy as np
import pandas as pd
import pytest

from hiremeornot.analysis.metrics import READINGS
from hiremeornot.analysis.simulated_audit import synthetic_design
from hiremeornot.analysis.truth import planted_truth, poisson_binomial
from tests.test_respondent import respondent

PLANT = {
    "name_sd": 0.8,
    "position": 0.7,
    "step1": {"effects": {"male": 0.4}},
    "q1": {"none": 0.3, "per_attribute": 0.15},
    "effects": {"q1": {"female": 0.5}, "q2": {"female": 1.0}, "q3": {"female": 0.6}},
    "occupations": {"pilot": {"q2": {"male": 1.0}}},
}


def truth_of(design, **params) -> pd.Series:
    table = planted_truth(respondent(**params), design)
    return table.set_index(["occupation", "quantity"])["truth"]


def brute_force(planted, types, first, occupation, n=400_000, seed=0) -> dict[str, float]:
    """Draw n name pairs and every answer of one occupation and order, plainly."""
    rng = np.random.default_rng(seed)
    sides = ("female", "male")
    u = {side: planted.name_quantile(rng.random(n)) for side in sides}  # in Step 1
    own = planted.params["interaction_sd"]
    person = {side: u[side] + rng.normal(0, own, n) for side in sides}  # in Q1-Q3
    group = {"female": {"gender": "female"}, "male": {"gender": "male"}}

    def shift(q, side):
        return planted.shift(q, occupation, "paper", group[side])

    yes = {}
    for side in ("female", "male"):
        p = np.column_stack([planted.step1_yes(t, shift("step1", side), u[side]) for t in types])
        granted = (rng.random(p.shape) < p).sum(axis=1)
        yes[side] = rng.random(n) < planted.q1_yes(granted, shift("q1", side), person[side])
    second = "male" if first == "female" else "female"
    chosen = {}
    for q in ("q2", "q3"):
        p = planted.choice_probabilities(
            q, shift(q, first) + person[first], shift(q, second) + person[second]
        )
        pick = (rng.random((n, 1)) > np.cumsum(p, axis=1)[:, :-1]).sum(axis=1)
        chosen[q] = np.array([first, second, "both", "neither"])[pick]
    female = chosen["q2"] == "female"
    kept = chosen["q3"] == chosen["q2"]
    q1_chosen = np.where(female, yes["female"], yes["male"])
    towards = np.where(kept | ~q1_chosen, chosen["q2"], "none")
    return {
        "confirmation": q1_chosen.mean(),
        "consistency": kept.mean(),
        "difference_biased": (towards == "female").mean() - (towards == "male").mean(),
        "difference_q3": (chosen["q3"] == "female").mean() - (chosen["q3"] == "male").mean(),
        "difference_q1": yes["female"].mean() - yes["male"].mean(),
        "rate_q2_female": female.mean(),
    }


@pytest.mark.parametrize(
    ("occupation", "names"),
    [
        ("nurse", {}),
        ("pilot", {}),
        # heavy-tailed name effects, and each name's own effect in each occupation
        ("nurse", {"name_df": 3, "interaction_sd": 0.6}),
        ("pilot", {"name_df": 4, "name_sd": 1.5}),
        ("pilot", {"interaction_sd": 1.0}),
    ],
)
def test_the_truth_is_the_expectation_of_the_generative_model(occupation, names):
    design = synthetic_design(["nurse", "pilot"], 2, per_type=3)
    truth = truth_of(design, **{**PLANT, **names})
    planted = respondent(**{**PLANT, **names})
    types = design.attributes.groupby("soc_code")["attribute_type"].agg(list).iloc[0]
    drawn = [
        brute_force(planted, types, first, occupation, seed=i)
        for i, first in enumerate(["female", "male"])
    ]
    for quantity in drawn[0]:
        simulated = np.mean([d[quantity] for d in drawn])  # both orders, as the audit balances
        assert truth[(occupation, quantity)] == pytest.approx(simulated, abs=0.004), quantity


def test_with_nothing_planted_every_difference_is_zero_and_every_ratio_one():
    truth = truth_of(synthetic_design(["nurse"], 2), name_sd=1.0, position=1.0)
    for reading in READINGS:
        assert truth[("nurse", f"difference_{reading}")] == pytest.approx(0, abs=1e-12)
    assert truth[("nurse", "ratio_q3_male")] == pytest.approx(1.0)


def test_one_listing_order_leaves_the_position_effect_in_the_difference():
    both = truth_of(synthetic_design(["nurse"], 2), position=1.0)
    one = truth_of(synthetic_design(["nurse"], 2, both_orders=False), position=1.0)
    assert both[("nurse", "difference_q2")] == pytest.approx(0, abs=1e-12)
    assert one[("nurse", "difference_q2")] > 0.3  # female listed first, favoured by position


def test_the_count_of_granted_attributes_is_poisson_binomial():
    pmf = poisson_binomial(np.array([[0.5, 0.5], [1.0, 0.0]]))
    assert pmf == pytest.approx(np.array([[0.25, 0.5, 0.25], [0.0, 1.0, 0.0]]))
