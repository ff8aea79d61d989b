"""Extractive question answering (the paper's baseline: RoBERTa-large fine-tuned on SQuAD 2.0).

A span model cannot generate an answer, so each choice is scored as a span of the paragraph:
- the prompt's last sentence, ending in "?", is the question and the text before it the context;
- an options sentence listing every choice (``options_sentence``) is appended to the context, so
  that choices absent from it (Yes/No, both/neither) are spans too;
- a choice's score is the best ``start_logit[first token] + end_logit[last token]`` over its
  whole-word, case-sensitive occurrences in that paragraph; the null answer is not a choice.
The answer is the highest-scoring choice (ties: the first); the log-probabilities are the
log-softmax of the choices' scores, normalised span scores rather than language-model
probabilities. The answer space's mass (``Response.answer_mass``) is the share of the model's
span distribution (a span i..j weighs exp(start_logit[i] + end_logit[j]); every span of the
paragraph and the null answer) that falls on occurrences of the choices.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from scipy.special import log_softmax, logsumexp

from hiremeornot.asking.backends.base import (
    Backend,
    BackendError,
    BackendSettings,
    Request,
    Response,
)
from hiremeornot.asking.backends.location import locate_model
from hiremeornot.asking.backends.torch_models import folder_tokenizer, load_model
from hiremeornot.design.prompts import check_options_sentence
from hiremeornot.errors import InputError

SENTENCE_END = re.compile(r"[.!?]\s+")

Offsets = Sequence[tuple[int, int] | None]


def split_prompt(prompt: str) -> tuple[str, str]:
    """(question, context): the prompt's last sentence, which must end in "?", and what precedes."""
    text = prompt.strip()
    if not text.endswith("?"):
        raise BackendError(f"the prompt {prompt!r} does not end with a question")
    ends = [match.end() for match in SENTENCE_END.finditer(text, 0, len(text) - 1)]
    cut = ends[-1] if ends else 0
    return text[cut:], text[:cut].rstrip()


def paragraph(context: str, choices: Sequence[str], template: str) -> str:
    """The context followed by the options sentence (``template``) listing every choice."""
    options = template.format(options=", ".join(choices))
    return f"{context} {options}" if context else options


def occurrences(text: str, candidate: str) -> list[tuple[int, int]]:
    """Character spans [start, end) of the whole-word, case-sensitive matches of ``candidate``."""
    pattern = re.compile(rf"(?<!\w){re.escape(candidate)}(?!\w)")
    return [match.span() for match in pattern.finditer(text)]


def token_span(offsets: Offsets, start: int, end: int) -> tuple[int, int] | None:
    """The first and last token covering characters [start, end), None unless all are kept.

    ``offsets[i]`` is token i's character span in the paragraph, None for a token outside it
    (question, special tokens, padding); zero-width tokens cover nothing.
    """
    covering = [
        i
        for i, span in enumerate(offsets)
        if span is not None and span[0] < end and span[1] > start
    ]
    if not covering or offsets[covering[0]][0] > start or offsets[covering[-1]][1] < end:
        return None
    return covering[0], covering[-1]


def span_scores(
    start_logits: Sequence[float],
    end_logits: Sequence[float],
    offsets: Offsets,
    spans: Sequence[tuple[int, int]],
) -> list[float]:
    """The score of each of a candidate's character spans that is left after truncation."""
    tokens = [token_span(offsets, start, end) for start, end in spans]
    return [start_logits[first] + end_logits[last] for first, last in filter(None, tokens)]


def candidate_score(
    start_logits: Sequence[float],
    end_logits: Sequence[float],
    offsets: Offsets,
    spans: Sequence[tuple[int, int]],
) -> float | None:
    """The best span score over a candidate's character spans, None if no span is left."""
    return max(span_scores(start_logits, end_logits, offsets, spans), default=None)


def span_mass(
    start_logits: Sequence[float],
    end_logits: Sequence[float],
    offsets: Offsets,
    chosen: Sequence[float],
) -> float:
    """The share of the span distribution on the spans scored ``chosen``: every span i <= j of
    the paragraph and the null answer (token 0) weigh exp(start_logit[i] + end_logit[j])."""
    inside = np.array([span is not None for span in offsets])
    start = np.where(inside, start_logits, -np.inf)
    end = np.where(inside, end_logits, -np.inf)
    # log of the sum over i <= j: each end's logit plus the log-sum of the starts up to it
    spans = logsumexp(end + np.logaddexp.accumulate(start))
    total = np.logaddexp(spans, start_logits[0] + end_logits[0])
    return float(np.exp(logsumexp(chosen) - total))


@dataclass(frozen=True)
class ExtractiveQASettings(BackendSettings):
    """The settings the extractive_qa backend reads (their meaning: the config schema)."""

    model: str
    dtype: str
    device: str
    batch_size: int
    max_length: int
    options_sentence: str


def create(settings: Mapping[str, Any], state_dir: Path | None) -> ExtractiveQABackend:
    """The backend of one model's validated settings (it keeps no state between runs)."""
    return ExtractiveQABackend(ExtractiveQASettings.from_config(settings))


def tokenizer(settings: Mapping[str, Any]) -> Any:
    """The model's tokenizer alone, as the backend loads it, without the weights."""
    return folder_tokenizer(settings["model"])


class ExtractiveQABackend(Backend):
    """An extractive question-answering model run by transformers on CPU or GPU."""

    def __init__(self, settings: ExtractiveQASettings):
        from transformers import AutoModelForQuestionAnswering

        self.settings = settings
        self.batch_size = settings.batch_size
        self.options_sentence = settings.options_sentence
        check_options_sentence(self.options_sentence)
        location, _ = locate_model(settings.model, None)
        self.tokenizer = folder_tokenizer(settings.model)
        if not self.tokenizer.is_fast:
            raise InputError(
                f"model {settings.model!r}: {type(self.tokenizer).__name__} is not a fast "
                "tokenizer, and span scoring needs a fast tokenizer's character offsets"
            )
        # never longer than the model takes (the tokenizer knows its limit)
        self.max_length = min(settings.max_length, self.tokenizer.model_max_length)
        self.model = load_model(
            AutoModelForQuestionAnswering, settings.model, location, settings.dtype, settings.device
        )

    def answer(self, requests: Sequence[Request]) -> list[Response]:
        responses = []
        for begin in range(0, len(requests), self.batch_size):
            responses += self.answer_batch(requests[begin : begin + self.batch_size])
        return responses

    def answer_batch(self, requests: Sequence[Request]) -> list[Response]:
        """One padded forward pass over the (question, paragraph) pairs of the requests."""
        pairs = []
        for request in requests:
            question, context = split_prompt(request.prompt)
            pairs.append((question, paragraph(context, request.choices, self.options_sentence)))
        encoded = self.tokenizer(
            [question for question, _ in pairs],
            [text for _, text in pairs],
            truncation="only_second",
            max_length=self.max_length,
            padding=True,
            return_offsets_mapping=True,
            return_tensors="pt",
        )
        offsets = encoded.pop("offset_mapping").tolist()
        with torch.inference_mode():
            output = self.model(**encoded.to(self.model.device))
        start_logits = output.start_logits.float().tolist()
        end_logits = output.end_logits.float().tolist()
        responses = []
        for i, (request, (_, text)) in enumerate(zip(requests, pairs, strict=True)):
            in_paragraph = [
                tuple(span) if sequence == 1 else None
                for span, sequence in zip(offsets[i], encoded.sequence_ids(i), strict=True)
            ]
            responses.append(
                self.response(request, text, start_logits[i], end_logits[i], in_paragraph)
            )
        return responses

    def response(
        self,
        request: Request,
        text: str,
        start_logits: Sequence[float],
        end_logits: Sequence[float],
        offsets: Offsets,
    ) -> Response:
        """The best-scoring choice of one request and the log-softmax of the choices' scores."""
        scores, every_span = [], []
        for choice in request.choices:
            found = span_scores(start_logits, end_logits, offsets, occurrences(text, choice))
            if not found:
                raise BackendError(
                    f"model {self.settings.model!r}: no occurrence of the choice {choice!r} "
                    f"is left in the paragraph of the prompt {request.prompt[:80]!r}... once "
                    f"truncated to max_length {self.max_length} tokens"
                )
            scores.append(max(found))
            every_span += found
        best = max(range(len(scores)), key=scores.__getitem__)
        mass = span_mass(start_logits, end_logits, offsets, every_span)
        return Response(
            request.choices[best], tuple(map(float, log_softmax(scores))), answer_mass=mass
        )
