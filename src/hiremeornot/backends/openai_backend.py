"""Chat-completion APIs: OpenAI and any OpenAI-compatible server (vLLM serve, llama.cpp, ...).

The answer is constrained to the choices by ``constraint``:
- ``json_schema``: ``response_format`` with a JSON schema whose only property is an enum of the
  choices (OpenAI models that support structured outputs);
- ``structured_outputs``: vLLM's ``extra_body={"structured_outputs": {"choice": [...]}}``.
The API key is read from the environment variable named by ``api_key_env``, never from the
config. Transient faults (429 with Retry-After, 5xx, timeouts, dropped connections) are retried by
the SDK up to ``max_retries`` times; an answer that is malformed or outside the answer space is
an error naming the model and the prompt, and is never stored.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from hiremeornot.backends.base import (
    Backend,
    BackendError,
    PartialBatchError,
    Request,
    Response,
    chat_messages,
)
from hiremeornot.backends.token_logprobs import GeneratedToken, choice_logprobs
from hiremeornot.errors import InputError


class RateLimiter:
    """At most ``per_minute`` calls a minute across threads (None: unlimited)."""

    def __init__(self, per_minute: int | None):
        self.interval = 60.0 / per_minute if per_minute else 0.0
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self.interval
        time.sleep(max(0.0, start - now))


class OpenAIBackend(Backend):
    """A model behind a chat-completions endpoint."""

    def __init__(self, settings: dict[str, Any]):
        import openai

        key_name = settings.get("api_key_env", "OPENAI_API_KEY")
        api_key = os.environ.get(key_name)
        if not api_key:
            raise InputError(f"model {settings['model']!r}: set the API key in ${key_name}")
        self.settings = settings
        self.json_schema = settings.get("constraint", "json_schema") == "json_schema"
        self.concurrency = settings.get("concurrency", 4)
        self.batch_size = 4 * self.concurrency
        self.limiter = RateLimiter(settings.get("requests_per_minute"))
        self.client = openai.OpenAI(
            api_key=api_key,
            base_url=settings.get("base_url"),
            max_retries=settings.get("max_retries", 5),
            timeout=settings.get("timeout_s", 60),
        )

    def _arguments(self, request: Request) -> dict[str, Any]:
        arguments: dict[str, Any] = {
            "model": self.settings["model"],
            "messages": chat_messages(self.settings.get("system_prompt"), request.prompt),
            "temperature": self.settings.get("temperature", 0.0),
            "logprobs": True,
            "top_logprobs": 20,
        }
        if self.json_schema:
            schema = {
                "type": "object",
                "properties": {"answer": {"type": "string", "enum": list(request.choices)}},
                "required": ["answer"],
                "additionalProperties": False,
            }
            arguments["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "answer", "strict": True, "schema": schema},
            }
        else:
            arguments["extra_body"] = {"structured_outputs": {"choice": list(request.choices)}}
        return arguments

    def _fail(self, request: Request, problem: str) -> BackendError:
        return BackendError(
            f"model {self.settings['model']!r} at {self.settings.get('base_url') or 'OpenAI'}: "
            f"{problem} (prompt {request.prompt[:80]!r}...)"
        )

    def _answer_text(self, request: Request, content: str | None) -> str:
        if content is None:
            raise self._fail(request, "the reply has no content")
        if not self.json_schema:
            return content.strip()
        try:
            return str(json.loads(content)["answer"])
        except (ValueError, KeyError, TypeError):
            raise self._fail(request, f"malformed JSON answer {content[:80]!r}") from None

    def _complete(self, request: Request):
        """The reply's first choice; a reply body that is not JSON is asked again (limited)."""
        import openai

        for attempt in range(self.settings.get("max_retries", 5) + 1):
            self.limiter.wait()
            try:
                return self.client.chat.completions.create(**self._arguments(request)).choices[0]
            except openai.APIError as exc:
                raise self._fail(request, f"{type(exc).__name__}: {exc}") from None
            except (ValueError, IndexError, AttributeError) as exc:
                problem = f"malformed reply after {attempt + 1} attempts: {exc}"
        raise self._fail(request, problem)

    def _ask(self, request: Request) -> Response:
        choice = self._complete(request)
        answer = self._answer_text(request, choice.message.content)
        if answer not in request.choices:
            raise self._fail(request, f"answered {answer!r}, outside {list(request.choices)}")
        return Response(answer, choice_logprobs(reply_tokens(choice), request.choices, answer))

    def answer(self, requests: Sequence[Request]) -> list[Response]:
        """All answers, or a PartialBatchError holding the ones obtained (already paid for)."""
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            futures = [pool.submit(self._ask, request) for request in requests]
        answered, errors = {}, []
        for index, future in enumerate(futures):
            try:
                answered[index] = future.result()
            except BackendError as exc:
                errors.append(str(exc))
        if errors:
            more = f" (and {len(errors) - 1} more failed requests)" if len(errors) > 1 else ""
            raise PartialBatchError(errors[0] + more, answered)
        return [answered[index] for index in range(len(requests))]


def reply_tokens(choice) -> list[GeneratedToken]:
    """The reply's tokens with their top alternatives (none without log-probabilities)."""
    tokens = getattr(getattr(choice, "logprobs", None), "content", None) or []
    return [
        GeneratedToken(t.token, t.logprob, {a.token: a.logprob for a in t.top_logprobs or []})
        for t in tokens
    ]
