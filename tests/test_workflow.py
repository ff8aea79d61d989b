"""The real Snakemake workflow with the embedded model on a tiny config (a few minutes)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.conftest import OCCUPATIONS_TABLE, REPO, SHARED_DATA

pytestmark = pytest.mark.slow
MODEL = "smollm2-135m"
TINY = {
    "local_data": str(SHARED_DATA),
    "occupations": {"table": str(OCCUPATIONS_TABLE), "select": ["nurse", "pilot"]},
    "attributes": {"per_type": 2},
    "names": {
        "list": "ethical-interventions",
        "pairs": 2,
        "seed": 1,
        "orders": ["female_first", "male_first"],
    },
    "models": {
        MODEL: {
            "backend": "transformers",
            "model": "embedded:smollm2-135m-instruct",
            "shard_size": 1,
            "batch_size": 8,
            "threads": 1,
        }
    },
    "report": {"difference_threshold": 0.0},
}


def snakemake(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    """Run Snakemake on the repository's workflow; its shell rules find this venv's CLI."""
    command = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), *args]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(
        command, cwd=workdir, env=env, capture_output=True, text=True, timeout=1800
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


def run_tiny(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    return snakemake(workdir, "--configfile", "config.yaml", "--cores", "2", *args)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("audit")
    (workdir / "config.yaml").write_text(yaml.safe_dump(TINY))
    run_tiny(workdir)
    return workdir


def test_every_output_with_its_row_counts(run):
    results = run / "results"
    attributes = pd.read_csv(results / "dataset/attributes.tsv", sep="\t")
    assert len(attributes) == 2 * 3 * 2  # 2 occupations x 3 types x top 2
    assert len(pd.read_csv(results / "dataset/pairs.tsv", sep="\t")) == 2
    instances = pd.read_parquet(results / "dataset/instances.parquet")
    assert len(instances) == 2 * 2 * 2  # occupations x pairs x orders
    step1 = pd.concat(
        pd.read_parquet(p) for p in sorted((results / MODEL / "step1").glob("*.parquet"))
    )
    step2 = pd.concat(
        pd.read_parquet(p) for p in sorted((results / MODEL / "step2").glob("*.parquet"))
    )
    step3 = pd.concat(
        pd.read_parquet(p) for p in sorted((results / MODEL / "step3").glob("*.parquet"))
    )
    # Step 1 asks each distinct question once: pair x order x subject x distinct attribute
    distinct_attributes = len(attributes[["element_id", "attribute_type"]].drop_duplicates())
    assert len(step1) == 2 * 2 * 2 * distinct_attributes
    assert step1["prompt"].is_unique
    assert len(step2) == 8 * 2 and len(step3) == 8 * 2
    assert set(step1["answer"]) <= {"Yes", "No"} and set(step1["choice"]) <= {"yes", "no"}
    assert set(step3["choice"]) <= {"female", "male", "both", "neither"}
    assert step3[step3["question"] == "q2"]["choice"].isin(["female", "male"]).all()
    assert step1[["logprob_yes", "logprob_no"]].lt(0).all().all()
    metrics = pd.read_csv(results / "metrics.tsv", sep="\t")
    assert sorted(metrics["occupation"]) == ["nurse", "pilot"] and (metrics["n"] == 4).all()
    assert metrics[["confirmation", "consistency"]].stack().between(0, 1).all()
    assert len(pd.read_csv(results / MODEL / "outcomes.tsv", sep="\t")) == 8
    difference = pd.read_csv(results / f"tables/difference_{MODEL}.tsv", sep="\t")
    assert len(difference) == (metrics["difference"].abs() > 0).sum()
    assert (results / f"tables/difference_{MODEL}.md").read_text().startswith("Occupations with")
    for name in ("fig3_confirmation", "fig4_consistency", "fig5_confirmation_vs_consistency"):
        assert (results / f"figures/{name}.png").read_bytes()[:4] == b"\x89PNG"
    assert (results / f"tables/difference_{MODEL}.png").stat().st_size > 1000
    summary = (results / "summary.md").read_text()
    assert "not evidence about any real model" in summary


def test_logs_show_progress_and_a_summary_line(run):
    log = (run / f"logs/ask_model/{MODEL}/step1/shard-0.log").read_text()
    assert "q/s" in log or "it/s" in log
    assert re.search(
        r"step1 shard 0: \d+ distinct questions, \d+ asked of the model, 0 answered", log
    )


def test_nothing_reruns_and_a_forced_rerun_asks_the_model_nothing(run):
    dry = run_tiny(run, "-n")
    assert "Nothing to be done" in dry.stdout + dry.stderr
    run_tiny(run, "--forceall")
    logs = sorted((run / f"logs/ask_model/{MODEL}").glob("step*/shard-*.log"))
    assert len(logs) == 6  # 3 steps x 2 shards
    for path in logs:
        log = path.read_text()
        assert re.search(r"(\d+) distinct questions, 0 asked of the model, \1 answered", log), path
        assert "Loading weights" not in log, path  # the model was never loaded


def test_paper_size_config_plans_in_a_few_thousand_jobs():
    result = snakemake(
        REPO,
        "-n",
        "--quiet",
        "rules",
        "--configfile",
        "config/paper-size.yaml",
        "--replace-workflow-config",
        "--config",
        f"local_data={SHARED_DATA}",
    )
    counts = dict(re.findall(r"^(\w+)\s+(\d+)$", result.stdout + result.stderr, re.M))
    # 62 occupations in shards of 8, 4 and 2 for the three models, three steps each
    assert int(counts["ask_model"]) == 3 * (8 + 16 + 31)
    assert int(counts["occupation_attributes"]) == 56  # distinct O*NET codes
    assert int(counts["total"]) <= 3000
