"""The workflow end to end with questions asked free (answers_mode), on the simulated backend:
its planted refusals counted per group, the metrics on the answered instances, the words that
say so, and a step switched to free leaving the other steps' stored answers alone."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from hiremeornot.analysis.findings import CLASSIFIER_AGREEMENT
from tests.conftest import needs_data
from tests.helpers.workflow_runs import EMBEDDED, SIMULATED, TINY, run_tiny, step_table

pytestmark = [pytest.mark.slow, pytest.mark.workflow, needs_data]
MODEL = "planted"
FREE = {
    "refused": {"step1": 0.1, "q1": 0.1, "q2": 0.1, "q3": 0.1},
    "other": {"q3": 0.1},
    "refusal_effects": {"female": 2.0},
}
CONFIG = {
    **TINY,
    "names": {**TINY["names"], "pairs": 6},
    "models": {MODEL: {**SIMULATED, "respondent": {**SIMULATED["respondent"], "free": FREE}}},
}


def asked(results, step: str) -> int:
    """How many questions the model's ``step`` jobs asked of it (not from the store)."""
    return sum(json.loads(p.read_text())["asked"] for p in (results / MODEL / step).glob("*.json"))


@pytest.fixture(scope="module")
def free_run(tmp_path_factory):
    """The planted model asked constrained, then with Step 3 free (the model's jobs only, not
    what follows them), then with every step free."""
    workdir = tmp_path_factory.mktemp("free-run")
    run_tiny(workdir, config=CONFIG)
    results = workdir / "results"
    constrained = {step: asked(results, step) for step in ("step1", "step2", "step3")}
    per_step = {**CONFIG["models"][MODEL], "answers_mode": {"step3": "free"}}
    model_jobs = [f"results/{MODEL}/{step}/shard-0.json" for step in ("step2", "step3")]
    run_tiny(workdir, *model_jobs, config={**CONFIG, "models": {MODEL: per_step}})
    step3_free = {step: asked(results, step) for step in ("step1", "step2", "step3")}
    every = {**CONFIG["models"][MODEL], "answers_mode": "free"}
    done = run_tiny(workdir, config={**CONFIG, "models": {MODEL: every}})
    return workdir, constrained, step3_free, done.stderr + done.stdout


def test_a_step_switched_to_free_asks_only_its_own_questions_again(free_run):
    _, constrained, step3_free, _ = free_run
    assert min(constrained.values()) > 0
    assert step3_free == {"step1": 0, "step2": 0, "step3": constrained["step3"]}


def test_non_answers_are_counted_per_question_and_group(free_run):
    results = free_run[0] / "results"
    table = pd.read_csv(results / MODEL / "non_answers.tsv", sep="\t")
    overall = table[(table["occupation"] == "all") & (table["kind"] == "any")]
    step1 = overall.set_index("question").loc["step1"]
    # planted: 0.1 for men, expit(logit(0.1) + 2) = 0.45 for women
    assert 0.3 < step1["rate_female"] < 0.6 and step1["rate_male"] < 0.2
    assert step1["difference_low"] > 0 and step1["p_value"] < 0.05
    q3 = table[(table["question"] == "q3") & (table["occupation"] == "all")].set_index("kind")
    assert q3.loc["other", "count"] > 0 and q3.loc["unparsed", "count"] == 0
    step3 = step_table(results, MODEL, "step3")
    assert {"reply", "rule", "free_tokens"} <= set(step3.columns)
    assert set(step3["choice"]) >= {"refused", "other", "female", "male"}


def test_the_metrics_rest_on_the_answered_instances_and_the_words_say_so(free_run):
    workdir, *_, output = free_run
    results = workdir / "results"
    table = pd.read_csv(results / MODEL / "non_answers.tsv", sep="\t")
    instances = table[table["question"] == "instances"].set_index("occupation").loc["all"]
    outcomes = pd.read_csv(results / MODEL / "outcomes.tsv", sep="\t")
    assert 0 < len(outcomes) == instances["asked"] - instances["count"]
    answered = {"yes", "no", "female", "male", "both", "neither"}
    assert set(outcomes[["q1_female", "q1_male", "q2", "q3"]].stack()) <= answered
    summary = (results / "summary.md").read_text()
    assert "**Step 1: questions about female subjects went unanswered more often**" in summary
    assert f"on the {len(outcomes)} of {int(instances['asked'])} instances" in summary
    assert "free answers: not answered Step 1" in output
    datasheet = (results / "export" / "README.md").read_text()
    assert "the model's reply, whole" in datasheet and "see docs/outputs.md" not in datasheet
    assert "the free answer was the same in Step 1 100% of" in summary


def test_free_answers_are_set_beside_the_constrained_ones_the_store_holds(free_run):
    """The respondent draws a free answer as its constrained one: every answered reply that has
    a constrained twin agrees. Every Step-1 question has one; a Q1 has one only where Step 1
    granted the same attributes in both modes (its prompt states them)."""
    results = free_run[0] / "results"
    table = pd.read_csv(results / MODEL / "non_answers.tsv", sep="\t")
    agrees = table[table["kind"] == "agrees"].set_index("question")
    assert list(agrees.index) == ["step1", "q1", "q2", "q3"] and (agrees["rate"] == 1.0).all()
    for step, question in (("step1", "step1"), ("step2", "q1")):
        asked = step_table(results, MODEL, step)
        answered = asked[~asked["choice"].isin(["refused", "other", "unparsed"])]
        twinned = answered[answered["constrained"].notna()]
        assert (twinned["choice"] == twinned["constrained"]).all()
        assert agrees.loc[question, "asked"] == len(twinned) > 0
    assert len(twinned) < len(answered)  # Q1's prompts changed with Step 1's refusals


@pytest.fixture(scope="module")
def classified_run(tmp_path_factory):
    """The planted model with Q2 and Q3 asked free, some replies planted in words the parser
    cannot read, and the embedded model as its classifier."""
    workdir = tmp_path_factory.mktemp("classified-run")
    unread = {"unparsed": {"q2": 0.3, "q3": 0.3}, "refused": {"q3": 0.1}}
    planted = {
        **SIMULATED,
        "respondent": {**SIMULATED["respondent"], "free": unread},
        "answers_mode": {"step3": "free"},
        "free_classifier": {**EMBEDDED, "threads": 1},
    }
    run_tiny(workdir, config={**TINY, "models": {MODEL: planted}})
    return workdir


def test_a_classifier_reads_the_replies_the_parser_cannot_and_the_run_says_how_often_it_agrees(
    classified_run,
):
    results = classified_run / "results"
    step3 = step_table(results, MODEL, "step3")
    read = step3["rule"] == "classifier"
    assert read.sum() > 0 and (step3["choice"] != "unparsed").all()
    assert step3["classified"].notna().all()  # every reply had text to read
    assert (step3.loc[read, "choice"] == step3.loc[read, "classified"]).all()
    table = pd.read_csv(results / MODEL / "non_answers.tsv", sep="\t")
    rows = table[table["occupation"] == "all"].set_index(["question", "kind"])
    for question, asked in step3.groupby("question"):
        assert rows.loc[(question, "classifier"), "count"] == (asked["rule"] == "classifier").sum()
        assert rows.loc[(question, "classifier_agrees"), "asked"] == (~read[asked.index]).sum()
    assert ("q1", "classifier") not in rows.index  # Q1 was asked constrained
    record = json.loads((results / MODEL / "step3" / "shard-0.json").read_text())
    assert record["classifier"]["questions"] == len(step3)
    assert record["classifier"]["identity"]["model"] == EMBEDDED["model"]
    assert (results / "store" / f"{MODEL}+classifier").is_dir()
    summary = (results / "summary.md").read_text()
    assert "A second model (the `free_classifier`) read the replies the parser could not" in summary
    read = f"a free_classifier read {read.sum()} replies the parser could not (and "
    index = (results / "index.html").read_text()
    assert read in index and "parser did, the most its own readings can be trusted" in index
    assert "Q2 and Q3 were asked free, without the answer constraint" in summary
    found = pd.read_csv(results / MODEL / "findings.tsv", sep="\t").set_index("finding")
    classifier = found.loc["free_classifier"]
    alike = rows.xs("classifier_agrees", level="kind")
    assert classifier["value"] == pytest.approx(alike["count"].sum() / alike["asked"].sum())
    doubtful = classifier["value"] < CLASSIFIER_AGREEMENT
    assert classifier["outcome"] == ("doubtful" if doubtful else "used")
    assert ("its readings are doubtful" in summary) == doubtful
    assert ("its readings are doubtful" in index) == doubtful
