"""Chat-completions APIs: OpenAI and any OpenAI-compatible server (vLLM serve, llama.cpp, ...).

The modules import one another in one direction only, each from those listed before it:

- ``settings``: ``OpenAISettings``, the keys this backend reads;
- ``constraints``: how a request is held to the answer space (``constraint``);
- ``cost``: the size and estimated cost of a run (``price_per_million_tokens``);
- ``api``: ``ChatAPI``, the client, the request bodies, the reading of replies, the cost check;
- ``sync``: one request per question (``mode: sync``);
- ``batch``: the questions as Batch API files (``mode: batch``), resumed after a restart.

See docs/backends/openai.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hiremeornot.asking.backends.base import Backend
from hiremeornot.asking.backends.openai.batch import OpenAIBatchBackend
from hiremeornot.asking.backends.openai.settings import OpenAISettings
from hiremeornot.asking.backends.openai.sync import OpenAIBackend

__all__ = ["OpenAIBackend", "OpenAIBatchBackend", "OpenAISettings", "create"]


def create(settings: Mapping[str, Any], state_dir: Path | None) -> Backend:
    """The backend of ``mode``: one request per question, or the Batch API (which keeps the
    journal of its batches in ``state_dir``)."""
    typed = OpenAISettings.from_config(settings)
    if typed.mode == "batch":
        if state_dir is None:
            raise TypeError("mode batch keeps a journal of its batches: pass a state_dir")
        return OpenAIBatchBackend(typed, state_dir)
    return OpenAIBackend(typed)
