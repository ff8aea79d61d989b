"""Interventions end to end on the simulated respondent: an arm added to a finished run asks only
its own questions, leaves the baseline's files as they were, and recovers the planted effect of
the instruction; with race contrasts and the neutral control every contrast gets its arm."""

from __future__ import annotations

import copy
import hashlib
import re
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import needs_data
from tests.helpers.workflow_runs import PLANTED, SIMULATED, TINY, planned_jobs, run_tiny

pytestmark = [pytest.mark.slow, pytest.mark.workflow, needs_data]
MODEL = "planted"
ARM = f"{MODEL}+fair"
# women favoured in every question; the instruction takes the bias away (scale 0)
RESPONDENT = {**PLANTED, "effects": {q: {"female": 1.2} for q in ("q1", "q2", "q3")}}
RESPONDENT["interventions"] = {"fair": {"scale": 0.0}}
FAIR = {"preamble": "Hiring must not depend on gender.", "rationale": "a test of the preamble"}
BASELINE = {
    **TINY,
    "names": {**TINY["names"], "pairs": "all"},
    "prompts": {
        "wordings": {"plain": {"q2": "Which of the two is better for {a_occupation}?"}},
        "variants": ["paper", "plain"],
    },
    "models": {MODEL: {**SIMULATED, "respondent": RESPONDENT}},
    "interventions": {"instructions": {"fair": FAIR}},
}
WITH_ARM = copy.deepcopy(BASELINE)
WITH_ARM["interventions"]["run"] = ["none", "fair"]


def digests(results) -> dict[str, str]:
    """The baseline model's own files (its folder, difference table, figures) by path."""
    paths = [p for p in (results / MODEL).rglob("*") if p.is_file() and p.suffix != ".json"]
    paths += list((results / "tables").glob(f"difference_{MODEL}.*"))
    paths += list((results / "figures").glob(f"*_{MODEL}.png"))
    return {str(p.relative_to(results)): hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


@pytest.fixture(scope="module")
def armed(tmp_path_factory):
    """A finished baseline run, then the same run with the arm added; the baseline's digests
    before, the dry run's jobs in between."""
    workdir = tmp_path_factory.mktemp("intervention-run")
    run_tiny(workdir, config=BASELINE)
    before = digests(workdir / "results")
    planned = planned_jobs(run_tiny(workdir, "-n", config=WITH_ARM).stdout)
    run_tiny(workdir, config=WITH_ARM)
    return workdir / "results", before, planned


def test_adding_an_arm_asks_only_its_questions_and_leaves_the_baseline_as_it_was(armed):
    results, before, planned = armed
    asked = {wildcards["model"] for rule, wildcards, _ in planned if rule == "ask_model"}
    assert asked == {ARM}
    # of the baseline's jobs only the new: its selections (for the rates' changes) and the effect
    baseline = {
        rule: reason for rule, wildcards, reason in planned if wildcards.get("model") == MODEL
    }
    assert set(baseline) == {"selections", "intervention"}
    assert baseline["selections"].startswith("Missing output files")
    after = digests(results)
    assert {path: after[path] for path in before} == before
    prompts = pd.read_parquet(next((results / ARM / "step2" / "plain").glob("*.parquet")))
    assert prompts["prompt"].str.startswith(FAIR["preamble"] + " ").all()


def test_the_arm_has_every_output_of_a_model(armed):
    results, _, _ = armed
    for path in [
        "metrics.tsv",
        "tests.tsv",
        "intervals.tsv",
        "truth.tsv",
        "wordings/robustness.tsv",
    ]:
        assert (results / ARM / path).is_file(), path
    assert (results / "tables" / f"difference_{ARM}.md").is_file()
    metrics = pd.read_csv(results / "metrics.tsv", sep="\t")
    assert set(metrics["model"]) == {MODEL, ARM}


def test_the_planted_effect_of_the_instruction_is_recovered(armed):
    results, _, _ = armed
    changes = pd.read_csv(results / "interventions" / f"{ARM}.tsv", sep="\t")
    truth = {
        model: pd.read_csv(results / model / "truth.tsv", sep="\t").set_index(
            ["occupation", "quantity"]
        )["truth"]
        for model in (MODEL, ARM)
    }
    for row in changes.itertuples():
        quantity = row.metric if row.metric != "difference" else "difference_biased"
        planted = truth[ARM][(row.occupation, quantity)] - truth[MODEL][(row.occupation, quantity)]
        assert row.low <= planted <= row.high, (row.occupation, row.metric)
    gap = changes[changes["metric"] == "difference"].set_index("occupation")
    assert truth[ARM][("(all)", "difference_biased")] == pytest.approx(0, abs=1e-9)
    assert (gap["change"] < 0).all() and (gap["mean_a"] > 0).all()
    # 2 wordings pooled as a random factor: the test's floor is 0.5, so nothing is significant
    assert (gap["outcome"] == "no detectable change").all() and (gap["mdd"] == float("inf")).all()
    rates = pd.read_csv(results / "interventions" / f"{ARM}_rates.tsv", sep="\t")
    planted = [
        truth[ARM][(r.occupation, f"rate_{r.question}_{r.group}")]
        - truth[MODEL][(r.occupation, f"rate_{r.question}_{r.group}")]
        for r in rates.itertuples()
    ]
    covered = (rates["rate_change_low"] <= planted) & (planted <= rates["rate_change_high"])
    assert covered.mean() >= 0.9, rates[~covered]
    pooled = rates[rates["occupation"] == "(all)"].set_index(["question", "group"])
    # the women lose their Q1 advantage; in Q2, a choice of one, the men gain what they lose
    assert (
        pooled.loc[("q1", "female"), "rate_change"] < 0 < pooled.loc[("q2", "male"), "rate_change"]
    )
    flips = pd.read_csv(results / "interventions" / f"{ARM}_flips.tsv", sep="\t")
    total = flips.set_index("step").loc["all"]
    # every Step-1 question reads the same less the preamble; a Step-2/3 one only where both
    # arms' Step 1 granted the same attributes (else it changed through Step 1)
    step1 = flips.set_index("step").loc["step1"]
    assert step1["identical"] == step1["questions"] > 0 and step1["through_step1"] == 0
    assert total["through_step1"] == total["questions"] - total["identical"] > 0


def test_the_summary_and_the_report_say_what_the_instruction_did(armed):
    results, _, _ = armed
    summary = (results / "summary.md").read_text()
    assert "## Interventions" in summary and f"**{ARM}** (before every prompt's context)" in summary
    assert f"(interventions/{ARM}.md)" in summary and "no detectable change" in summary
    text = (results / "interventions" / f"{ARM}.md").read_text()
    assert FAIR["preamble"] in text and FAIR["rationale"] in text
    assert "Too few names to test" in text and "## Selection rates and impact ratios" in text
    assert (results / "interventions" / f"{ARM}.png").stat().st_size > 10_000
    page = (results / "index.html").read_text()
    assert '<h2 id="interventions">' in page and f'href="interventions/{ARM}.md"' in page
    assert f'<a href="#{ARM}">{ARM}</a>' in page  # the arm has its row, as a model


def test_an_unknown_intervention_stops_the_run_before_any_job(tmp_path):
    bad = copy.deepcopy(WITH_ARM)
    bad["interventions"]["run"] = ["fair", "kind"]
    result = run_tiny(tmp_path, "-n", config=bad, check=False)
    assert result.returncode != 0
    assert "interventions.run: unknown intervention 'kind'" in result.stdout + result.stderr
    assert not (tmp_path / "results").exists()


RACES = {
    **TINY,
    "occupations": {**TINY["occupations"], "select": ["nurse"]},
    "names": {
        "list": "bloomberg",
        "contrast": [{"a": {"race": "Black"}, "b": {"race": "White"}}],
        "pairs": 2,
        "seed": 0,
    },
    "models": {
        MODEL: {
            **SIMULATED,
            "respondent": {
                **PLANTED,
                "effects": {q: {"Black": 0.8} for q in ("q1", "q2", "q3")},
                "interventions": {"fair": {"scale": 0.5}},
            },
        }
    },
    "control": {"neutral": True},
    "interventions": {"run": ["fair"], "instructions": {"fair": {"system": "Be fair."}}},
}


def test_every_contrast_and_the_control_get_the_arm(tmp_path):
    contrast = Path("results/contrasts/black-minus-white-matched-on-gender")
    control = Path("results/control")
    read = [contrast / "interventions" / f"{ARM}_rates.tsv", contrast / "summary.md"]
    read += [control / "interventions" / f"{ARM}{end}" for end in ("_rates.tsv", ".md")]
    read += [Path("results/ll144", f"{ARM}.md"), Path("results/impact", f"{ARM}.md")]
    run_tiny(tmp_path, *map(str, read), config=RACES)  # what is read here, not every figure
    contrast, control = tmp_path / contrast, tmp_path / control
    rates = pd.read_csv(contrast / "interventions" / f"{ARM}_rates.tsv", sep="\t")
    # each person's group is the list's (race and gender), as in the impact ratios
    assert set(rates["group"]) == {
        f"{r} {g}" for r in ("Black", "White") for g in ("female", "male")
    }
    labels = pd.read_csv(control / "interventions" / f"{ARM}_rates.tsv", sep="\t")
    assert labels.empty  # the neutral labels have no groups
    assert all((tmp_path / path).is_file() for path in read)
    summary = (contrast / "summary.md").read_text()
    assert f"**{ARM}** (added to the system message)" in summary


def test_the_html_report_has_each_arms_effect(armed):
    results, _, _ = armed
    run_tiny(results.parent, "--report", "results/report.html", config=WITH_ARM)
    text = re.sub(r"(\s|\\n)+", " ", (results / "report.html").read_text())
    assert "Interventions" in text and f"{ARM}_rates.tsv" in text
    assert "An intervention arm against its baseline" in text
