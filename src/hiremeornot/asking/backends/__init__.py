"""Model backends, registered by name and imported only when used."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hiremeornot.asking.backends import location
from hiremeornot.asking.backends.base import Backend, BackendError, Request, Response
from hiremeornot.config import model_keys
from hiremeornot.errors import InputError, first_line

__all__ = [
    "Backend",
    "BackendError",
    "Request",
    "Response",
    "BACKENDS",
    "FREE_BACKENDS",
    "API_BACKENDS",
    "environment",
    "load_backend",
    "load_tokenizer",
    "model_identity",
]

# Every backend, registered once: its module, whose ``create(settings, state_dir)`` builds it,
# and the extra that installs what it needs (None: the core package has everything), which
# also names its conda environment (envs/<extra>.yaml, envs/core.yaml for None). The schema's
# list of backends (models.<name>.backend) is checked against it (tests/test_config.py).
BACKENDS = {
    "transformers": ("hiremeornot.asking.backends.transformers_backend", "transformers"),
    "openai": ("hiremeornot.asking.backends.openai", "openai"),
    "vllm": ("hiremeornot.asking.backends.vllm_backend", "vllm"),
    "extractive_qa": ("hiremeornot.asking.backends.extractive_qa", "transformers"),
    "simulated": ("hiremeornot.asking.backends.simulated", None),
    "provider": ("hiremeornot.asking.backends.providers", "providers"),
}


# The backends that ask free questions (answers_mode free); the others are refused before
# any job (checks.py).
FREE_BACKENDS = ("transformers", "openai", "vllm", "simulated", "provider")

# The backends that ask a model over a paid API: their runs are priced before anything is
# asked (the estimate, max_cost_usd) and the manifest records the model id, not its weights.
API_BACKENDS = ("openai", "provider")

# Answers settings each request carries itself (Request.free_tokens), not the model's identity.
ASKED_PER_REQUEST = frozenset({"answers_mode", "free_max_tokens"})
# Answers settings of another model (which reads the replies, with a store of its own).
READ_BY_ANOTHER_MODEL = frozenset({"free_classifier"})


def environment(name: str) -> str:
    """The conda environment (envs/<it>.yaml) a backend's jobs run in."""
    return BACKENDS[name][1] or "core"


def load_backend(
    name: str, settings: Mapping[str, Any], state_dir: str | Path | None = None
) -> Backend:
    """Build the backend called ``name`` for one model's validated settings.

    ``settings`` come from the validated config (``hiremeornot.config.model_settings`` fills
    one model's defaults). ``state_dir`` is a folder where a backend may keep state across runs
    (the Batch API's journal of submitted batches); it is no config key.
    """
    if name not in BACKENDS:
        raise InputError(f"unknown backend {name!r}; known: {sorted(BACKENDS)}")
    module_name, extra = BACKENDS[name]
    try:
        module = importlib.import_module(module_name)
        return module.create(settings, None if state_dir is None else Path(state_dir))
    except ImportError as exc:
        if (exc.name or "").startswith("hiremeornot") or extra is None:
            raise
        raise InputError(
            f"backend {name!r}: a package it needs is missing ({first_line(exc)}); "
            f"pip install 'hiremeornot[{extra}]' (or use the conda env envs/{extra}.yaml)"
        ) from None


def load_tokenizer(name: str, settings: Mapping[str, Any]) -> Any:
    """The model's Hugging Face tokenizer without its weights (a backend module's
    ``tokenizer(settings)``), to count tokens when every answer comes from the store; None for a
    backend that holds none (an API's, the simulated respondent)."""
    module = importlib.import_module(BACKENDS[name][0])
    make = getattr(module, "tokenizer", None)
    return None if make is None else make(settings)


def model_identity(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Everything about a model and its settings that can change an answer (the store's key).

    The settings the schema marks ``x-role: answers``; runtime and resource settings, and
    anything else (such as a ``state_dir``), are left out, and so is how each step is asked
    (ASKED_PER_REQUEST: a free question's key holds its token budget, store.request_key), so
    that a constrained question keeps its key whatever the other steps' mode, and so is the
    model that reads its free replies (READ_BY_ANOTHER_MODEL).
    """
    answers = model_keys("answers") - ASKED_PER_REQUEST - READ_BY_ANOTHER_MODEL
    identity = {k: v for k, v in settings.items() if k in answers}
    if location.is_embedded(settings["model"]):
        identity["package"] = location.locate(settings["model"])[2]
    return identity
