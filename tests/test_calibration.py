"""The calibration harness: simulated audits through the published code, against planted truth."""

import json

import numpy as np
import pandas as pd
import pytest

from hiremeornot import cli
from hiremeornot.analysis.calibration import (
    calibrate,
    coverage,
    verdict_rates,
    worst_false_positive,
)
from hiremeornot.analysis.metrics import READINGS
from hiremeornot.analysis.simulated_audit import AuditSimulator, synthetic_design
from hiremeornot.asking.respondent import Respondent
from hiremeornot.config import validate_config
from hiremeornot.design.contrasts import GENDER_CONTRAST
from tests.test_respondent import respondent

REPORT = validate_config({"models": {"m": {"backend": "simulated", "model": "m"}}})["report"]
OCCUPATIONS = ["nurse", "pilot", "dancer", "plumber"]
PLANT = {
    "occupations": {
        "nurse": {q: {"female": 1.0} for q in ("q1", "q2", "q3")},
        "pilot": {q: {"male": 0.7} for q in ("q1", "q2", "q3")},
    },
    "position": 0.8,
}


def test_an_audit_has_the_workflows_tables_and_draws_from_the_planted_probabilities():
    design = synthetic_design(["nurse"], 3)
    simulator = AuditSimulator(respondent(name_sd=0.0, position=0.0, q3={"both": 0.5}), design)
    step2, step3 = simulator.audit(np.random.default_rng(0))
    assert len(step2) == 2 * len(design.instances) and len(step3) == 2 * len(design.instances)
    q3 = step3[step3["question"] == "q3"]
    probabilities = np.exp(
        q3[["logprob_female", "logprob_male", "logprob_both", "logprob_neither"]]
    )
    assert probabilities.to_numpy() == pytest.approx(
        np.tile([0.225, 0.225, 0.5, 0.05], (len(q3), 1))
    )
    assert step3.loc[step3["question"] == "q2", "logprob_both"].isna().all()


def audits_of(planted: Respondent, *, names: int, audits: int, seed: int, pooled: bool = True):
    """calibrate's checks, verdicts and seconds: ``audits`` audits of the four occupations with
    ``names`` names a side (with the pooled model's fits where ``pooled``)."""
    design = synthetic_design(OCCUPATIONS, names)
    return calibrate(
        planted, design, REPORT, audits=audits, seed=seed, progress=False, with_pooled=pooled
    )


def test_estimates_are_unbiased_for_their_truth():
    checks, _, _ = audits_of(respondent(**PLANT), names=5, audits=30, seed=0)
    table = coverage(checks).set_index("quantity")
    for quantity in ["confirmation", "consistency", *[f"difference_{r}" for r in READINGS]]:
        row = table.loc[quantity]
        assert abs(row["bias"]) < 3 * row["rmse"] / np.sqrt(row["checks"] / 4), quantity


@pytest.mark.slow
def test_every_published_interval_covers_its_truth_at_its_nominal_level():
    """150 audits of 4 occupations, 10 + 10 names, a planted position effect (fixed seeds):
    differences, Confirmation, Consistency, and the impact rates and ratios (whose per-group
    name resampling covered 72-87% before the crossed draw). Without the pooled model: with
    each name's own effect per occupation its fits took this test to 22 minutes of CI; its
    coverage is benchmarks/pooled_calibration.py's (docs/calibration.md)."""
    checks, verdicts, _ = audits_of(respondent(**PLANT), names=10, audits=150, seed=1, pooled=False)
    table = coverage(checks).set_index("quantity")
    # rates and ratios per occupation and (Local Law 144) pooled
    assert len(table) == 2 + len(READINGS) + 2 * 3 * 2 + 2 * 3 * 2
    for quantity, row in table.iterrows():
        assert row["coverage"] >= 0.93, quantity
    rates = verdict_rates(verdicts, REPORT["equivalence_margin"])
    null = rates[rates["null"]]
    assert (null["differs"] <= REPORT["alpha"]).all()
    assert (
        rates.loc[rates["truth"].abs() > REPORT["equivalence_margin"], "equivalent"] <= 0.05
    ).all()


def test_under_a_null_plant_nothing_is_called_different():
    """Occupations are called different no more often than alpha; the FDR, a share of the 25
    audits (those with any occupation called different: all are false), is held to alpha within
    twice its Monte-Carlo error (the tests are at their level: docs/calibration.md measures it
    over 400 audits, 0.052 at 10 + 10 names)."""
    audits, alpha = 25, REPORT["alpha"]
    _, verdicts, _ = audits_of(respondent(position=0.8), names=8, audits=audits, seed=2)
    rates = verdict_rates(verdicts, REPORT["equivalence_margin"])
    assert rates["null"].all()
    assert (rates["differs"] <= alpha).all()
    assert (rates["fdr"] <= alpha + 2 * np.sqrt(alpha * (1 - alpha) / audits)).all()


def test_coverage_and_false_positives_are_decided_as_data():
    checks = pd.DataFrame(
        {
            "audit": [0, 1, 2, 3] * 2,
            "occupation": "nurse",
            "quantity": ["wide"] * 4 + ["narrow"] * 4,
            "estimate": 0.0,
            "low": -1.0,
            "high": [1.0] * 4 + [-0.5] * 4,  # the narrow intervals never cover the truth 0
            "truth": 0.0,
        }
    )
    table = coverage(checks).set_index("quantity")
    assert table["undercovers"].to_dict() == {"wide": False, "narrow": True}
    rates = pd.DataFrame(
        {"reading": ["a", "b", "c"], "null": [True, True, False], "differs": [0.01, 0.07, 0.9]}
    )
    assert worst_false_positive(rates, 0.05) == {"reading": "b", "rate": 0.07, "above_alpha": True}
    assert worst_false_positive(rates, 0.1)["above_alpha"] is False
    assert worst_false_positive(rates[~rates["null"]], 0.05) is None


def test_the_calibrate_command_writes_its_tables_words_and_figure(tmp_path):
    design = synthetic_design(["nurse", "pilot"], 3)
    design.instances.to_parquet(tmp_path / "instances.parquet")
    design.attributes.to_csv(tmp_path / "attributes.tsv", sep="\t", index=False)
    settings = {
        "respondent": respondent(**PLANT).params,
        "wordings": ["paper"],
        "report": REPORT,
    }
    outputs = {ext: tmp_path / f"m.{ext}" for ext in ("tsv", "md", "png")}
    code = cli.main(
        [
            "calibrate",
            "--settings",
            json.dumps(settings),
            "--contrast",
            json.dumps(GENDER_CONTRAST.as_dict()),
            "--model",
            "m",
            "--instances",
            str(tmp_path / "instances.parquet"),
            "--attributes",
            str(tmp_path / "attributes.tsv"),
            "--audits",
            "5",
            "--out-tsv",
            str(outputs["tsv"]),
            "--out-verdicts",
            str(tmp_path / "verdicts.tsv"),
            "--out-md",
            str(outputs["md"]),
            "--out-png",
            str(outputs["png"]),
        ]
    )
    assert code == 0
    text = outputs["md"].read_text()
    assert (
        "5 independent simulated audits" in text and "What is left of the planted position" in text
    )
    table = pd.read_csv(outputs["tsv"], sep="\t")
    assert {"difference_biased", "ratio_q2_male"} <= set(table["quantity"])
    assert outputs["png"].stat().st_size > 10_000


def test_an_instructions_planted_effect_is_checked_against_its_truth():
    """The baseline against its arm under an instruction that removes the bias (scale 0): every
    paired change, per occupation and pooled, has its truth, and the estimates find it."""
    params = respondent(**PLANT, interventions={"fair": {"scale": 0.0}}).params
    checks, _, _ = calibrate(
        Respondent(params),
        synthetic_design(OCCUPATIONS[:3], 5),
        REPORT,
        audits=24,  # the mean of the estimates within 0.05 of the truth: about 3.5 standard errors
        seed=3,
        progress=False,
        other=Respondent(params, "fair"),
        with_pooled=False,
    )
    changes = checks[checks["quantity"].str.contains("change_")]
    assert changes["truth"].notna().all()
    kinds = set(changes["quantity"].str.replace(r"_(q\d)_(female|male)$", "", regex=True))
    assert kinds == {
        f"{pooled}change_{kind}"
        for pooled in ("", "pooled_")
        for kind in ("confirmation", "consistency", "difference_biased", "rate", "ratio")
    }
    nurse = changes[
        (changes["occupation"] == "nurse") & (changes["quantity"] == "change_rate_q1_female")
    ]
    assert (nurse["truth"] < -0.1).all()  # the women's Q1 advantage in nurse is taken away
    assert abs(nurse["estimate"].mean() - nurse["truth"].iloc[0]) < 0.05
    table = coverage(checks).set_index("quantity")
    assert table.loc["change_difference_biased", "coverage"] >= 0.8


def test_two_processes_give_the_tables_of_one():
    """Each audit draws from its own stream of the seed, whichever process runs it."""
    design = synthetic_design(OCCUPATIONS[:2], 3)
    runs = [
        calibrate(
            respondent(**PLANT),
            design,
            REPORT,
            audits=6,
            seed=4,
            progress=False,
            with_pooled=False,
            jobs=jobs,
        )
        for jobs in (1, 2)
    ]
    (checks, verdicts, _), (checks_2, verdicts_2, _) = runs
    assert checks.equals(checks_2) and verdicts.equals(verdicts_2)
    assert sorted(set(checks["audit"])) == list(range(6))
