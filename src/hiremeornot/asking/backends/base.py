"""The one interface every model backend implements."""

from __future__ import annotations

import dataclasses
import math
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Self

# The settings only a constrained question reads (how the answer is held to its words, scored
# and budgeted): a free question's store key leaves them out (store.request_key), so editing
# one asks no free question again.
CONSTRAINED_ONLY = frozenset(
    {"answer_max_tokens", "constraint", "decoding", "tokenizer", "top_logprobs"}
)


@dataclass(frozen=True)
class Request:
    """A question: the user message and the answers the model may give.

    ``about`` says what the question asks in structured form (its step, occupation, people and
    their groups: see questions.py), for a backend that answers from a model of the design
    instead of the text (the simulated respondent). It is never part of the question's identity:
    two requests with the same prompt and choices are the same question.

    ``free_tokens`` set asks the question free (answers_mode free): without the constraint,
    the reply cut at that many tokens, and read by asking/free_replies.py; None: constrained.
    """

    prompt: str
    choices: tuple[str, ...]
    about: Mapping[str, Any] | None = field(default=None, compare=False, hash=False, repr=False)
    free_tokens: int | None = None


@dataclass(frozen=True)
class Response:
    """The chosen answer and the log-probability the model gives each choice (same order).

    ``answer_mass`` is the probability the model put on the answer space before the constraint
    held it there (the sum over the choices, each spelled out whole): near 1, the model would
    have answered with a choice anyway; below 0.5, the constraint forced the answer. It is NaN
    where the backend does not see the unconstrained distribution (see each backend).

    An API reports which model served the reply (``served_model``, e.g. a dated snapshot behind
    an alias) and may report a ``system_fingerprint`` of its serving configuration; both are
    None for backends that report neither.

    A free question's ``reply`` is the model's own text, and its ``answer`` what the parser read
    in it: one of the choices or a non-answer (refused, other, unparsed); its log-probabilities
    are NaN (nothing held the reply to the choices). None for a constrained question.
    """

    answer: str
    logprobs: tuple[float, ...]
    served_model: str | None = None
    system_fingerprint: str | None = None
    answer_mass: float = math.nan
    reply: str | None = None


def free_response(request: Request, reply: str, **reported: Any) -> Response:
    """The response to a free question whose model replied ``reply`` (``reported``: what the
    backend saw of who served it)."""
    from hiremeornot.asking.free_replies import read_reply

    roles = (request.about or {}).get("roles") or request.choices
    answer = read_reply(reply, request.choices, roles).answer
    return Response(answer, (math.nan,) * len(request.choices), reply=reply, **reported)


class BackendSettings:
    """Base of each backend's typed settings: a frozen dataclass whose fields are setting names.

    The fields have no defaults: every value comes from validated settings, in which the
    config's schema filled each default (the one place defaults are written).
    """

    @classmethod
    def from_config(cls, settings: Mapping[str, Any]) -> Self:
        """The fields' values from one model's validated settings (other keys are ignored)."""
        names = [field.name for field in dataclasses.fields(cls)]  # type: ignore[arg-type]
        missing = [name for name in names if name not in settings]
        if missing:
            raise TypeError(
                f"{cls.__name__}: the model settings lack {missing}; validate them first "
                "(hiremeornot.config.validate_config, or model_settings for one model)"
            )
        return cls(**{name: settings[name] for name in names})


def chat_messages(system_prompt: str | None, prompt: str) -> list[dict[str, str]]:
    """The chat of one question: the system message, if any, and the prompt as the user's turn."""
    head = [{"role": "system", "content": system_prompt}] if system_prompt is not None else []
    return [*head, {"role": "user", "content": prompt}]


class Backend(ABC):
    """Answers requests, constrained to each request's choices, or free where a request says
    so (``free_tokens``) and the backend is one of FREE_BACKENDS (backends/__init__.py)."""

    batch_size: int = 1

    @abstractmethod
    def answer(self, requests: Sequence[Request]) -> list[Response]:
        """Answer a batch of requests, in order."""

    def preflight(self, requests: Sequence[Request]) -> float | None:
        """Called once with every request about to be asked: a paid API prints and returns its
        estimated cost in USD (None: not priced)."""
        return None

    def close(self) -> None:
        """Release what the backend holds open (connections, an event loop); called once it
        has answered everything it was loaded for (most backends hold nothing)."""
        return None


def token_count(tokenizer: Any, text: str) -> int | None:
    """How many tokens ``text`` takes by a Hugging Face ``tokenizer``; None without one."""
    if tokenizer is None:
        return None
    return len(tokenizer.encode(text, add_special_tokens=False))


class BackendError(RuntimeError):
    """A backend failed or answered outside the answer space."""


class PartialBatchError(BackendError):
    """A batch in which some requests failed; ``answered`` maps batch positions to responses."""

    def __init__(self, message: str, answered: dict[int, Response]):
        super().__init__(message)
        self.answered = answered


def all_or_partial(
    answered: dict[int, Response], errors: Sequence[str], count: int, context: str = ""
) -> list[Response]:
    """The ``count`` answers in order, or a PartialBatchError keeping those obtained.

    Its message is ``context``, the first error and how many others failed.
    """
    if errors:
        more = f" (and {len(errors) - 1} more failed requests)" if len(errors) > 1 else ""
        raise PartialBatchError(f"{context}{errors[0]}{more}", answered)
    return [answered[index] for index in range(count)]
