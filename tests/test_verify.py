"""Tamper evidence: a step table changed after its job wrote it is refused before anything is
made from it, and `hiremeornot verify` lists every difference between a finished run and its
record (the manifest's hashes, the tables' seals, the response store)."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

from hiremeornot.tables_io import seal_of, sha256_file
from tests.conftest import needs_data
from tests.helpers.workflow_runs import MODEL, copy_run, snakemake, step_tables

pytestmark = [pytest.mark.slow, pytest.mark.workflow, needs_data]


def verify(workdir) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "hiremeornot", "verify", "--results", "results"]
    return subprocess.run(command, cwd=workdir, capture_output=True, text=True)


def flip_first_answer(path) -> None:
    """Rewrite a step table with its first answer changed, as an editor with pandas would."""
    table = pd.read_parquet(path)
    words = [word for word in table.loc[0, "choices"] if word != table.loc[0, "answer"]]
    table.loc[0, "answer"] = words[0]
    table.to_parquet(path, index=False)


def test_a_finished_run_verifies_and_every_kind_of_change_is_listed(tiny_run, tmp_path):
    run = copy_run(tiny_run, tmp_path / "run")
    clean = verify(run)
    assert clean.returncode == 0, clean.stderr
    assert "files match the manifest and" in clean.stderr
    step2 = step_tables(run / "results", MODEL, "step2")[0]
    step3 = step_tables(run / "results", MODEL, "step3")[0]
    flip_first_answer(step2)  # its seal now differs
    flip_first_answer(step3)  # and a forger who writes the seal anew
    seal_of(step3).write_text(sha256_file(step3) + "\n")
    extra = step2.with_name("shard-9.parquet")
    extra.write_bytes(step2.read_bytes())
    manifest = json.loads((run / "results" / "manifest.json").read_text())
    dataset = run / manifest["dataset"][0]["path"]
    dataset.unlink()
    found = verify(run)
    assert found.returncode == 1
    lines = found.stderr.strip().splitlines()
    relative = {path: str(path.relative_to(run)) for path in (step2, step3, extra, dataset)}
    assert any(f"{relative[step2]}: changed since the manifest was written" in x for x in lines)
    assert any(f"{relative[step2]}: changed after its job wrote it" in x for x in lines)
    assert any(f"{relative[step3]}: changed since the manifest was written" in x for x in lines)
    assert any(
        f"{relative[step3]}: 1 answer(s) differ from the store's, e.g. to" in x for x in lines
    )
    assert any(f"{relative[extra]}: not in the manifest" in x for x in lines)
    assert any(f"{relative[dataset]}: missing (the manifest lists it)" in x for x in lines)
    assert lines[-1].startswith("hiremeornot: ") and "difference(s) between results" in lines[-1]


def test_a_step_table_changed_after_its_job_is_refused_before_anything_is_made_from_it(
    tiny_run, tmp_path
):
    run = copy_run(tiny_run, tmp_path / "run")
    metrics = (run / "results" / "metrics.tsv").read_text()
    table = step_tables(run / "results", MODEL, "step2")[0]
    flip_first_answer(table)
    result = snakemake(run, "--configfile", "config.yaml", "--cores", "2", check=False)
    assert result.returncode != 0
    logs = "".join(path.read_text() for path in (run / "logs").rglob("*.log"))
    assert f"{table.relative_to(run)}: changed after its job wrote it" in logs + result.stderr
    published = run / "results" / "metrics.tsv"
    assert not published.exists() or published.read_text() == metrics
