"""Model backends, registered by name and imported only when used."""

from __future__ import annotations

import importlib
from typing import Any

from hiremeornot.backends import location
from hiremeornot.backends.base import Backend, BackendError, Request, Response
from hiremeornot.errors import InputError

__all__ = ["Backend", "BackendError", "Request", "Response", "load_backend", "model_identity"]

_REGISTRY = {
    "transformers": "hiremeornot.backends.transformers_backend:TransformersBackend",
    "openai": "hiremeornot.backends.openai_backend:create",
    "vllm": "hiremeornot.backends.vllm_backend:VLLMBackend",
    "extractive_qa": "hiremeornot.backends.extractive_qa:ExtractiveQABackend",
}


def load_backend(name: str, settings: dict[str, Any]) -> Backend:
    """Build the backend called ``name`` for one model's settings."""
    if name not in _REGISTRY:
        raise InputError(f"unknown backend {name!r}; known: {sorted(_REGISTRY)}")
    module_name, factory_name = _REGISTRY[name].split(":")
    factory = getattr(importlib.import_module(module_name), factory_name)
    return factory(settings)


# Settings that change how fast answers come, never what they are.
RUNTIME_KEYS = {
    "shard_size",
    "batch_size",
    "threads",
    "device",
    "mem_mb",
    "runtime",
    "gpus",
    "gpu_model",
    "concurrency",
    "requests_per_minute",
    "max_retries",
    "timeout_s",
    "api_key_env",
    "mode",
    "batch_poll_s",
    "batch_max_requests",
    "price_per_million_tokens",
    "max_cost_usd",
    "state_dir",
    "tensor_parallel_size",
    "pipeline_parallel_size",
    "distributed_executor_backend",
    "gpu_memory_utilization",
    "max_model_len",
    "seed",
    "download_dir",
}


def model_identity(settings: dict[str, Any]) -> dict[str, Any]:
    """Everything about a model and its settings that can change an answer (the store's key)."""
    identity = {k: v for k, v in settings.items() if k not in RUNTIME_KEYS}
    if location.is_embedded(settings["model"]):
        identity["package"] = location.locate(settings["model"])[2]
    return identity
