"""One model behind a chat-completions endpoint: the client, the request bodies, the replies.

The API key is read from the environment variable named by ``api_key_env``, never from the
config. Transient faults (429 with Retry-After, 5xx, timeouts, dropped connections) are retried
by the SDK up to ``max_retries`` times; an answer that is malformed or outside the answer space
is an error naming the model and the prompt, and is never stored.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from hiremeornot.asking.backends.base import (
    BackendError,
    Request,
    Response,
    chat_messages,
    free_response,
)
from hiremeornot.asking.backends.openai.constraints import make_constraint
from hiremeornot.asking.backends.openai.cost import refuse_over_budget
from hiremeornot.asking.backends.openai.settings import OpenAISettings
from hiremeornot.errors import InputError

TOP_LOGPROBS = 20  # the most the API returns per token


class ChatAPI:
    """The client of one model, and what its requests and replies look like."""

    def __init__(self, settings: OpenAISettings):
        try:
            import openai
        except ImportError as exc:
            raise InputError(
                f"model {settings.model!r}: the openai backend needs the openai package ({exc}); "
                "create the conda env envs/openai.yaml, or pip install 'hiremeornot[openai]'"
            ) from None

        api_key = os.environ.get(settings.api_key_env)
        if not api_key:
            raise InputError(
                f"model {settings.model!r}: set the API key in ${settings.api_key_env}"
            )
        self.settings = settings
        self.constraint = make_constraint(settings)
        self.client = openai.OpenAI(
            api_key=api_key,
            base_url=settings.base_url,
            max_retries=settings.max_retries,
            timeout=settings.timeout_s,
        )

    def close(self) -> None:
        self.client.close()

    def arguments(self, request: Request) -> dict[str, Any]:
        """The chat-completions request body of a question: a free one's without constraint
        or log-probabilities, its reply cut at ``max_tokens`` (the field every compatible
        server reads)."""
        messages = chat_messages(self.settings.system_prompt, request.prompt)
        if request.free_tokens is not None:
            return {
                "model": self.settings.model,
                "messages": messages,
                "temperature": self.settings.temperature,
                "max_tokens": request.free_tokens,
            }
        try:
            constrained = self.constraint.arguments(request.choices)
        except ValueError as exc:
            raise self.fail(request, str(exc)) from None
        return {
            "model": self.settings.model,
            "messages": messages,
            "temperature": self.settings.temperature,
            "logprobs": True,
            "top_logprobs": TOP_LOGPROBS,
            **constrained,
        }

    def fail(self, request: Request, problem: str) -> BackendError:
        return BackendError(
            f"model {self.settings.model!r} at {self.settings.server}: "
            f"{problem} (prompt {request.prompt[:80]!r}...)"
        )

    def response(self, request: Request, completion: Any) -> Response:
        """The answer of a chat completion's first choice, with the model id and the system
        fingerprint the server reports; an error if it is malformed or outside the choices.
        A free question's reply is its text (a refusal the API reports apart, if no text)."""
        served = {
            "served_model": getattr(completion, "model", None) or None,
            "system_fingerprint": getattr(completion, "system_fingerprint", None) or None,
        }
        if request.free_tokens is not None:
            try:
                message = completion.choices[0].message
            except (IndexError, AttributeError):
                raise self.fail(request, "the reply has no message") from None
            text = message.content or getattr(message, "refusal", None) or ""
            return free_response(request, text, **served)
        try:
            answer, logprobs = self.constraint.parse(completion.choices[0], request.choices)
        except (ValueError, IndexError) as exc:
            raise self.fail(request, str(exc) or "the reply has no choices") from None
        if answer not in request.choices:
            raise self.fail(request, f"answered {answer!r}, outside {list(request.choices)}")
        return Response(answer, logprobs, **served)

    def preflight(self, requests: Sequence[Request]) -> float | None:
        return refuse_over_budget(requests, self.settings)
