"""Local causal language models through transformers, answers constrained to the choices.

``decoding`` chooses how the answer is picked:
- ``greedy`` (default): greedy constrained decoding, the paper's method, by the batched choice
  engine (the same answers as outlines, several times faster);
- ``likelihood``: the choice with the highest total log-probability;
- ``outlines``: outlines' own greedy constrained generation (the reference implementation).
Every mode records the log-probability of each choice (the model's own, before the constraint)
and the probability of the whole answer space (``Response.answer_mass``). A question asked free
(``Request.free_tokens``) gets the model's greedy reply without any constraint, cut at its
token budget (batched, left-padded).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hiremeornot.asking.backends import gguf_cache
from hiremeornot.asking.backends.base import (
    Backend,
    BackendError,
    BackendSettings,
    Request,
    Response,
    chat_messages,
    free_response,
)
from hiremeornot.asking.backends.choice_engine import ChoiceEngine
from hiremeornot.asking.backends.location import locate_model
from hiremeornot.asking.backends.torch_models import load_model, load_tokenizer


@dataclass(frozen=True)
class TransformersSettings(BackendSettings):
    """The settings the transformers backend reads (their meaning: the config schema)."""

    model: str
    gguf_file: str | None
    dtype: str
    device: str
    decoding: str
    system_prompt: str | None
    batch_size: int


def create(settings: Mapping[str, Any], state_dir: Path | None) -> TransformersBackend:
    """The backend of one model's validated settings (it keeps no state between runs)."""
    return TransformersBackend(TransformersSettings.from_config(settings))


def model_folder(settings: TransformersSettings) -> str:
    """The folder (or hub id) transformers loads: a GGUF file's converted copy."""
    location, gguf_file = locate_model(settings.model, settings.gguf_file)
    return str(gguf_cache.converted(location, gguf_file)) if gguf_file else location


def tokenizer(settings: Mapping[str, Any]) -> Any:
    """The model's tokenizer alone, as the backend loads it, without the weights."""
    from transformers import AutoTokenizer

    typed = TransformersSettings.from_config(settings)
    return load_tokenizer(AutoTokenizer, typed.model, model_folder(typed))


class TransformersBackend(Backend):
    """A causal language model run by transformers on CPU or GPU."""

    def __init__(self, settings: TransformersSettings):
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.settings = settings
        self.batch_size = settings.batch_size
        location = model_folder(settings)
        self.tokenizer = load_tokenizer(AutoTokenizer, settings.model, location)
        model, dtype, device = settings.model, settings.dtype, settings.device
        self.model = load_model(AutoModelForCausalLM, model, location, dtype, device)
        decoding = settings.decoding
        self.engine = ChoiceEngine(
            self.model, self.tokenizer, "greedy" if decoding == "outlines" else decoding
        )
        self._outlines = (
            OutlinesChoice(self.model, self.tokenizer) if decoding == "outlines" else None
        )

    def messages(self, prompt: str) -> list[dict[str, str]]:
        """The chat: the configured system message, if any, and the prompt as the user's turn."""
        return chat_messages(self.settings.system_prompt, prompt)

    def prompt_ids(self, prompt: str) -> list[int]:
        """Token ids of the templated chat, ready for the assistant's answer."""
        text = self.tokenizer.apply_chat_template(
            self.messages(prompt), tokenize=False, add_generation_prompt=True
        )
        return self.tokenizer(text)["input_ids"]

    def answer(self, requests: Sequence[Request]) -> list[Response]:
        free = [i for i, r in enumerate(requests) if r.free_tokens is not None]
        held = [i for i, r in enumerate(requests) if r.free_tokens is None]
        responses = dict(zip(held, self._constrained([requests[i] for i in held]), strict=True))
        replies = self._replies([requests[i] for i in free])
        for i, reply in zip(free, replies, strict=True):
            responses[i] = free_response(requests[i], reply)
        return [responses[i] for i in range(len(requests))]

    def _replies(self, requests: Sequence[Request]) -> list[str]:
        """Greedy replies to free questions, each cut at its token budget: one left-padded
        batch per budget."""
        import torch

        replies = [""] * len(requests)
        pad = self.tokenizer.pad_token_id
        pad = self.tokenizer.eos_token_id if pad is None else pad
        for budget in sorted({r.free_tokens for r in requests}):
            indices = [i for i, r in enumerate(requests) if r.free_tokens == budget]
            prompts = [self.prompt_ids(requests[i].prompt) for i in indices]
            longest = max(map(len, prompts))
            ids = [[pad] * (longest - len(p)) + p for p in prompts]
            mask = [[0] * (longest - len(p)) + [1] * len(p) for p in prompts]
            with torch.inference_mode():
                out = self.model.generate(
                    input_ids=torch.tensor(ids, device=self.model.device),
                    attention_mask=torch.tensor(mask, device=self.model.device),
                    max_new_tokens=budget,
                    do_sample=False,
                    pad_token_id=pad,
                )
            for i, row in zip(indices, out[:, longest:].tolist(), strict=True):
                text = self.tokenizer.decode(row, skip_special_tokens=True)
                # a character the budget cut in the middle of its bytes is dropped, as vLLM's
                # detokenizer drops it
                replies[i] = text.rstrip("\ufffd").strip()
        return replies

    def _constrained(self, requests: Sequence[Request]) -> list[Response]:
        if not requests:
            return []
        results = self.engine.answer(
            [self.prompt_ids(r.prompt) for r in requests], [r.choices for r in requests]
        )
        answers = [answer for answer, _ in results]
        if self._outlines is not None:
            answers = self._outlines.answer([self.messages(r.prompt) for r in requests], requests)
        for request, answer in zip(requests, answers, strict=True):
            if answer not in request.choices:
                raise BackendError(
                    f"model {self.settings.model!r} answered {answer!r}, outside the answer "
                    f"space {list(request.choices)} of the prompt {request.prompt[:80]!r}..."
                )
        return [
            Response(a, lp, answer_mass=self.engine.answer_mass(r.choices, lp))
            for r, a, (_, lp) in zip(requests, answers, results, strict=True)
        ]


class OutlinesChoice:
    """outlines' greedy constrained generation, one compiled generator per answer space."""

    def __init__(self, model, tokenizer):
        import outlines

        self._model = outlines.from_transformers(model, tokenizer)
        self._generators: dict[tuple[str, ...], Any] = {}

    def generator(self, choices: tuple[str, ...]):
        if choices not in self._generators:
            import outlines
            from outlines.types import Choice

            self._generators[choices] = outlines.Generator(self._model, Choice(list(choices)))
        return self._generators[choices]

    def answer(self, chats: Sequence[list[dict]], requests: Sequence[Request]) -> list[str]:
        from outlines.inputs import Chat

        answers = [""] * len(requests)
        by_choices: dict[tuple[str, ...], list[int]] = {}
        for index, request in enumerate(requests):
            by_choices.setdefault(request.choices, []).append(index)
        for choices, indices in by_choices.items():
            longest = max(len(choice) for choice in choices) + 1
            outputs = self.generator(choices).batch(
                [Chat(chats[i]) for i in indices], max_new_tokens=longest
            )
            for index, output in zip(indices, outputs, strict=True):
                answers[index] = output
        return answers
