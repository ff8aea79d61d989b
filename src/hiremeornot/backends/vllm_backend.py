"""Offline vLLM on one or more GPUs, answers constrained to the choices.

The weights load once per backend; each ``answer`` call is one ``LLM.chat`` over the whole batch,
which vLLM schedules itself (prefix caching on: the system prompt and shared question stems are
computed once). Every request is greedy (temperature 0) and constrained by
``StructuredOutputsParams(choice=...)``. vLLM returns the ``top_logprobs`` most likely tokens at
each generated position; ``token_logprobs.choice_logprobs`` turns them into one log-probability
per choice. vLLM 0.33 applies the constraint's token mask to the logits before it computes
log-probabilities, so they are the model's log-probabilities renormalized over the tokens the
constraint allows at each step.

Checked against the source of the vllm 0.33.0 wheel: ``LLM.__init__`` and ``LLM.chat``
(vllm/entrypoints/llm.py), ``EngineArgs`` (vllm/engine/arg_utils.py), ``SamplingParams`` and
``StructuredOutputsParams`` (vllm/sampling_params.py), ``RequestOutput`` and ``CompletionOutput``
(vllm/outputs.py), ``Logprob`` (vllm/logprobs.py). See docs/backends/vllm.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from hiremeornot.backends.base import (
    Backend,
    Request,
    Response,
    all_or_partial,
    chat_messages,
)
from hiremeornot.backends.location import model_location
from hiremeornot.backends.token_logprobs import GeneratedToken, choice_logprobs
from hiremeornot.errors import InputError

# Tokens allowed beyond the longest choice: end-of-sequence, and a choice tokenized differently
# in context than alone. Generation stops at end-of-sequence, so a margin costs nothing.
MARGIN_TOKENS = 4


def engine_arguments(settings: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments of ``vllm.LLM`` for one model's settings."""
    model, gguf_file = model_location(settings)
    if gguf_file:
        raise InputError(
            f"model {settings['model']!r}: the vllm backend does not load GGUF files; "
            "use the transformers backend"
        )
    return {
        "model": model,
        "revision": settings.get("revision"),
        "tensor_parallel_size": settings.get("tensor_parallel_size", 1),
        "pipeline_parallel_size": settings.get("pipeline_parallel_size", 1),
        "distributed_executor_backend": settings.get("distributed_executor_backend"),
        "enable_prefix_caching": True,
        "gpu_memory_utilization": settings.get("gpu_memory_utilization", 0.9),
        "max_model_len": settings.get("max_model_len"),
        "dtype": settings.get("dtype", "auto"),
        "quantization": settings.get("quantization"),
        "seed": settings.get("seed", 0),
        "trust_remote_code": settings.get("trust_remote_code", False),
        "download_dir": settings.get("download_dir"),
        # vLLM refuses requests for more log-probabilities than this (its default: 20)
        "max_logprobs": settings.get("top_logprobs", 20),
    }


class VLLMBackend(Backend):
    """A model run by vLLM's offline engine, tensor- and pipeline-parallel over GPUs."""

    def __init__(self, settings: dict[str, Any]):
        arguments = engine_arguments(settings)
        try:
            import vllm
            from vllm.sampling_params import StructuredOutputsParams
        except ImportError as exc:
            raise InputError(
                f"model {settings['model']!r}: the vllm backend needs vLLM on a GPU node "
                f"({exc}); create the conda env envs/vllm.yaml, or pip install "
                "'hiremeornot[vllm]' in an environment of its own"
            ) from exc
        self.settings = settings
        self.batch_size = settings.get("batch_size", 512)
        self.top_logprobs = settings.get("top_logprobs", 20)
        self._sampling_params = vllm.SamplingParams
        self._choice = StructuredOutputsParams
        self.llm = vllm.LLM(**arguments)
        self.tokenizer = self.llm.get_tokenizer()

    def max_tokens(self, choices: tuple[str, ...]) -> int:
        """Enough new tokens for the longest choice, by the model's tokenizer, and a margin."""
        lengths = (len(self.tokenizer.encode(c, add_special_tokens=False)) for c in choices)
        return max(lengths) + MARGIN_TOKENS

    def sampling_params(self, requests: Sequence[Request]) -> list[Any]:
        """One greedy, choice-constrained ``SamplingParams`` per request."""
        budgets = {choices: self.max_tokens(choices) for choices in {r.choices for r in requests}}
        return [
            self._sampling_params(
                temperature=0.0,
                max_tokens=budgets[request.choices],
                logprobs=self.top_logprobs,
                structured_outputs=self._choice(choice=list(request.choices)),
            )
            for request in requests
        ]

    def answer(self, requests: Sequence[Request]) -> list[Response]:
        """All answers, or a PartialBatchError holding the valid ones."""
        outputs = self.llm.chat(
            [chat_messages(self.settings.get("system_prompt"), r.prompt) for r in requests],
            sampling_params=self.sampling_params(requests),
            use_tqdm=False,
        )
        answered, errors = {}, []
        for index, (request, output) in enumerate(zip(requests, outputs, strict=True)):
            completion = output.outputs[0]
            if completion.text in request.choices:
                logprobs = choice_logprobs(
                    generated_tokens(completion), request.choices, completion.text
                )
                answered[index] = Response(completion.text, logprobs)
            else:
                errors.append(
                    f"model {self.settings['model']!r} answered {completion.text!r} (finish "
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
