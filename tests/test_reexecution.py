"""Editing prompts or model settings re-runs exactly the affected jobs (real Snakemake runs)."""

from __future__ import annotations

import copy

import pandas as pd
import pytest

from hiremeornot.config import validate_config
from hiremeornot.tables_io import read_job_record
from tests.conftest import needs_data
from tests.helpers.workflow_runs import (
    MODEL,
    OTHER_MODEL,
    TINY,
    copy_run,
    planned_jobs,
    run_tiny,
    step_tables,
)

pytestmark = [pytest.mark.slow, pytest.mark.workflow, needs_data]
DOWNSTREAM = {
    "attribute_gaps",  # its figure's footer carries the findings' caveats
    "model_metrics",
    "metrics_table",
    "model_statistics",
    "figures",
    "difference_table",
    "summary",
    "answer_space",
    "non_answers",
    "findings",
    "alignment",  # each occupation's result against who holds the job
    "first_page",
    "pooled_model",
    "manifest",
    "export",
    "all",
}


def edited(**prompts) -> dict:
    config = copy.deepcopy(TINY)
    config["prompts"] = {**validate_config(copy.deepcopy(TINY))["prompts"], **prompts}
    return config


def asked(jobs):
    return sorted((w["model"], w["step"], w["shard"]) for rule, w, _ in jobs if rule == "ask_model")


def test_editing_nothing_reruns_nothing(tiny_run, tmp_path):
    run = copy_run(tiny_run, tmp_path / "run")
    result = run_tiny(run, "-n")
    assert planned_jobs(result.stdout) == []


def test_editing_only_resources_reruns_nothing(tiny_run, tmp_path):
    """threads, mem_mb and runtime are marked x-role: resource: they change no output."""
    run = copy_run(tiny_run, tmp_path / "run")
    config = copy.deepcopy(TINY)
    config["models"][MODEL].update(threads=2, mem_mb=9000, runtime=30)
    assert planned_jobs(run_tiny(run, "-n", config=config).stdout) == []


def test_editing_q1_reruns_only_step2_and_what_depends_on_it(tiny_run, tmp_path):
    run = copy_run(tiny_run, tmp_path / "run")
    config = edited(q1="Should {subject} be hired as {a_occupation}?")
    jobs = planned_jobs(run_tiny(run, "-n", config=config).stdout)
    assert asked(jobs) == [
        (MODEL, "step2", "0"),
        (MODEL, "step2", "1"),
        (OTHER_MODEL, "step2", "0"),
    ]
    for rule, _, reason in jobs:
        assert rule == "ask_model" or rule in DOWNSTREAM
        if rule == "ask_model":
            assert "Params have changed since last execution" in reason


def test_editing_the_step1_question_reruns_steps_2_and_3_through_its_answers(tiny_run, tmp_path):
    run = copy_run(tiny_run, tmp_path / "run")
    config = edited(attribute_question="Does {subject} have the {attribute} {attribute_type}?")
    jobs = planned_jobs(run_tiny(run, "-n", config=config).stdout)
    every_job = [
        (m, step, "0") for m in (MODEL, OTHER_MODEL) for step in ("step1", "step2", "step3")
    ]
    assert asked(jobs) == sorted([*every_job, (MODEL, "step2", "1"), (MODEL, "step3", "1")])
    for rule, wildcards, reason in jobs:
        if rule == "ask_model" and wildcards["step"] != "step1":
            assert "updated by another job" in reason and "step1/shard-0.json" in reason


def test_editing_one_models_settings_reruns_only_that_model(tiny_run, tmp_path):
    run = copy_run(tiny_run, tmp_path / "run")
    config = copy.deepcopy(TINY)
    config["models"][OTHER_MODEL]["system_prompt"] = "You are a fair recruiter."
    jobs = planned_jobs(run_tiny(run, "-n", config=config).stdout)
    assert asked(jobs) == [(OTHER_MODEL, step, "0") for step in ("step1", "step2", "step3")]
    assert [w["model"] for rule, w, _ in jobs if rule in {"model_metrics", "difference_table"}] == [
        OTHER_MODEL,
        OTHER_MODEL,
    ]


def test_a_rerun_job_asks_only_its_changed_prompts(tiny_run, tmp_path):
    run = copy_run(tiny_run, tmp_path / "run")
    step1_log = (run / f"logs/ask_model/{MODEL}/step1/shard-0.log").read_text()
    run_tiny(run, config=edited(q3="Who will get the job of {a_occupation}?"))
    for shard, instances in (("0", 4), ("1", 4)):
        log = (run / f"logs/ask_model/{MODEL}/step3/shard-{shard}.log").read_text()
        # Q2 prompts did not change: from the store; Q3 prompts did: asked
        expected = (
            f"{2 * instances} distinct questions, {instances} asked of the model, "
            f"{instances} answered from the store"
        )
        assert expected in log, log[-500:]
    assert (run / f"logs/ask_model/{MODEL}/step1/shard-0.log").read_text() == step1_log
    step3 = pd.read_parquet(run / f"results/{MODEL}/step3/paper/shard-0.parquet")
    assert step3[step3["question"] == "q3"]["prompt"].str.contains("get the job of a").all()


def test_a_damaged_step_table_is_set_aside_and_remade_from_the_store(tiny_run, tmp_path):
    """A truncated step table (as a full disk leaves it) is named, kept as <name>.damaged and
    re-made, its answers from the store, with what reads it; the run never looks finished."""
    run = copy_run(tiny_run, tmp_path / "run")
    table = step_tables(run / "results", MODEL, "step2")[0]
    original = pd.read_parquet(table)
    table.write_bytes(table.read_bytes()[:100])
    result = run_tiny(run, "-n")
    message = f"results/{MODEL}/step2/paper/{table.name}: a damaged table"
    assert message in result.stdout + result.stderr, result.stdout
    assert table.with_name(table.name + ".damaged").is_file() and not table.exists()
    jobs = planned_jobs(result.stdout)
    assert (MODEL, "step2", "0") in asked(jobs)
    assert {rule for rule, _, _ in jobs} >= {"model_metrics", "summary", "all"}
    run_tiny(run)
    remade = pd.read_parquet(table)
    pd.testing.assert_frame_equal(remade, original)
    record = read_job_record(table)
    assert record["asked"] == 0 and record["from_store"] == record["questions"] > 0
    assert planned_jobs(run_tiny(run, "-n").stdout) == []
