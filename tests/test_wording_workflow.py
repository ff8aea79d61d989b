"""Wordings in the real workflow: two wordings of every question on the simulated respondent,
then one added (only its questions are asked) and one dropped (no model job re-runs)."""

from __future__ import annotations

import copy
import re

import pandas as pd
import pytest
import yaml

from tests.conftest import REPO, needs_data
from tests.helpers.workflow_runs import SIMULATED, TINY, copy_run, planned_jobs, run_tiny

pytestmark = [pytest.mark.slow, pytest.mark.workflow, needs_data]
MODEL = "planted"
SHIPPED = yaml.safe_load((REPO / "config/wordings.yaml").read_text())["prompts"]["wordings"]
STEPS = ("step1", "step2", "step3")


def config_with(*variants: str) -> dict:
    config = copy.deepcopy(TINY)
    config["models"] = {MODEL: {**SIMULATED, "shard_size": 1, "threads": 1}}
    config["prompts"] = {"wordings": SHIPPED, "variants": list(variants)}
    return config


def tables(run, wording: str, step: str) -> pd.DataFrame:
    paths = sorted((run / "results" / MODEL / step / wording).glob("shard-*.parquet"))
    return pd.concat([pd.read_parquet(path) for path in paths], ignore_index=True)


def asked_and_stored(run) -> tuple[int, int]:
    """Questions asked of the model and answered from the store, summed over the job logs."""
    asked = stored = 0
    for log in (run / "logs" / "ask_model" / MODEL).glob("step*/shard-*.log"):
        found = re.findall(
            r"(\d+) asked of the model, (\d+) answered from the store", log.read_text()
        )
        asked += int(found[-1][0])
        stored += int(found[-1][1])
    return asked, stored


@pytest.fixture(scope="module")
def two_wordings(tmp_path_factory):
    run = tmp_path_factory.mktemp("wordings")
    run_tiny(run, config=config_with("paper", "plain"))
    return run


def test_each_wording_is_asked_and_reported_and_pooled(two_wordings):
    run, results = two_wordings, two_wordings / "results" / MODEL
    instances = pd.read_parquet(run / "results/dataset/instances.parquet")
    for step in STEPS:
        paper, plain = tables(run, "paper", step), tables(run, "plain", step)
        assert len(paper) == len(plain) > 0
        assert set(paper["wording"]) == {"paper"} and set(plain["wording"]) == {"plain"}
        assert not set(paper["prompt"]) & set(plain["prompt"])  # every question reworded
    assert tables(run, "plain", "step3")["prompt"].str.contains("Which of them will become").any()
    outcomes = pd.read_csv(results / "outcomes.tsv", sep="\t")
    assert len(outcomes) == 2 * len(instances)
    metrics = pd.read_csv(results / "metrics.tsv", sep="\t").set_index("occupation")
    per_wording = pd.read_csv(results / "wordings/metrics.tsv", sep="\t")
    occupations = instances["occupation"].nunique()
    assert len(per_wording) == 2 * occupations and len(metrics) == occupations
    assert (metrics["n"] == len(instances) // occupations).all()
    pooled = per_wording.groupby("occupation")["difference"].mean()
    assert metrics["difference"].to_dict() == pytest.approx(pooled.to_dict())
    robustness = pd.read_csv(results / "wordings/robustness.tsv", sep="\t")
    assert len(robustness) == occupations and (robustness["wordings"] == 2).all()
    assert (run / f"results/figures/wordings_{MODEL}.png").stat().st_size > 0
    summary = (run / "results/summary.md").read_text()
    assert "Wording: 2 wordings (paper, plain)." in summary
    assert "The values pool 2 wordings of every question" in summary


def test_adding_a_wording_asks_only_its_questions_and_dropping_it_reruns_no_model_job(
    two_wordings, tmp_path
):
    run = copy_run(two_wordings, tmp_path / "run")
    before = {step: tables(run, "paper", step) for step in STEPS}
    run_tiny(run, config=config_with("paper", "plain", "formal"))
    asked, stored = asked_and_stored(run)
    assert asked == sum(len(tables(run, "formal", step)) for step in STEPS)
    assert stored == sum(len(tables(run, w, step)) for w in ("paper", "plain") for step in STEPS)
    for step in STEPS:
        pd.testing.assert_frame_equal(tables(run, "paper", step), before[step])
    dropped = planned_jobs(run_tiny(run, "-n", config=config_with("paper", "plain")).stdout)
    rules = {rule for rule, _, _ in dropped}
    assert "ask_model" not in rules and {"granted", "model_metrics", "summary"} <= rules
    run_tiny(run, config=config_with("paper", "plain"))
    per_wording = pd.read_csv(run / "results" / MODEL / "wordings/metrics.tsv", sep="\t")
    assert set(per_wording["wording"]) == {"paper", "plain"}
