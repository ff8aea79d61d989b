"""The workflow end to end on the simulated backend: every question kind answered from the
planted model, its truth beside the estimates, and the calibration target."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest

from tests.conftest import needs_data
from tests.helpers.workflow_runs import SIMULATED, TINY, run_tiny, snakemake

pytestmark = [pytest.mark.slow, pytest.mark.workflow, needs_data]
MODEL = "planted"
# nurse favours women and pilot men, in every question
OPPOSITE = {
    "occupations": {
        "nurse": {q: {"female": 1.0} for q in ("q1", "q2", "q3")},
        "pilot": {q: {"male": 1.0} for q in ("q1", "q2", "q3")},
    },
    "position": 0.5,
    # Q2 puts most of its probability outside the answer words: the constraint forces it
    "answer_mass": {"q2": 0.3},
}
CONFIG = {
    **TINY,
    "names": {"list": "ethical-interventions", "pairs": "all", "validate": True},
    "control": {"neutral": True},
    "prompts": {
        "wordings": {"plain": {"q2": "Which of the two is better for {a_occupation}?"}},
        "variants": ["paper", "plain"],
    },
    "models": {MODEL: {**SIMULATED, "respondent": OPPOSITE}},
    "report": {"calibration_audits": 6},
}


@pytest.fixture(scope="module")
def planted_run(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("planted-run")
    run_tiny(workdir, config=CONFIG)
    return workdir


def test_estimates_sit_beside_their_planted_truth(planted_run):
    results = planted_run / "results"
    truth = pd.read_csv(results / MODEL / "truth.tsv", sep="\t").set_index(
        ["occupation", "quantity"]
    )
    intervals = pd.read_csv(results / MODEL / "intervals.tsv", sep="\t")
    assert len(intervals) == 6
    for row in intervals.itertuples():
        quantity = row.metric if row.metric != "difference" else "difference_biased"
        planted = truth.loc[(row.occupation, quantity), "truth"]
        assert row.low <= planted <= row.high, (row.occupation, row.metric)
        assert abs(row.estimate - planted) < 0.15, (row.occupation, row.metric)
    tests = pd.read_csv(results / MODEL / "tests.tsv", sep="\t").set_index("occupation")
    assert tests.loc["nurse", "difference"] > 0 > tests.loc["pilot", "difference"]
    # two wordings pooled as a random factor: the test's floor is 2^(1-2), nothing can differ
    assert (tests["smallest_p"] == 0.5).all() and (tests["verdict"] == "inconclusive").all()
    summary = (results / "summary.md").read_text()
    assert "simulated respondent with planted effects" in summary
    assert "difference_truth" in summary


def test_every_answer_carries_the_probabilities_it_was_drawn_from(planted_run):
    for step in ("step1", "step2", "step3"):
        for wording in ("paper", "plain"):
            table = pd.concat(
                pd.read_parquet(p)
                for p in (planted_run / "results" / MODEL / step / wording).glob("*.parquet")
            )
            logprobs = table.filter(like="logprob_")
            assert np.allclose(np.exp(logprobs).sum(axis=1, min_count=1), 1.0), (step, wording)


def test_the_answers_forced_by_the_constraint_are_counted_and_said(planted_run):
    results = planted_run / "results"
    table = pd.read_csv(results / MODEL / "answer_space.tsv", sep="\t")
    rows = table.set_index("question")
    assert (rows["measured"] == rows["answers"]).all()
    assert rows.loc["q2", "share_forced"] == 1.0 and rows.loc["q2", "mass_median"] == 0.3
    for question in ("attribute", "q1", "q3"):
        assert rows.loc[question, "share_forced"] == 0.0
        assert rows.loc[question, "mass_median"] == 1.0
    overall = rows.loc["all"]
    assert overall["answers"] == rows.drop(index="all")["answers"].sum()
    share = rows.loc["q2", "answers"] / overall["answers"]
    assert overall["share_forced"] == pytest.approx(share)
    summary = (results / "summary.md").read_text()
    assert f"Answer space: {share:.0%} of the answers had less than half" in summary
    assert "q2 100%" in summary and "q1 0%" in summary


def test_the_pooled_model_recovers_the_planted_log_odds(planted_run):
    results = planted_run / "results"
    table = pd.read_csv(results / MODEL / "pooled.tsv", sep="\t")
    truth = pd.read_csv(results / MODEL / "truth.tsv", sep="\t").set_index(
        ["occupation", "quantity"]
    )["truth"]
    assert len(table) == 9 and table["converged"].all()  # 3 questions x (all, nurse, pilot)
    for row in table.itertuples():
        planted = truth[(row.occupation, f"log_odds_{row.question}")]
        assert row.low <= planted <= row.high, (row.question, row.occupation)
    each = table.set_index(["question", "occupation"])
    assert (each.xs("nurse", level="occupation")["log_odds"] > 0).all()
    assert (each.xs("pilot", level="occupation")["log_odds"] < 0).all()
    summary = (results / "summary.md").read_text()
    assert "Pooled mixed-effects model (log-odds ratio of female over male" in summary
    # the control's one pair of labels is no sample of names: not fitted
    assert pd.read_csv(results / "control" / MODEL / "pooled.tsv", sep="\t").empty
    assert "Pooled model: not fitted" in (results / "control" / "summary.md").read_text()


def test_validity_and_the_control_are_answered_from_the_plant(planted_run):
    results = planted_run / "results"
    names = pd.read_csv(results / "names" / f"{MODEL}.tsv", sep="\t")
    assert len(names) == 20 and names["p_gender"].round(6).eq(0.95).all()
    control = pd.read_csv(results / "control" / MODEL / "truth.tsv", sep="\t")
    assert (
        control.loc[control["quantity"].str.startswith("difference_"), "truth"].abs().max() < 1e-12
    )
    assert (results / "contrasts.md").is_file()


def test_the_calibration_target_runs_the_design_of_the_config(planted_run):
    snakemake(
        planted_run,
        "--configfile",
        "config.yaml",
        "--cores",
        "2",
        f"results/calibration/{MODEL}.md",
    )
    text = (planted_run / "results" / "calibration" / f"{MODEL}.md").read_text()
    assert "6 independent simulated audits" in text
    assert "2 occupations, 10 + 10 names a side" in text


def test_a_plant_the_design_lacks_stops_the_run_before_any_job(tmp_path):
    config = copy.deepcopy(CONFIG)
    config["models"][MODEL] = {
        **SIMULATED,
        "respondent": {"occupations": {"astronaut": {"q2": {"female": 1.0}}}},
    }
    result = run_tiny(tmp_path, "-n", config=config, check=False)
    assert result.returncode != 0
    assert "models.planted.respondent.occupations.astronaut: not an occupation of the design" in (
        result.stdout + result.stderr
    )
    assert not (tmp_path / "results").exists()


def test_the_local_law_144_summary_of_a_gender_only_list_is_made_on_request(planted_run):
    """Not part of the paper's default outputs; asked for, it has sex alone, and its Q1 counts
    are the step tables' (every wording's answer an applicant)."""
    results = planted_run / "results"
    assert not (results / "ll144").exists()
    snakemake(
        planted_run, "--configfile", "config.yaml", "--cores", "2", f"results/ll144/{MODEL}.md"
    )
    table = pd.read_csv(results / "ll144" / f"{MODEL}.csv")
    assert set(table["protected_characteristic"]) == {"sex"}
    step2 = pd.concat(pd.read_parquet(p) for p in (results / MODEL / "step2").glob("*/*.parquet"))
    q1 = table[table["measure"] == "selection_q1"].set_index("category")
    for gender in ("female", "male"):
        rows = step2[step2["gender"] == gender]
        assert q1.at[gender, "number_of_applicants"] == len(rows)
        assert (
            q1.at[gender, "number_selected_or_scoring_above_median"]
            == (rows["choice"] == "yes").sum()
        )
    text = (results / "ll144" / f"{MODEL}.md").read_text()
    assert "### Sex" in text and "Race/ethnicity" not in text
