"""Run the real Snakemake workflow on a tiny config with the embedded model."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import yaml

from hiremeornot.tables_io import read_tables
from tests.conftest import OCCUPATIONS_TABLE, REPO, SHARED_DATA

MODEL = "smollm2-135m"
OTHER_MODEL = "smollm2-recruiter"
EMBEDDED = {"backend": "transformers", "model": "embedded:smollm2-135m-instruct", "batch_size": 8}
# A simulated respondent (no model to load) that favours women in every question and occupation.
PLANTED = {"effects": {q: {"female": 0.8} for q in ("q1", "q2", "q3")}, "position": 0.5}
SIMULATED = {"backend": "simulated", "model": "planted", "respondent": PLANTED}
TINY = {
    "local_data": str(SHARED_DATA),
    "occupations": {"table": str(OCCUPATIONS_TABLE), "select": ["nurse", "pilot"]},
    "workforce": {"crosswalk": str(REPO / "resources" / "workforce_crosswalk.tsv")},
    "attributes": {"per_type": 2},
    "names": {
        "list": "ethical-interventions",
        "pairs": 2,
        "seed": 1,
        "orders": ["female_first", "male_first"],
    },
    "models": {
        MODEL: {**EMBEDDED, "shard_size": 1, "threads": 1},
        OTHER_MODEL: {**EMBEDDED, "system_prompt": "You are a recruiter.", "threads": 1},
    },
    "report": {"difference_threshold": 0.0},
}


def snakemake(
    workdir: Path, *args: str, timeout: int = 1800, check: bool = True, path: str | None = None
) -> subprocess.CompletedProcess:
    """Run Snakemake on the repository's workflow with this interpreter, ``PATH`` as given
    (default: the caller's)."""
    command = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), *args]
    env = {**os.environ, "PATH": os.environ["PATH"] if path is None else path}
    result = subprocess.run(
        ["timeout", "-k", "10", str(timeout), *command],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
    )
    if check:
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


def run_tiny(
    workdir: Path, *args: str, config: dict | None = None, check: bool = True
) -> subprocess.CompletedProcess:
    """Write the (tiny) config into workdir and run the workflow there on 2 cores."""
    (workdir / "config.yaml").write_text(yaml.safe_dump(config or TINY))
    return snakemake(workdir, "--configfile", "config.yaml", "--cores", "2", *args, check=check)


def copy_run(source: Path, target: Path) -> Path:
    """A copy of a finished run (results, logs, Snakemake's metadata) to change freely."""
    shutil.copytree(source, target, symlinks=True)
    return target


def planned_jobs(output: str) -> list[tuple[str, dict[str, str], str]]:
    """(rule, wildcards, reason) of each job of a dry run's output."""
    jobs = []
    for block in re.split(r"\n(?=rule \w+:)", output):
        rule = re.match(r"rule (\w+):", block)
        if not rule:
            continue
        wildcards = re.search(r"wildcards: (.*)", block)
        pairs = dict(p.split("=", 1) for p in wildcards.group(1).split(", ")) if wildcards else {}
        reason = re.search(r"reason: (.*)", block)
        jobs.append((rule.group(1), pairs, reason.group(1) if reason else ""))
    return jobs


def step_tables(results: Path, model: str, step: str) -> list[Path]:
    return sorted((results / model / step).glob("*/shard-*.parquet"))


def step_table(results: Path, model: str, step: str) -> pd.DataFrame:
    """A model's tables of a step (every wording and shard), one after the other."""
    return read_tables(step_tables(results, model, step))
