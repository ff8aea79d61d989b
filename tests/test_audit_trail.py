"""The default run's audit trail: the manifest and the export checked against the run's own
files (the real workflow on the tiny config, shared with test_workflow.py)."""

from __future__ import annotations

import copy
import hashlib
import json
import subprocess
from datetime import datetime
from pathlib import Path

import pandas as pd
import pytest

from hiremeornot.asking.backends.location import locate
from hiremeornot.config import validate_config
from hiremeornot.design.contrasts import GENDER
from hiremeornot.plan import WORKFORCE_FILE
from hiremeornot.provenance import export, manifest
from tests.conftest import REPO, needs_data
from tests.helpers.workflow_runs import MODEL, OTHER_MODEL, TINY

pytestmark = [pytest.mark.slow, pytest.mark.workflow, needs_data]
STEPS = ("step1", "step2", "step3")


def sha(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def tables(results: Path, model: str, step: str) -> list[Path]:
    """A step's tables, with or without a wording folder."""
    return sorted((results / model / step).rglob("shard-*.parquet"))


@pytest.fixture(scope="module")
def trail(tiny_run) -> dict:
    results = tiny_run / "results"
    return {
        "run": tiny_run,
        "results": results,
        "manifest": json.loads((results / "manifest.json").read_text()),
        "steps": {
            (model, step): pd.concat(pd.read_parquet(p) for p in tables(results, model, step))
            for model in (MODEL, OTHER_MODEL)
            for step in STEPS
        },
    }


def test_the_manifest_records_code_environment_and_config(trail):
    built = trail["manifest"]
    head = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    git = built["project"]["git"]
    assert git["commit"] == head and isinstance(git["dirty"], bool)
    assert built["project"]["version"] == manifest.package_versions(["hiremeornot"])["hiremeornot"]
    packages = built["environment"]["packages"]
    assert set(manifest.KEY_PACKAGES) <= set(packages)
    assert packages["pandas"] == pd.__version__ and packages["snakemake"]
    expected = manifest.recorded_config(validate_config(copy.deepcopy(TINY)))
    assert built["config"] == json.loads(json.dumps(expected))
    assert built["config_sha256"] == manifest.config_sha256(built["config"])
    assert built["seeds"] == {"names.seed": 1, "report.seed": 0}


def test_every_input_file_is_recorded_with_its_true_hash_and_licence(trail):
    built = trail["manifest"]
    paths = {entry["path"] for entry in built["inputs"]}
    assert {f"onet/db_29_3_text/{name}" for name in manifest.ONET_FILES_READ} <= paths
    subjects = "ethical-interventions/word_lists/nouns/subjects"
    assert {f"{subjects}/female", f"{subjects}/male", "resources/occupations.tsv"} <= paths
    # the gender contrast is set against the workforce: its share table and crosswalk
    workforce = {WORKFORCE_FILE, "resources/workforce_crosswalk.tsv"}
    assert workforce <= paths
    assert len(paths) == len(manifest.ONET_FILES_READ) + 3 + len(workforce)
    for entry in built["inputs"]:
        assert entry["sha256"] == sha(entry["file"]), entry["path"]
        assert entry["bytes"] == Path(entry["file"]).stat().st_size
        assert entry["source"] is not None, entry["path"]
    licences = {s["source"]: s["licence"] for s in built["sources"]}
    assert licences["onet"] == "CC BY 4.0" and licences["ethical-interventions"] == "Apache-2.0"
    assert licences["fivethirtyeight-workforce"] == "CC BY 4.0"
    assert set(licences) == {
        "onet",
        "ethical-interventions",
        "occupations",
        "fivethirtyeight-workforce",
        "workforce-crosswalk",
    }
    for entry in built["dataset"] + built["step_tables"]:
        path = trail["run"] / entry["path"]
        assert entry["sha256"] == sha(path), entry["path"]
        if path.suffix == ".parquet":
            assert entry["rows"] == len(pd.read_parquet(path)), entry["path"]


def test_each_model_is_identified_and_its_questions_counted(trail):
    built = trail["manifest"]
    folder, file_name, package = locate("embedded:smollm2-135m-instruct")
    gguf = sha(folder / file_name)
    for model in (MODEL, OTHER_MODEL):
        record = built["models"][model]
        assert record["weights"]["kind"] == "embedded" and record["weights"]["package"] == package
        assert record["weights"]["files"][0]["sha256"] == gguf
        assert record["served"] == []  # a local model reports no served model id
        assert record["tables_without_job_record"] == 0
        for step in STEPS:
            table = trail["steps"][(model, step)]
            counts = record["steps"][step]
            assert counts["rows"] == len(table)
            distinct = len(
                table.assign(c=table["choices"].map(tuple))[["prompt", "c"]].drop_duplicates()
            )
            assert (
                counts["questions"] == distinct
                and counts["asked"] + counts["from_store"] == distinct
            )
        assert record["steps"]["step1"]["jobs"] == 1
    assert built["models"][MODEL]["steps"]["step2"]["jobs"] == 2  # shard_size 1: two shards
    assert built["models"][OTHER_MODEL]["identity"]["system_prompt"] == "You are a recruiter."
    run = built["run"]
    started, finished = (
        datetime.fromisoformat(run[k].replace("Z", "+00:00")) for k in ("started", "finished")
    )
    assert started < finished and run["finished"] == built["created"]
    assert run["questions"] == sum(m["questions"] for m in built["models"].values())
    assert run["jobs"] == 5 + 3  # MODEL: 1 + 2 + 2 jobs, OTHER_MODEL: 1 per step


def test_the_export_holds_every_answer_of_every_step_table(trail):
    out = trail["results"] / "export"
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.jsonl"))
    assert files == sorted(f"{m}/{s}.jsonl" for m in (MODEL, OTHER_MODEL) for s in STEPS)
    for (model, step), table in trail["steps"].items():
        lines = (out / model / f"{step}.jsonl").read_text(encoding="utf-8").splitlines()
        rows = [json.loads(line) for line in lines]
        assert len(rows) == len(table) == trail["manifest"]["models"][model]["steps"][step]["rows"]
        assert sorted(r["prompt"] for r in rows) == sorted(table["prompt"])
        assert sorted(r["answer"] for r in rows) == sorted(table["answer"])
        for row in rows:
            assert set(export.field_names(sides=GENDER)) <= set(row) and row["model"] == model
            assert row["answer"] in row["choices"] and len(row["logprobs"]) == len(row["choices"])
            assert sum(row["probabilities"]) == pytest.approx(
                1.0
            )  # the transformers backend scores every choice
            assert (
                row["name1"]
                and row["order"] in ("female_first", "male_first")
                and row["occupations"]
            )
        if step != "step1":
            assert all(row["occupation"] in ("nurse", "pilot") for row in rows)


def test_the_datasheet_and_the_summary_come_from_the_manifest(trail):
    results = trail["results"]
    readme = (results / "export" / "README.md").read_text()
    assert f"`{sha(results / 'manifest.json')}`" in readme
    for model in (MODEL, OTHER_MODEL):
        for step in STEPS:
            path = results / "export" / model / f"{step}.jsonl"
            rows = len(path.read_text().splitlines())
            assert f"| `{model}/{step}.jsonl` | {rows} | `{sha(path)}` |" in readme
    assert "CC BY 4.0" in readme and "Apache-2.0" in readme and "Gender is not observed" in readme
    summary = (results / "summary.md").read_text()
    commit = trail["manifest"]["project"]["git"]["commit"]
    assert "## Run manifest" in summary and f"commit {commit[:12]}" in summary
    assert trail["manifest"]["config_sha256"][:16] in summary


def test_the_export_loads_with_datasets(trail, tmp_path):
    datasets = pytest.importorskip("datasets")
    out = trail["results"] / "export"
    for (model, step), table in trail["steps"].items():
        loaded = datasets.load_dataset(str(out), f"{model}_{step}", cache_dir=str(tmp_path))
        assert loaded["train"].num_rows == len(table)
