"""Shared fixtures: the real offline data lies in ../shared/data beside the checkout."""

from __future__ import annotations

from pathlib import Path

import pytest

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


@pytest.fixture(scope="session")
def onet_dir() -> Path:
    return ONET_DIR


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory) -> Path:
    """A finished run of the workflow on the tiny config (two models), shared read-only."""
    from tests.workflow_runs import run_tiny

    workdir = tmp_path_factory.mktemp("tiny-run")
    run_tiny(workdir)
    return workdir


@pytest.fixture()
def fake(monkeypatch):
    """The fake OpenAI-compatible server (tests/fake_openai.py), at ``fake.url``, its key set."""
    from tests.fake_openai import FakeOpenAI, serve
    from tests.test_openai_backend import KEY

    monkeypatch.setenv("HIREMEORNOT_TEST_KEY", KEY)
    fake = FakeOpenAI()
    with serve(fake) as url:
        fake.url = url
        yield fake
