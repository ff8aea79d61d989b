"""The simulated backend: answers drawn from a respondent with planted effects (respondent.py).

It needs no model, no torch and no network: every question is answered from what it asks
(``Request.about``), deterministically from the seed and the question, with the log-probability
of every choice equal to the log of the probability its answer was drawn from, and the planted
probability of the answer space (``respondent.answer_mass``) as its answer_mass. A question asked
free gets the respondent's free reply (``respondent.reply``), cut at its budget in words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hiremeornot.asking.backends.base import (
    Backend,
    BackendError,
    BackendSettings,
    Request,
    Response,
    free_response,
)
from hiremeornot.asking.respondent import Respondent


@dataclass(frozen=True)
class SimulatedSettings(BackendSettings):
    model: str  # a label
    respondent: Mapping[str, Any]
    batch_size: int


def create(settings: Mapping[str, Any], state_dir: Path | None) -> SimulatedBackend:
    """The backend of one model's validated settings (it keeps no state between runs)."""
    typed = SimulatedSettings.from_config(settings)
    intervention = settings.get("intervention", {}).get("id")
    return SimulatedBackend(Respondent(typed.respondent, intervention), typed.batch_size)


class SimulatedBackend(Backend):
    """Answers every question of every step from the respondent's generative model."""

    def __init__(self, respondent: Respondent, batch_size: int):
        self.respondent = respondent
        self.batch_size = batch_size

    def answer(self, requests: Sequence[Request]) -> list[Response]:
        return [self._answer(request) for request in requests]

    def _answer(self, request: Request) -> Response:
        if request.about is None:
            raise BackendError(
                "the simulated backend answers only questions that say what they ask "
                f"(Request.about); got the bare prompt {request.prompt[:60]!r}"
            )
        probabilities = self.respondent.probabilities(request.about)
        if len(probabilities) != len(request.choices):
            raise BackendError(
                f"{request.about['question']}: {len(request.choices)} choices but the respondent "
                f"gives {len(probabilities)} probabilities"
            )
        if request.free_tokens is not None:
            reply = self.respondent.reply(
                request.prompt, request.choices, probabilities, request.about
            )
            return free_response(request, " ".join(reply.split()[: request.free_tokens]))
        chosen = self.respondent.pick(request.prompt, request.choices, probabilities)
        with np.errstate(divide="ignore"):  # a planted probability of 0 has log-probability -inf
            logprobs = tuple(float(v) for v in np.log(probabilities))
        mass = self.respondent.answer_mass(request.about)
        return Response(request.choices[chosen], logprobs, answer_mass=mass)
