"""The workflow through the Slurm profile on a real one-node cluster (tests/slurm/start-slurm.sh).

CI starts the cluster before the tests; elsewhere the test is skipped when no cluster answers.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pandas as pd
import pytest

from tests.conftest import REPO, needs_data
from tests.helpers.workflow_runs import MODEL, TINY, run_tiny, step_tables

pytestmark = [pytest.mark.slow, pytest.mark.workflow, pytest.mark.slurm, needs_data]
# The tiny run's model whose Steps 2-3 run in shards (its other model's jobs are the same kind)
ON_SLURM = {**TINY, "models": {MODEL: TINY["models"][MODEL]}}


def cluster_is_up() -> bool:
    if shutil.which("sinfo") is None:
        return False
    state = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True)
    return state.returncode == 0 and any(
        s.startswith(("idle", "mixed", "allocated")) for s in state.stdout.split()
    )


@pytest.fixture(scope="module")
def cluster():
    if not cluster_is_up():
        if os.environ.get("CI"):
            pytest.fail("no Slurm cluster: .ci/run starts one with tests/slurm/start-slurm.sh")
        pytest.skip("no Slurm cluster (start one as root: bash tests/slurm/start-slurm.sh)")


def test_slurm_run_equals_the_local_run(cluster, tiny_run, tmp_path):
    workdir = tmp_path / "slurm-run"
    workdir.mkdir()
    result = run_tiny(
        workdir,
        "--profile",
        str(REPO / "profiles/slurm"),
        # this cluster has no accounting database (no sacct): poll with squeue
        "--slurm-status-command",
        "squeue",
        "--slurm-init-seconds-before-status-checks",
        "1",
        "--jobs",
        "4",
        config=ON_SLURM,
    )
    submitted = re.findall(
        r"has been submitted with SLURM jobid (\d+)", result.stdout + result.stderr
    )
    # the model jobs: Step 1 (one job), Steps 2-3 in 2 shards each; every cheap rule is local
    assert len(submitted) == 1 + 2 + 2
    local = pd.read_csv(tiny_run / "results/metrics.tsv", sep="\t")
    remote = pd.read_csv(workdir / "results/metrics.tsv", sep="\t")
    pd.testing.assert_frame_equal(local[local["model"] == MODEL].reset_index(drop=True), remote)
    for step in ("step1", "step2", "step3"):
        mine = [pd.read_parquet(p) for p in step_tables(workdir / "results", MODEL, step)]
        theirs = [pd.read_parquet(p) for p in step_tables(tiny_run / "results", MODEL, step)]
        assert len(mine) == len(theirs) > 0
        for a, b in zip(mine, theirs, strict=True):
            pd.testing.assert_frame_equal(a, b, check_exact=False, atol=1e-4)
