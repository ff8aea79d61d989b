"""One request per question (``mode: sync``): ``concurrency`` in flight, rate-limited."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from hiremeornot.asking.backends.base import (
    Backend,
    BackendError,
    Request,
    Response,
    all_or_partial,
)
from hiremeornot.asking.backends.openai.api import ChatAPI
from hiremeornot.asking.backends.openai.settings import OpenAISettings


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
    """One request per question, ``concurrency`` in flight, at most ``requests_per_minute``."""

    def __init__(self, settings: OpenAISettings):
        self.api = ChatAPI(settings)
        self.concurrency = settings.concurrency
        self.batch_size = 4 * self.concurrency
        self.limiter = RateLimiter(settings.requests_per_minute)

    def preflight(self, requests: Sequence[Request]) -> float | None:
        return self.api.preflight(requests)

    def close(self) -> None:
        self.api.close()

    def _complete(self, request: Request) -> Any:
        """The chat completion (with at least one choice); a reply body that is not JSON is
        asked again (limited)."""
        import openai

        arguments = self.api.arguments(request)
        for attempt in range(self.api.settings.max_retries + 1):
            self.limiter.wait()
            try:
                completion = self.api.client.chat.completions.create(**arguments)
                completion.choices[0]  # noqa: B018 (a reply without choices is malformed)
                return completion
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
