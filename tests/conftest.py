"""Shared fixtures: the real offline data lies in ../shared/data beside the checkout."""

from __future__ import annotations

import json
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


def pytest_xdist_make_scheduler(config, log):
    """Under pytest-xdist's --dist loadfile (make test): each test file runs in one worker, so
    its module fixtures are built once, and the files that read the shared tiny run (their text
    names the fixture) run in the same one, so the run is made once."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    sharing = {
        f"tests/{path.name}"
        for path in Path(__file__).parent.glob("test_*.py")
        if "tiny_run" in path.read_text(encoding="utf-8")
    }

    class SharedRunScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return "tiny_run" if scope in sharing else scope

    return SharedRunScheduling(config, log)


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory) -> Path:
    """A finished run of the workflow on the tiny config (two models), shared read-only."""
    from tests.helpers.workflow_runs import run_tiny

    workdir = tmp_path_factory.mktemp("tiny-run")
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
