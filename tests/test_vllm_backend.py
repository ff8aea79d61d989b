"""The vllm backend against a stand-in of vLLM 0.33's offline API (tests/helpers/vllm_standin.py).

Where vLLM is importable, the requests are built with its real SamplingParams and
StructuredOutputsParams; the engine is always the stand-in (no GPU here).
"""

from __future__ import annotations

import math
import os
import sys

import pytest

from hiremeornot.asking.ask import ask
from hiremeornot.asking.backends import BackendError, Request, load_backend, model_identity
from hiremeornot.asking.backends.base import PartialBatchError, chat_messages
from hiremeornot.asking.backends.vllm_backend import CPU_BINDING, cpu_binding
from hiremeornot.asking.store import ResponseStore
from hiremeornot.config import model_settings, validate_config
from hiremeornot.errors import InputError
from tests.helpers import vllm_standin as standin

MODEL = "meta-llama/Llama-2-70b-chat-hf"


@pytest.fixture()
def vllm(monkeypatch):
    return standin.install(monkeypatch)


def backend(**settings):
    return load_backend("vllm", model_settings({"backend": "vllm", "model": MODEL, **settings}))


def substrings(word: str) -> set[str]:
    return {word[i:j] for i in range(len(word)) for j in range(i + 1, len(word) + 1)}


def test_engine_arguments_come_from_the_settings(vllm):
    assert backend().llm.arguments == {
        "model": MODEL,
        "revision": None,
        "tensor_parallel_size": 1,
        "pipeline_parallel_size": 1,
        "distributed_executor_backend": None,
        "enable_prefix_caching": True,
        "gpu_memory_utilization": 0.9,
        "enforce_eager": False,
        "max_model_len": None,
        "dtype": "auto",
        "quantization": None,
        "seed": 0,
        "trust_remote_code": False,
        "download_dir": None,
        "max_logprobs": 20,
    }
    multi_node = backend(
        tensor_parallel_size=4,
        pipeline_parallel_size=2,
        distributed_executor_backend="ray",
        gpu_memory_utilization=0.85,
        max_model_len=4096,
        dtype="bfloat16",
        quantization="awq",
        seed=7,
        trust_remote_code=True,
        download_dir="/scratch/weights",
        top_logprobs=5,
        revision="0123abc",
        batch_size=64,
        enforce_eager=True,
    )
    assert multi_node.llm.arguments == {
        "model": MODEL,
        "revision": "0123abc",
        "tensor_parallel_size": 4,
        "pipeline_parallel_size": 2,
        "distributed_executor_backend": "ray",
        "enable_prefix_caching": True,
        "gpu_memory_utilization": 0.85,
        "enforce_eager": True,
        "max_model_len": 4096,
        "dtype": "bfloat16",
        "quantization": "awq",
        "seed": 7,
        "trust_remote_code": True,
        "download_dir": "/scratch/weights",
        "max_logprobs": 5,
    }
    assert (backend().batch_size, multi_node.batch_size) == (512, 64)


def test_a_batch_is_one_chat_call_with_one_greedy_choice_constrained_request_each(vllm):
    model = backend(system_prompt="You are a recruiter.", top_logprobs=7)
    model.llm.rule = lambda text: (
        {"Ja": 3.0} if "James first" in text else {"No": 2.0} if "nurse" in text else {"Ma": 3.0}
    )
    requests = [
        Request("Mary or James? James first", ("Mary", "James")),
        Request("Mary or James?", ("Mary", "James")),
        Request("Is Mary a nurse?", ("Yes", "No")),
    ]
    assert [r.answer for r in model.answer(requests)] == ["James", "Mary", "No"]
    [call] = model.llm.calls
    assert call["messages"] == [chat_messages("You are a recruiter.", r.prompt) for r in requests]
    assert call["use_tqdm"] is False
    assert len(call["sampling_params"]) == len(requests)
    for params, request in zip(call["sampling_params"], requests, strict=True):
        assert isinstance(params, vllm.SamplingParams)
        assert params.temperature == 0 and params.logprobs == 7
        constraint = vllm.sampling_params.StructuredOutputsParams(choice=list(request.choices))
        assert params.structured_outputs == constraint
        assert "guided" not in repr(params)


def test_a_job_loads_the_weights_once_and_asks_one_chat_call_per_batch(vllm, tmp_path):
    settings = model_settings({"backend": "vllm", "model": MODEL, "batch_size": 2})
    requests = [Request(f"Is Mary a nurse? Question {i}", ("Yes", "No")) for i in range(5)]
    responses, summary = ask(
        requests,
        ResponseStore(tmp_path / "store.sqlite"),
        model_identity(settings),
        lambda: load_backend("vllm", settings),
    )
    assert summary.asked == 5 and {r.answer for r in responses} <= {"Yes", "No"}
    [llm] = standin.LLM.instances
    assert [len(call["sampling_params"]) for call in llm.calls] == [2, 2, 1]


@pytest.mark.parametrize("piece", [1, 3])
def test_max_tokens_cover_the_longest_choice_in_the_models_tokens(vllm, piece):
    model = backend()
    model.tokenizer.piece = piece
    model.llm.rule = lambda text: {t: float(len(t)) for t in substrings("Shirley")}
    [response] = model.answer([Request("Shirley or Andrew?", ("Andrew", "Shirley"))])
    assert response.answer == "Shirley"
    [params] = model.llm.calls[0]["sampling_params"]
    assert params.max_tokens >= len(model.tokenizer.encode("Shirley")) + 1  # and end-of-sequence


def test_logprobs_are_exact_for_the_answer_and_first_token_for_the_others(vllm):
    logits = {"Ye": 3.0, "Y": 0.0, "No": 1.0, "N": 0.0, "s": 2.0, "a": 1.0, "ah": 0.5}
    # allowed first tokens: Y, Ye, N, No; after "Ye": s, a, ah; after "Yes": end-of-sequence
    first = math.log(math.exp(3.0) + math.exp(0.0) + math.exp(1.0) + math.exp(0.0))
    second = math.log(math.exp(2.0) + math.exp(1.0) + math.exp(0.5))
    request = Request("Is Mary a nurse?", ("Yeah", "Yes", "No"))
    for top_logprobs, known_no in ((20, 1.0 - first), (30, 1.0 - first), (1, math.nan)):
        model = backend(top_logprobs=top_logprobs)
        model.llm.rule = lambda text: logits
        [response] = model.answer([request])
        assert response.answer == "Yes"
        yeah, yes, no = response.logprobs
        assert yes == pytest.approx((3.0 - first) + (2.0 - second))  # every token of "Yes"
        assert yeah == pytest.approx(3.0 - first)  # only its first token, "Ye"
        assert no == pytest.approx(known_no, nan_ok=True)  # "No" is not in the top 1


def test_an_answer_outside_the_choices_fails_naming_model_prompt_and_answer(vllm):
    model = backend()
    model.llm.rule = lambda text: {"Maybe": 5.0, "No": 1.0}
    model.llm.unconstrained = lambda text: "Question 1" in text
    requests = [Request(f"Is Mary a nurse? Question {i}", ("Yes", "No")) for i in range(3)]
    with pytest.raises(PartialBatchError, match=r"answered 'MaybeMaybe") as error:
        model.answer(requests)
    message = str(error.value)
    assert isinstance(error.value, BackendError)
    assert MODEL in message and "Question 1" in message and "['Yes', 'No']" in message
    assert {i: r.answer for i, r in error.value.answered.items()} == {0: "No", 2: "No"}


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("tensor_parallel_size", 0),
        ("pipeline_parallel_size", 1.5),
        ("distributed_executor_backend", "slurm"),
        ("gpu_memory_utilization", 1.2),
        ("max_model_len", 0),
        ("dtype", "fp8"),
        ("top_logprobs", -1),
        ("batch_size", True),
    ],
)
def test_the_config_schema_names_invalid_vllm_settings(key, value):
    model = {"backend": "vllm", "model": MODEL, key: value}
    with pytest.raises(InputError, match=rf"invalid value at 'models\.m\.{key}'"):
        validate_config({"models": {"m": model}})


def test_gguf_models_are_refused(vllm, tmp_path):
    (tmp_path / "model.gguf").write_bytes(b"")
    with pytest.raises(InputError, match="does not load GGUF"):
        load_backend(
            "vllm",
            model_settings({"backend": "vllm", "model": str(tmp_path), "gguf_file": "model.gguf"}),
        )


def test_missing_vllm_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "vllm", None)  # import vllm raises ImportError
    with pytest.raises(InputError, match=r"envs/vllm\.yaml.*'hiremeornot\[vllm\]'") as error:
        backend()
    assert MODEL in str(error.value)


def test_cpu_workers_each_get_their_share_of_the_jobs_cores():
    assert cpu_binding(2, [0, 1], "m") == "0|1"
    assert cpu_binding(2, [0, 1, 2, 3, 4], "m") == "0,1|2,3"
    with pytest.raises(InputError, match=r"2 vLLM CPU workers .* the job has 1; .*THREADS_BIND"):
        cpu_binding(2, [3], "m")


def test_several_workers_on_a_cpu_are_bound_to_cores_unless_the_user_bound_them(vllm, monkeypatch):
    monkeypatch.setattr(sys.modules["vllm.platforms"].current_platform, "cpu", True)
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setenv(CPU_BINDING, "")  # recorded, so that the backend's binding is undone
    monkeypatch.delenv(CPU_BINDING)
    backend(pipeline_parallel_size=2, gpus=2)
    assert os.environ[CPU_BINDING] == "0|1"
    monkeypatch.setenv(CPU_BINDING, "1|0")
    backend(pipeline_parallel_size=2, gpus=2)
    assert os.environ[CPU_BINDING] == "1|0"
    with pytest.raises(InputError, match="fails with enforce_eager and pipeline_parallel_size"):
        backend(pipeline_parallel_size=2, gpus=2, enforce_eager=True)
