"""The settings the openai backend reads (their meaning and defaults: the config schema)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from hiremeornot.asking.backends.base import BackendSettings


@dataclass(frozen=True)
class OpenAISettings(BackendSettings):
    """One openai model's settings, taken from its validated config."""

    model: str
    base_url: str | None
    api_key_env: str
    constraint: str
    tokenizer: str | None
    system_prompt: str | None
    temperature: float
    mode: str
    concurrency: int
    requests_per_minute: int | None
    max_retries: int
    timeout_s: float
    batch_poll_s: float
    batch_max_requests: int
    price_per_million_tokens: Mapping[str, float] | None
    max_cost_usd: float | None

    @property
    def server(self) -> str:
        """Where the model is asked, for messages: the base URL, or OpenAI."""
        return self.base_url or "OpenAI"
