"""Chat-completions APIs: OpenAI and any OpenAI-compatible server (vLLM serve, llama.cpp, ...).

Answers are held to the answer space by the ``constraint`` setting (see openai_constraints). The
API key is read from the environment variable named by ``api_key_env``, never from the config.
Transient faults (429 with Retry-After, 5xx, timeouts, dropped connections) are retried by the
SDK up to ``max_retries`` times; an answer that is malformed or outside the answer space is an
error naming the model and the prompt, and is never stored. ``mode: batch`` sends the questions
through the Batch API instead (openai_batch).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from hiremeornot.backends.base import (
    Backend,
    BackendError,
    Request,
    Response,
    all_or_partial,
    chat_messages,
)
from hiremeornot.backends.openai_constraints import make_constraint
from hiremeornot.backends.openai_cost import cost_estimate
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


class ChatAPI:
    """One model behind a chat-completions endpoint: the client, the requests, the replies."""

    def __init__(self, settings: dict[str, Any]):
        import openai

        key_name = settings.get("api_key_env", "OPENAI_API_KEY")
        api_key = os.environ.get(key_name)
        if not api_key:
            raise InputError(f"model {settings['model']!r}: set the API key in ${key_name}")
        self.settings = settings
        self.constraint = make_constraint(settings)
        self.client = openai.OpenAI(
            api_key=api_key,
            base_url=settings.get("base_url"),
            max_retries=settings.get("max_retries", 5),
            timeout=settings.get("timeout_s", 60),
        )

    def arguments(self, request: Request) -> dict[str, Any]:
        """The chat-completions request body of a question."""
        try:
            constrained = self.constraint.arguments(request.choices)
        except ValueError as exc:
            raise self.fail(request, str(exc)) from None
        return {
            "model": self.settings["model"],
            "messages": chat_messages(self.settings.get("system_prompt"), request.prompt),
            "temperature": self.settings.get("temperature", 0.0),
            "logprobs": True,
            "top_logprobs": 20,
            **constrained,
        }

    def fail(self, request: Request, problem: str) -> BackendError:
        return BackendError(
            f"model {self.settings['model']!r} at {self.settings.get('base_url') or 'OpenAI'}: "
            f"{problem} (prompt {request.prompt[:80]!r}...)"
        )

    def response(self, request: Request, reply: Any) -> Response:
        """The answer of a reply choice; an error if it is malformed or outside the choices."""
        try:
            answer, logprobs = self.constraint.parse(reply, request.choices)
        except ValueError as exc:
            raise self.fail(request, str(exc)) from None
        if answer not in request.choices:
            raise self.fail(request, f"answered {answer!r}, outside {list(request.choices)}")
        return Response(answer, logprobs)

    def preflight(self, requests: Sequence[Request]) -> None:
        """Print the run's size and estimated cost; refuse it if over ``max_cost_usd``."""
        estimate = cost_estimate(requests, self.settings)
        print(estimate.line(), file=sys.stderr, flush=True)
        limit = self.settings.get("max_cost_usd")
        if limit is not None and estimate.usd is not None and estimate.usd > limit:
            raise InputError(
                f"model {self.settings['model']!r}: the estimated cost ${estimate.usd:.2f} is "
                f"over max_cost_usd ${limit:.2f}; nothing was asked"
            )


def create(settings: dict[str, Any]) -> Backend:
    """The backend of ``mode``: one request per question, or the Batch API."""
    if settings.get("mode", "sync") == "batch":
        from hiremeornot.backends.openai_batch import OpenAIBatchBackend

        return OpenAIBatchBackend(settings)
    return OpenAIBackend(settings)


class OpenAIBackend(Backend):
    """One request per question, ``concurrency`` in flight, at most ``requests_per_minute``."""

    def __init__(self, settings: dict[str, Any]):
        self.api = ChatAPI(settings)
        self.concurrency = settings.get("concurrency", 4)
        self.batch_size = 4 * self.concurrency
        self.limiter = RateLimiter(settings.get("requests_per_minute"))

    def preflight(self, requests: Sequence[Request]) -> None:
        self.api.preflight(requests)

    def _complete(self, request: Request) -> Any:
        """The reply's first choice; a reply body that is not JSON is asked again (limited)."""
        import openai

        arguments = self.api.arguments(request)
        for attempt in range(self.api.settings.get("max_retries", 5) + 1):
            self.limiter.wait()
            try:
                return self.api.client.chat.completions.create(**arguments).choices[0]
            except openai.APIError as exc:
                raise self.api.fail(request, f"{type(exc).__name__}: {exc}") from None
            except (ValueError, IndexError, AttributeError) as exc:
                problem = f"malformed reply after {attempt + 1} attempts: {exc}"
        raise self.api.fail(request, problem)

    def _ask(self, request: Request) -> Response:
        return self.api.response(request, self._complete(request))

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
        return all_or_partial(answered, errors, len(requests))
