"""The extractive-QA backend and the Batch API through the real workflow, with the estimate."""

from __future__ import annotations

import copy
import re

import pandas as pd
import pytest

from tests.conftest import needs_data
from tests.helpers.fake_openai import FakeOpenAI, serve
from tests.helpers.tiny_models import tiny_roberta_qa
from tests.helpers.workflow_runs import TINY, run_tiny, step_table
from tests.test_openai_backend import KEY

pytestmark = [pytest.mark.slow, pytest.mark.workflow, needs_data]

CORPUS = ["Mary and James are neighbors. Is Mary qualified for nurse? Options: Yes, No."]


def config(qa_model: str, url: str) -> dict:
    value = copy.deepcopy(TINY)
    value["occupations"]["select"] = ["nurse"]
    value["names"].update(pairs=1, orders=["female_first", "male_first"])
    value["models"] = {
        "qa": {"backend": "extractive_qa", "model": qa_model, "batch_size": 4, "threads": 1},
        "api": {
            "backend": "openai",
            "model": "fake-model",
            "base_url": url,
            "api_key_env": "HIREMEORNOT_TEST_KEY",
            "mode": "batch",
            "batch_poll_s": 0,
            "price_per_million_tokens": {"input": 1.0, "output": 2.0},
            "threads": 1,
        },
    }
    return value


def test_a_span_model_and_a_batch_api_model_are_audited_end_to_end(tmp_path, monkeypatch):
    monkeypatch.setenv("HIREMEORNOT_TEST_KEY", KEY)
    qa_model = tiny_roberta_qa(tmp_path / "tiny-qa", CORPUS)
    work = tmp_path / "run"
    work.mkdir()
    fake = FakeOpenAI()
    with serve(fake) as url:
        run_tiny(work, "all", "results/estimate.md", config=config(str(qa_model), url))
    results = work / "results"
    assert len(fake.batches) == 3  # one batch per step job of the API model
    metrics = pd.read_csv(results / "metrics.tsv", sep="\t")
    assert set(metrics["model"]) == {"qa", "api"}
    for model in ("qa", "api"):
        step3 = step_table(results, model, "step3")
        assert len(step3) == 2 * 2  # instances (1 pair x 2 orders) x (Q2, Q3)
        log = (work / f"logs/ask_model/{model}/step1/shard-0.log").read_text()
        assert re.search(r"\d+ asked of the model, 0 answered from the store", log)
    step3 = step_table(results, "qa", "step3")
    assert step3[["logprob_female", "logprob_male"]].notna().all().all()  # span scores, all
    api_log = (work / "logs/ask_model/api/step1/shard-0.log").read_text()
    assert "fake-model: " in api_log and "estimated cost $" in api_log
    assert "submitted batch batch-1" in api_log
    estimate = (results / "estimate.md").read_text()
    assert "- api: about $" in estimate and "| qa | step1 |" in estimate
    assert "The test's floor on p" in estimate and "every model (" in estimate
