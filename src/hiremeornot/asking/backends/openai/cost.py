"""The size and estimated cost of the questions a paid API is about to be asked.

Tokens are estimated without the model's tokenizer (about four characters a token, plus the
chat format's overhead per message), so the figures are approximate; the cost uses the prices
configured in ``price_per_million_tokens`` (none: tokens only).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hiremeornot.asking.backends.base import BackendSettings, Request, chat_messages
from hiremeornot.config import model_settings
from hiremeornot.errors import InputError

log = logging.getLogger(__name__)

CHARS_PER_TOKEN = 4
TOKENS_PER_MESSAGE = 4  # role and separators of the chat format
TOKENS_PER_CHOICE = 2  # an answer-space entry in the constraint (enum, bias, grammar)
JSON_TOKENS = 8  # the {"answer": ...} object around the answer of json_schema and tool


@dataclass(frozen=True)
class Pricing(BackendSettings):
    """The settings a cost estimate reads (the openai and provider backends' both have them)."""

    model: str
    system_prompt: str | None
    constraint: str
    price_per_million_tokens: Mapping[str, float] | None
    max_cost_usd: float | None


@dataclass(frozen=True)
class CostEstimate:
    """What a run will send: requests, tokens in and out, and the cost if prices are known."""

    model: str
    requests: int
    input_tokens: int
    output_tokens: int
    usd: float | None

    def line(self) -> str:
        cost = (
            f"estimated cost ${self.usd:,.2f}"
            if self.usd is not None
            else "cost unknown (set price_per_million_tokens)"
        )
        return (
            f"{self.model}: {self.requests:,} requests to send, about {self.input_tokens:,} input "
            f"and {self.output_tokens:,} output tokens, {cost}"
        )


def input_tokens(request: Request, system_prompt: str | None) -> int:
    messages = chat_messages(system_prompt, request.prompt)
    text = sum(math.ceil(len(m["content"]) / CHARS_PER_TOKEN) for m in messages)
    offered = 0 if request.free_tokens is not None else len(request.choices)
    return text + TOKENS_PER_MESSAGE * len(messages) + TOKENS_PER_CHOICE * offered


def output_tokens(request: Request, constraint: str, answer_budget: int | None = None) -> int:
    """About how many tokens the reply takes under ``constraint``; a free reply is priced at
    its whole budget (the most it may cost), and so is a constrained one where the model has a
    budget for it (``answer_budget``: the provider backend's answer_max_tokens, which a
    reasoning model's thinking may fill)."""
    if request.free_tokens is not None:
        return request.free_tokens
    if answer_budget is not None:
        return answer_budget
    if constraint == "logit_bias":
        return 1
    longest = math.ceil(max(len(choice) for choice in request.choices) / CHARS_PER_TOKEN) + 1
    return longest + (JSON_TOKENS if constraint in ("json_schema", "tool") else 0)


def cost_estimate(requests: Sequence[Request], settings: Any) -> CostEstimate:
    """The estimate for ``requests`` asked of the model of ``settings``: a backend's typed
    settings, or one paid model's settings as in the config (validated here, so that keys left
    out take the schema's defaults)."""
    values = model_settings(settings) if isinstance(settings, Mapping) else vars(settings)
    settings = Pricing.from_config(values)
    budget = values.get("answer_max_tokens")  # the provider backend's; the openai one has none
    tokens_in = sum(input_tokens(r, settings.system_prompt) for r in requests)
    tokens_out = sum(output_tokens(r, settings.constraint, budget) for r in requests)
    prices = settings.price_per_million_tokens
    usd = None
    if prices:
        usd = (tokens_in * prices["input"] + tokens_out * prices["output"]) / 1_000_000
    return CostEstimate(settings.model, len(requests), tokens_in, tokens_out, usd)


def refuse_over_budget(requests: Sequence[Request], settings: Any) -> float | None:
    """Log the run's size and estimated cost; refuse it if over ``max_cost_usd``; the
    estimated cost in USD (None without prices). ``settings``: a backend's typed settings."""
    estimate = cost_estimate(requests, settings)
    log.info("%s", estimate.line())
    limit = settings.max_cost_usd
    if limit is not None and estimate.usd is not None and estimate.usd > limit:
        raise InputError(
            f"model {settings.model!r}: the estimated cost ${estimate.usd:.2f} is "
            f"over max_cost_usd ${limit:.2f}; nothing was asked"
        )
    return estimate.usd
