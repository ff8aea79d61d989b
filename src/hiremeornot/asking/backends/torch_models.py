"""What the two local backends (transformers, extractive_qa) share: dtypes, devices, loading."""

from __future__ import annotations

from typing import Any

import torch

from hiremeornot.errors import InputError, first_line, whole_message

# "auto" takes the dtype of the model's config.
DTYPES = {
    "auto": "auto",
    "float32": torch.float32,
    "bfloat16": torch.bfloat16,
    "float16": torch.float16,
}


def torch_device(model: str, device: str) -> torch.device:
    """The configured device, checked before any weights load (an InputError if unusable)."""
    try:
        parsed = torch.device(device)
        torch.empty(0, device=parsed)
    except (RuntimeError, AssertionError) as exc:
        raise InputError(
            f"model {model!r}: device {device!r} is not usable here: {first_line(exc)}"
        ) from None
    return parsed


def load_tokenizer(auto_class: Any, model: str, location: str) -> Any:
    """``auto_class.from_pretrained(location)``; an InputError naming the model if it fails."""
    try:
        return auto_class.from_pretrained(location)
    except (OSError, ValueError) as exc:
        raise InputError(
            f"model {model!r}: cannot load its tokenizer: {whole_message(exc)}"
        ) from None


def folder_tokenizer(model: str) -> Any:
    """The tokenizer of ``model`` (a folder, a hub id or an embedded model, read without a GGUF
    file) by transformers' AutoTokenizer, without the weights."""
    from transformers import AutoTokenizer

    from hiremeornot.asking.backends.location import locate_model

    return load_tokenizer(AutoTokenizer, model, locate_model(model, None)[0])


def load_model(auto_class: Any, model: str, location: str, dtype: str, device: str) -> Any:
    """The weights in ``dtype`` on ``device``, in eval mode; an InputError naming the model (or
    the device) if they cannot be loaded there."""
    target = torch_device(model, device)
    try:
        loaded = auto_class.from_pretrained(location, dtype=DTYPES[dtype])
    except (OSError, ValueError) as exc:
        raise InputError(f"model {model!r}: cannot load its weights: {first_line(exc)}") from None
    return loaded.to(target).eval()
