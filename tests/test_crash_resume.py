"""kill -9 a Step-1 job mid-shard: the re-run completes and re-asks nothing that was stored."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from hiremeornot.asking.store import ResponseStore
from hiremeornot.config import validate_config
from hiremeornot.design.contrasts import GENDER, GENDER_CONTRAST
from hiremeornot.design.dataset import build_instances
from hiremeornot.inputs.occupations import select_occupations
from hiremeornot.inputs.onet import extract_attributes
from hiremeornot.plan import step_settings
from hiremeornot.tables_io import write_table
from tests.conftest import OCCUPATIONS_TABLE, ONET_DIR, REPO, gender_pairs, needs_data

pytestmark = [pytest.mark.slow, needs_data]


def stored(store: Path) -> int:
    return len(ResponseStore(store))


def test_killed_step1_job_resumes_without_asking_twice(tmp_path):
    occupations = select_occupations(OCCUPATIONS_TABLE, ["nurse", "pilot"])
    pairs = gender_pairs("ethical-interventions", 2, 1)
    write_table(
        build_instances(occupations, pairs, ["female_first", "male_first"], sides=GENDER),
        tmp_path / "instances.parquet",
    )
    codes = sorted(set(occupations["soc_code"]))
    attributes = extract_attributes(ONET_DIR, codes, 2, suppressed="keep")
    write_table(attributes, tmp_path / "attributes.tsv")
    config = validate_config(yaml.safe_load((REPO / "config.yaml").read_text()))
    model = "smollm2-135m"
    config["models"][model]["batch_size"] = 4
    output, store = (
        tmp_path / model / "step1" / "paper" / "shard-0.parquet",
        tmp_path / "store" / model,
    )
    command = [
        sys.executable,
        "-m",
        "hiremeornot",
        "step",
        "--step",
        "step1",
        "--model",
        model,
        "--shard",
        "0",
        "--settings",
        json.dumps(step_settings(config, model, "step1")),
        "--instances",
        str(tmp_path / "instances.parquet"),
        "--attributes",
        str(tmp_path / "attributes.tsv"),
        "--store-dir",
        str(tmp_path / "store"),
        "--contrast",
        json.dumps(GENDER_CONTRAST.as_dict()),
        "--out",
        str(output),
        "--record",
        str(tmp_path / "step1.json"),
    ]
    job = subprocess.Popen(command, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while stored(store) < 12 and job.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(job.pid, signal.SIGKILL)
    job.wait()
    before_kill = stored(store)
    total = 2 * 2 * 2 * len(attributes[["element_id", "attribute_type"]].drop_duplicates())
    assert 0 < before_kill < total, "the job must be killed mid-shard"
    assert not output.exists() and not list(tmp_path.glob(".*partial*"))
    assert not (tmp_path / "step1.json").exists()

    rerun = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    line = re.search(
        r"(\d+) distinct questions, (\d+) asked of the model, (\d+) answered", rerun.stderr
    )
    assert tuple(map(int, line.groups())) == (total, total - before_kill, before_kill)
    assert stored(store) == total
    assert len(pd.read_parquet(output)) == total
    record = json.loads((tmp_path / "step1.json").read_text())
    assert (record["asked"], record["from_store"]) == (total - before_kill, before_kill)
