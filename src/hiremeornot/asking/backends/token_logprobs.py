"""Per-choice log-probabilities from the tokens a server generated and their top alternatives.

APIs that generate text (OpenAI, vLLM) report, for each generated token, its log-probability
and the most likely alternatives at that position. From these the chosen answer's
log-probability is exact (the sum over the tokens that spell it); another choice's is known
only through its first token, when that token is among the alternatives where the answer
starts. Everything else is NaN: unknown, never guessed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class GeneratedToken:
    """One generated token: its text, log-probability and the top alternatives (text -> logprob)."""

    text: str
    logprob: float
    alternatives: Mapping[str, float]


def choice_logprobs(
    tokens: Sequence[GeneratedToken], choices: Sequence[str], answer: str
) -> tuple[float, ...]:
    """Each choice's log-probability (same order as ``choices``), NaN where unknown.

    The answer may sit inside other generated text (a JSON object, say): it is found by its
    characters, and must start at a token boundary. Another choice gets the best alternative,
    at the answer's first token, whose text starts that choice (its first token only).
    """
    offsets, position = [], 0
    for token in tokens:
        offsets.append(position)
        position += len(token.text)
    start = "".join(token.text for token in tokens).find(answer)
    if start < 0 or start not in offsets:
        return tuple(math.nan for _ in choices)
    first = offsets.index(start)
    spelled = [
        token.logprob
        for token, offset in zip(tokens, offsets, strict=True)
        if start <= offset < start + len(answer)
    ]
    result = []
    for candidate in choices:
        if candidate == answer:
            result.append(float(sum(spelled)))
            continue
        matches = [
            logprob
            for text, logprob in tokens[first].alternatives.items()
            if text and candidate.startswith(text)
        ]
        result.append(float(max(matches)) if matches else math.nan)
    return tuple(result)
