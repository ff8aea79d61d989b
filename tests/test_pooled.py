"""The pooled mixed-effects model on simulated audits whose log-odds are planted."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import false_discovery_control

from hiremeornot.analysis.pooled import MIN_NAMES, MIN_NAMES_Q1, pooled_effects
from hiremeornot.analysis.simulated_audit import AuditSimulator, synthetic_design
from hiremeornot.analysis.stats import ALL_OCCUPATIONS
from hiremeornot.analysis.truth import planted_truth
from hiremeornot.config import validate_config
from hiremeornot.errors import InputError
from tests.test_respondent import respondent

REPORT = validate_config({"models": {"m": {"backend": "simulated", "model": "m"}}})["report"]
OCCUPATIONS = ["nurse", "pilot", "dancer", "plumber", "baker", "clerk"]


def fitted(plant: dict, names: int, seed: int = 0, **design):
    design = synthetic_design(OCCUPATIONS, names, per_type=2, **design)
    simulator = AuditSimulator(respondent(**plant), design)
    step2, step3 = simulator.audit(np.random.default_rng(seed))
    return pooled_effects(step2, step3, design.instances, design.sides, REPORT), design


def test_an_isolated_occupation_is_flagged_without_a_floor_and_the_others_are_not():
    """One occupation of six with a planted effect, 10 + 10 names: the model flags it in every
    question with no floor and no correction, shrunk towards the others but covering its truth."""
    plant = {"occupations": {"nurse": {q: {"female": 1.5} for q in ("q1", "q2", "q3")}}}
    table, design = fitted({**plant, "position": 0.5}, 10)
    truth = planted_truth(respondent(**plant), design).set_index(["occupation", "quantity"])
    assert set(table["question"]) == {"q1", "q2", "q3"} and table["converged"].all()
    for question, rows in table.groupby("question"):
        each = rows.set_index("occupation")
        assert each.loc["nurse", "flagged"], question
        others = each.drop(index=["nurse", ALL_OCCUPATIONS])
        assert not others["flagged"].any(), question
        for occupation, row in each.iterrows():
            planted = truth.loc[(occupation, f"log_odds_{question}"), "truth"]
            assert row["low"] <= planted <= row["high"], (question, occupation)
        assert each.loc["nurse", "odds_ratio"] == pytest.approx(
            np.exp(each.loc["nurse", "log_odds"])
        )


def test_the_overall_effect_and_the_occupations_are_one_family():
    """Each question's q-values are Benjamini-Hochberg over the overall effect and every
    occupation together: tested on its own beside them, the overall effect made 6.8-8.5% of
    complete-null audits flag something (docs/calibration.md)."""
    table, _ = fitted({"position": 0.5}, 10)
    for question, rows in table.groupby("question"):
        expected = false_discovery_control(rows["p_value"].to_numpy(), method="bh")
        np.testing.assert_allclose(rows["q_value"], expected, err_msg=question)
        overall = rows[rows["occupation"] == ALL_OCCUPATIONS].iloc[0]
        assert overall["q_value"] >= overall["p_value"]


def test_the_interval_carries_the_uncertainty_of_the_names_sample():
    """Large name effects and no planted difference: the mean-field posterior alone puts the
    overall effect within a few hundredths of the sample's name mean (about 0.6 from 0 here); the
    interval adds the names' variance and covers 0."""
    design = synthetic_design(OCCUPATIONS[:3], 5, per_type=2)
    simulator = AuditSimulator(respondent(name_sd=1.0), design)
    rng = np.random.default_rng(3)
    overall = pd.concat(
        pooled_effects(*simulator.audit(rng), design.instances, design.sides, REPORT)
        for _ in range(20)
    )
    overall = overall[overall["occupation"] == ALL_OCCUPATIONS]
    covered = (overall["low"] <= 0) & (overall["high"] >= 0)
    assert covered.groupby(overall["question"]).mean().min() >= 0.9
    assert (overall["high"] - overall["low"]).mean() > 2.0  # about 2 x 1.96 x sqrt(2 / 5)


def test_each_names_own_effect_in_an_occupation_widens_that_occupations_interval():
    """Names that fare differently by occupation (each its own effect per occupation, sd 1):
    the occupation's interval carries the sample of those effects, so it is wider than with
    none, on the same draws of everything else, and still covers the planted effects."""
    design = synthetic_design(OCCUPATIONS, 10, per_type=2)
    widths, covered = {}, []
    for interaction_sd in (0.0, 1.0):
        planted = respondent(interaction_sd=interaction_sd)
        step2, step3 = AuditSimulator(planted, design).audit(np.random.default_rng(5))
        table = pooled_effects(step2, step3, design.instances, design.sides, REPORT)
        each = table[table["occupation"] != ALL_OCCUPATIONS]
        widths[interaction_sd] = (each["high"] - each["low"]).median()
        covered += list((each["low"] <= 0) & (each["high"] >= 0))
    assert widths[1.0] > 1.2 * widths[0.0]
    assert np.mean(covered) >= 0.9


def test_a_design_the_calibration_does_not_reach_is_not_fitted():
    assert fitted({}, MIN_NAMES - 1)[0].empty
    assert fitted({}, MIN_NAMES, both_orders=False)[0].empty  # position and group confounded


def test_step2_tables_without_the_granted_count_are_named():
    design = synthetic_design(OCCUPATIONS[:2], MIN_NAMES_Q1, per_type=1)
    step2, step3 = AuditSimulator(respondent(), design).audit(np.random.default_rng(0))
    with pytest.raises(InputError, match="no granted column"):
        pooled_effects(step2.drop(columns="granted"), step3, design.instances, design.sides, REPORT)
    assert isinstance(step3, pd.DataFrame)


def q1_model(names: int = 6):
    """A Q1 model of a simulated audit of the six occupations, with fit_question's fixed effects
    and its group, name and own-effect components (not its occupation intercepts)."""
    from hiremeornot.analysis.pooled import q1_rows
    from hiremeornot.analysis.vb_gradient import SummedGradientGLM

    design = synthetic_design(OCCUPATIONS, names, per_type=2)
    step2, _ = AuditSimulator(respondent(position=0.5), design).audit(np.random.default_rng(3))
    rows = q1_rows(step2, design.instances, design.sides)
    effects = {"occupation": "0 + C(occupation):group", "name": "0 + C(name)"}
    effects["name_own"] = "0 + C(name):C(occupation)"
    return SummedGradientGLM.from_formula("y ~ group + first + granted", effects, rows)


def test_the_summed_gradient_is_statsmodels_gradient():
    """vb_gradient's ELBO gradient, at random points, is statsmodels' own to rounding."""
    from statsmodels.genmod.bayes_mixed_glm import BinomialBayesMixedGLM

    model = q1_model()
    assert type(model).__name__ == "SummedGradientGLM"
    size = model.k_fep + model.k_vcp + model.k_vc
    rng = np.random.default_rng(0)
    for _ in range(3):
        mean, sd = rng.normal(0, 0.5, size), np.exp(rng.normal(-0.5, 0.3, size))
        summed = model.vb_elbo_grad(mean, sd)
        own = BinomialBayesMixedGLM.vb_elbo_grad(model, mean, sd)
        for mine, theirs in zip(summed, own, strict=True):
            np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-10)


def test_the_fit_does_not_depend_on_its_start():
    """From statsmodels' random starts the fit stops where the ELBO is flat and the effects still
    move (by up to 4e-3, benchmarks/pooled_fit_speed.py); the published fit's stopping rule
    takes it to the same effects from any start, and its own start is fixed."""
    from hiremeornot.analysis.pooled import FIT_OPTIONS, _fitted

    model = q1_model()
    fit, converged = _fitted(model)
    assert converged
    assert np.array_equal(_fitted(model)[0].fe_mean, fit.fe_mean)
    size = model.k_fep + model.k_vcp + model.k_vc
    for seed in (1, 2):
        start = np.exp(-0.5 + 0.1 * np.random.default_rng(seed).normal(size=size))
        other = model.fit_vb(sd=start, fit_method="L-BFGS-B", minim_opts=FIT_OPTIONS)
        np.testing.assert_allclose(other.fe_mean, fit.fe_mean, atol=1e-5)
        np.testing.assert_allclose(other.fe_sd, fit.fe_sd, atol=1e-5)
