"""Shared fixtures: the real offline data lies in ../shared/data beside the checkout."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

from hiremeornot.config import schema
from hiremeornot.design.contrasts import GENDER_CONTRAST, contrast_pairs
from hiremeornot.inputs.names import read_name_list

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
ONET_DIR = SHARED_DATA / "onet" / "db_29_3_text"
OCCUPATIONS_TABLE = REPO / "resources" / "occupations.tsv"


# Tests that read the real data are skipped, not failed, where ../shared/data is missing.
needs_data = pytest.mark.skipif(
    not ONET_DIR.is_dir(), reason=f"needs the shared data at {SHARED_DATA}"
)


def subjects_dir(name_list: str) -> Path:
    return SHARED_DATA / name_list / "word_lists" / "nouns" / "subjects"


# The built-in name lists' settings (sources.names), as the schema declares them.
NAME_SOURCES = schema()["properties"]["sources"]["properties"]["names"]["default"]


def run_dataset(root: Path, female: str, male: str, *options: str) -> tuple[int, Path]:
    """The name-list and dataset commands on a list ``mine`` of UnQover's format under ``root``
    (its female and male files' text), for nurse, all pairs, female first; the exit code of
    the first that fails (or 0) and the folder."""
    from hiremeornot.cli import main

    folder = root / "mine" / "word_lists" / "nouns" / "subjects"
    folder.mkdir(parents=True)
    (folder / "female").write_text(female)
    (folder / "male").write_text(male)
    reading = {
        "list": "mine",
        "source": {"format": "unqover", "folder": "mine", "url": "-"},
        "answers": {"yes": "Yes", "no": "No", "both": "both", "neither": "neither"},
    }
    listed = root / "names.parquet"
    code = main(
        ["name-list", "--settings", json.dumps(reading), "--data-root", str(root)]
        + ["--out", str(listed)]
    )
    if code:
        return code, folder
    settings = {"select": ["nurse"], "pairs": "all", "seed": 0, "orders": ["female_first"]}
    command = ["dataset", "--settings", json.dumps({**settings, "list": "mine"})]
    command += ["--contrast", json.dumps(GENDER_CONTRAST.as_dict()), "--occupations"]
    command += [str(OCCUPATIONS_TABLE), "--names", str(listed), *options]
    command += ["--out-pairs", str(root / "p.tsv"), "--out-capacity", str(root / "c.json")]
    command += ["--out", str(root / "i.parquet")]
    return main(command), folder


def name_table(name_list: str) -> pd.DataFrame:
    """A built-in name list read from the shared data, as the dataset rule reads it."""
    return read_name_list(SHARED_DATA, NAME_SOURCES[name_list], name_list)


def gender_pairs(name_list: str, pairs: int | str, seed: int) -> pd.DataFrame:
    """Female x male pairs of a gender-only list, as the default config builds them."""
    return contrast_pairs(name_table(name_list), GENDER_CONTRAST, pairs, seed)


@pytest.fixture(scope="session")
def onet_dir() -> Path:
    return ONET_DIR


# The test files that take a minute or more, longest first (seconds each took in CI at d56e63f,
# docs/testing.md): handed out first, so that no long file starts last on one worker while the
# other idles. Every other file follows in collection order. The vLLM file, first, makes the
# shared tiny run (it reads its questions), about 120 s; the next files need none, so the other
# worker does not wait for it.
LONGEST_FIRST = (
    "test_vllm_cpu.py",  # 1015 (with the tiny run; three vLLM step jobs then)
    "test_intervention_workflow.py",  # 407
    "test_contrast_workflow.py",  # 382
    "test_transformers_backend.py",  # 374
    "test_calibration.py",  # 357
    "test_slurm.py",  # 387 (122 of them waiting for the tiny run; two models then)
    "test_every_setting_reaches_its_jobs.py",  # 300
    "test_free_workflow.py",  # 244
    "test_reexecution.py",  # 235
    "test_wording_workflow.py",  # 209
    "test_simulated_workflow.py",  # 175
    "test_openai_server.py",  # 157
    "test_validity_workflow.py",  # 148
    "test_backends_workflow.py",  # 144
    "test_workflow.py",  # 137
    "test_crash_resume.py",  # 135
    "test_pooled.py",  # 70
    "test_secrets.py",  # 61
)


def pytest_collection_modifyitems(config, items):
    """In a pytest-xdist worker (make test), the files of LONGEST_FIRST first, in its order:
    the order the scheduler below hands files out in."""
    if not hasattr(config, "workerinput"):
        return
    rank = {name: place for place, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


def pytest_xdist_make_scheduler(config, log):
    """Files handed to the workers in collection order (LONGEST_FIRST), not by their number of
    tests."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    config.option.loadscopereorder = False
    return LoadFileScheduling(config, log)


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory) -> Path:
    """A finished run of the workflow on the tiny config (two models), shared read-only: made
    once in a test session, by the first pytest-xdist worker that asks; the other waits for it."""
    from tests.helpers.workflow_runs import run_tiny

    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # every worker's base folder lies in it
    workdir = shared / "tiny-run"
    with (shared / "tiny-run.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (workdir / "snakemake.out").is_file():
            shutil.rmtree(workdir, ignore_errors=True)  # what a failed attempt left
            workdir.mkdir()
            finished = run_tiny(workdir)
            (workdir / "snakemake.out").write_text(finished.stdout)  # what the terminal showed
    return workdir


@pytest.fixture()
def fake(monkeypatch):
    """The fake OpenAI-compatible server (tests/helpers/fake_openai.py), at ``fake.url``, its key
    set."""
    from tests.helpers.fake_openai import FakeOpenAI, serve
    from tests.test_openai_backend import KEY

    monkeypatch.setenv("HIREMEORNOT_TEST_KEY", KEY)
    fake = FakeOpenAI()
    with serve(fake) as url:
        fake.url = url
        yield fake
