"""A deterministic, counting backend for testing the store and the asking logic."""

from __future__ import annotations

import hashlib

from hiremeornot.asking.backends.base import Backend, Request, Response


class CountingBackend(Backend):
    """Picks a choice from a hash of the prompt and counts every question it is asked."""

    def __init__(self, batch_size: int = 4):
        self.batch_size = batch_size
        self.asked: list[Request] = []
        self.closed = 0  # how many times it was closed

    def answer(self, requests):
        self.asked += requests
        responses = []
        for request in requests:
            digest = hashlib.sha256(request.prompt.encode()).digest()
            index = digest[0] % len(request.choices)
            # its own answer is the likeliest, as a greedy model's is
            logprobs = tuple(-0.5 if i == index else -2.0 - i for i in range(len(request.choices)))
            mass = digest[1] / 255  # the answer space's probability, any value in [0, 1]
            responses.append(Response(request.choices[index], logprobs, answer_mass=mass))
        return responses

    def close(self):
        self.closed += 1
