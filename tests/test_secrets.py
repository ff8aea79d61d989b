"""An OpenAI-backend audit through the real workflow: the API key is sent, and written nowhere."""

from __future__ import annotations

import copy

import pytest

from tests.conftest import needs_data
from tests.helpers.fake_openai import FakeOpenAI, serve
from tests.helpers.workflow_runs import TINY, run_tiny
from tests.test_openai_backend import KEY

pytestmark = [pytest.mark.slow, pytest.mark.workflow, needs_data]


def api_config(url: str) -> dict:
    config = copy.deepcopy(TINY)
    config["occupations"]["select"] = ["nurse"]
    config["attributes"]["per_type"] = 1
    config["names"].update(pairs=1, orders=["female_first"])
    config["models"] = {
        "api-model": {
            "backend": "openai",
            "model": "fake-model",
            "base_url": url,
            "api_key_env": "HIREMEORNOT_TEST_KEY",
            "max_retries": 1,
            "timeout_s": 5,
        }
    }
    return config


def files_containing(root, secret: str) -> list[str]:
    return [
        str(path)
        for folder in ("results", "logs", ".snakemake")
        if (root / folder).exists()
        for path in (root / folder).rglob("*")
        if path.is_file() and secret.encode() in path.read_bytes()
    ]


def test_the_key_is_sent_and_written_nowhere(tmp_path, monkeypatch):
    monkeypatch.setenv("HIREMEORNOT_TEST_KEY", KEY)
    fake = FakeOpenAI()
    with serve(fake) as url:
        run_tiny(tmp_path, config=api_config(url))
    assert fake.requests and {r["authorization"] for r in fake.requests} == {f"Bearer {KEY}"}
    assert (tmp_path / "results/summary.md").exists()
    assert files_containing(tmp_path, KEY) == []


def test_a_failing_api_job_leaks_no_key(tmp_path, monkeypatch):
    monkeypatch.setenv("HIREMEORNOT_TEST_KEY", KEY)
    fake = FakeOpenAI()
    fake.faults = ["500"] * 50
    with serve(fake) as url:
        result = run_tiny(tmp_path, config=api_config(url), check=False)
    assert result.returncode != 0
    log = (tmp_path / "logs/ask_model/api-model/step1/shard-0.log").read_text()
    assert "InternalServerError" in log and "fake-model" in log
    # the closing lines name the failed job, its log and that log's last line
    assert "hiremeornot: the run stopped before it finished." in result.stdout
    job_log = "logs/ask_model/api-model/step1/shard-0.log"
    assert f"Failed job: rule ask_model, its log {job_log}" in result.stdout
    assert f"Its last line: {log.strip().splitlines()[-1].strip()}" in result.stdout
    assert KEY not in result.stdout + result.stderr
    assert files_containing(tmp_path, KEY) == []
