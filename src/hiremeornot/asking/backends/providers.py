"""Any provider through inspect_ai's model API (``backend: provider``): Anthropic, Google,
Mistral, AWS Bedrock, Azure OpenAI, OpenAI, and Ollama, vLLM and llama.cpp servers.

``model`` is inspect's model string, ``<provider>/<model>`` (``anthropic/claude-sonnet-4-5``,
``openai-api/<name>/<model>`` for any OpenAI-compatible server). inspect reads each provider's
API key from that provider's own environment variable (``ANTHROPIC_API_KEY``, ...), never from
the config. A constrained question is held to its answer space by a JSON schema whose one
property is an enum of the choices (``constraint: json_schema``, where the provider offers
structured outputs) or by a forced tool call (``constraint: tool``); a free one is asked plain,
its reply cut at ``free_max_tokens``. Log-probabilities (``top_logprobs`` alternatives a
token; 0 asks for none) are kept where the provider returns them (OpenAI-compatible servers,
Google); inspect silently drops the request for the others (Anthropic, Mistral, Bedrock), whose
answers have NaN log-probabilities. See docs/backends/providers.md.
"""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hiremeornot.asking.backends.base import (
    Backend,
    BackendError,
    BackendSettings,
    Request,
    Response,
    all_or_partial,
    chat_messages,
    free_response,
)
from hiremeornot.asking.backends.openai.constraints import answer_schema, json_answer, reply_tokens
from hiremeornot.asking.backends.openai.cost import refuse_over_budget
from hiremeornot.asking.backends.token_logprobs import choice_logprobs
from hiremeornot.errors import InputError, first_line, whole_message

MAX_TOP_LOGPROBS = 20  # what OpenAI's and Google's APIs give at most
CONSTRAINTS = ("json_schema", "tool")  # the others are the openai backend's
# inspect's set-up errors carry the terminal's markup: "No [bold][blue]ANTHROPIC_API_KEY[/blue]..."
MARKUP = re.compile(r"\[/?(?:bold|blue|italic|red|green|yellow|dim)\]|^ERROR: ")


@dataclass(frozen=True)
class ProviderSettings(BackendSettings):
    """One provider model's settings, taken from its validated config."""

    model: str
    base_url: str | None
    constraint: str
    system_prompt: str | None
    temperature: float
    top_logprobs: int
    answer_max_tokens: int
    concurrency: int
    max_retries: int
    timeout_s: float
    price_per_million_tokens: Mapping[str, float] | None
    max_cost_usd: float | None


def check_constraint(model: str, constraint: str, where: str = "constraint") -> None:
    """Refuse a constraint only the openai backend has, and a JSON schema where inspect drops it
    (Bedrock's models other than Claude): one line, before any job (model_checks.py)."""
    if constraint not in CONSTRAINTS:
        raise InputError(
            f"{where}: {constraint!r} is the openai backend's; the provider backend holds "
            f"answers with {' or '.join(CONSTRAINTS)}"
        )
    if (
        constraint == "json_schema"
        and model.startswith("bedrock/")
        and "claude" not in model.lower()
    ):
        raise InputError(
            f"{where}: Bedrock holds only Claude to a JSON schema (inspect drops it for "
            f"{model!r}, and the replies would be free text); use constraint: tool"
        )


def check_top_logprobs(top_logprobs: int, where: str = "top_logprobs") -> None:
    """Refuse more alternatives a token than an API gives (one line, before any job)."""
    if top_logprobs > MAX_TOP_LOGPROBS:
        raise InputError(
            f"{where}: {top_logprobs} is more than the {MAX_TOP_LOGPROBS} alternatives a token "
            "that providers give"
        )


def last_problem(error: BaseException) -> str:
    """What went wrong, on one line: the last attempt's error where inspect gave up retrying
    (tenacity's RetryError wraps it)."""
    last = getattr(error, "last_attempt", None)
    if last is not None and last.exception() is not None:
        return f"{first_line(last.exception())} (the last of its attempts)"
    return first_line(error)


class ProviderBackend(Backend):
    """The questions of a batch asked at once, at most ``concurrency`` in flight; each failed
    one (after inspect's ``max_retries`` retries) is an error naming the model and the prompt."""

    def __init__(self, settings: ProviderSettings):
        from inspect_ai.model import GenerateConfig, get_model

        check_constraint(settings.model, settings.constraint)
        check_top_logprobs(settings.top_logprobs)
        self.settings = settings
        self.batch_size = 4 * settings.concurrency
        config = GenerateConfig(
            temperature=settings.temperature,
            max_retries=settings.max_retries,
            timeout=math.ceil(settings.timeout_s * (settings.max_retries + 1)),
            attempt_timeout=math.ceil(settings.timeout_s),
            max_connections=settings.concurrency,
            cache_prompt=False,
        )
        try:
            self.model = get_model(
                settings.model, base_url=settings.base_url, config=config, memoize=False
            )
        except Exception as exc:  # an unknown provider, its SDK or API key missing
            problem = MARKUP.sub("", whole_message(exc))
            raise InputError(f"model {settings.model!r}: {problem}") from None
        self._loop = asyncio.new_event_loop()

    def preflight(self, requests: Sequence[Request]) -> float | None:
        return refuse_over_budget(requests, self.settings)

    def answer(self, requests: Sequence[Request]) -> list[Response]:
        """All answers, or a PartialBatchError holding the ones obtained (already paid for)."""
        results = self._loop.run_until_complete(self._ask_all(requests))
        answered, errors = {}, []
        for index, result in enumerate(results):
            if isinstance(result, Response):
                answered[index] = result
            else:
                errors.append(str(self._failure(requests[index], last_problem(result))))
        return all_or_partial(answered, errors, len(requests))

    def close(self) -> None:
        """Close the model's clients and the event loop their connections belong to."""
        if not self._loop.is_closed():
            self._loop.run_until_complete(self.model.__aexit__(None, None, None))
            self._loop.run_until_complete(self._loop.shutdown_asyncgens())
            self._loop.close()

    async def _ask_all(self, requests: Sequence[Request]) -> list[Response | BaseException]:
        return await asyncio.gather(*map(self._ask, requests), return_exceptions=True)

    def _failure(self, request: Request, problem: str) -> BackendError:
        where = f" at {self.settings.base_url}" if self.settings.base_url else ""
        return BackendError(
            f"model {self.settings.model!r}{where}: {problem} (prompt {request.prompt[:80]!r}...)"
        )

    async def _ask(self, request: Request) -> Response:
        from inspect_ai.model import ChatMessageSystem, ChatMessageUser

        kinds = {"system": ChatMessageSystem, "user": ChatMessageUser}
        chat = chat_messages(self.settings.system_prompt, request.prompt)
        messages = [kinds[message["role"]](content=message["content"]) for message in chat]
        output = await self.model.generate(messages, **self._held(request))
        if output.error:
            raise BackendError(output.error)
        served = {"served_model": output.model or None}
        if request.free_tokens is not None:
            return free_response(request, output.completion, **served)
        if self.settings.constraint == "tool":
            calls = output.message.tool_calls or []
            if not calls:
                raise BackendError("the reply calls no tool")
            answer = str(calls[0].arguments.get("answer"))
        else:
            answer = json_answer(output.completion)
        if answer not in request.choices:
            raise BackendError(f"answered {answer!r}, outside {list(request.choices)}")
        tokens = reply_tokens(output.choices[0]) if output.choices else []
        return Response(answer, choice_logprobs(tokens, request.choices, answer), **served)

    def _held(self, request: Request) -> dict[str, Any]:
        """generate()'s arguments that hold a question to its answer space (none for a free
        one, cut at its budget)."""
        from inspect_ai.model import GenerateConfig, ResponseSchema
        from inspect_ai.tool import ToolFunction, ToolInfo, ToolParams
        from inspect_ai.util import JSONSchema

        if request.free_tokens is not None:
            return {"config": GenerateConfig(max_tokens=request.free_tokens)}
        asked: dict[str, Any] = {"max_tokens": self.settings.answer_max_tokens}
        if self.settings.top_logprobs:
            asked.update(logprobs=True, top_logprobs=self.settings.top_logprobs)
        schema = answer_schema(request.choices)
        if self.settings.constraint == "tool":
            parameters = ToolParams.model_validate(schema)
            tool = ToolInfo(name="answer", description="Give the answer.", parameters=parameters)
            return {
                "config": GenerateConfig(**asked),
                "tools": [tool],
                "tool_choice": ToolFunction("answer"),
            }
        held = ResponseSchema(
            name="answer", json_schema=JSONSchema.model_validate(schema), strict=True
        )
        return {"config": GenerateConfig(**asked, response_schema=held)}


def create(settings: Mapping[str, Any], state_dir: Path | None) -> Backend:
    """The backend of one model's validated settings (it keeps no state: ``state_dir`` unused)."""
    return ProviderBackend(ProviderSettings.from_config(settings))
