"""A model's identity as this host can see it: the SHA-256 of its weight files (cached, so that
a large model is hashed once), or the commit of a hub revision and its blob ids."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hiremeornot.asking.backends import API_BACKENDS, location
from hiremeornot.asking.backends.gguf_cache import cache_root
from hiremeornot.atomic import atomic_output
from hiremeornot.errors import InputError
from hiremeornot.tables_io import sha256_file


def files_in(path: Path) -> list[Path]:
    """``path`` itself, or every file under a folder (hidden ones aside), sorted."""
    if path.is_dir():
        return sorted(
            p
            for p in path.rglob("*")
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(path).parts)
        )
    return [path]


def cached_sha256(path: Path, cache: Path | None = None) -> str:
    """SHA-256 of a (large) file, cached under ``<cache>/sha256/`` by path, size and mtime, so
    that a 140 GB model is hashed once, not at every manifest."""
    stat = path.stat()
    tag = f"{path.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}"
    folder = (cache or cache_root()) / "sha256"
    entry = folder / hashlib.sha256(tag.encode("utf-8")).hexdigest()
    if entry.is_file():
        return entry.read_text().strip()
    digest = sha256_file(path)
    try:
        with atomic_output(entry) as partial:
            partial.write_text(digest + "\n")
    except OSError:  # a read-only cache costs only the time to hash again
        pass
    return digest


def _hashed_files(files: list[Path], root: Path, cache: Path | None) -> list[dict[str, Any]]:
    return [
        {
            "path": path.relative_to(root).as_posix(),
            "sha256": cached_sha256(path, cache),
            "bytes": path.stat().st_size,
        }
        for path in files
    ]


def hub_cache(settings: Mapping[str, Any]) -> Path:
    """Where the Hugging Face hub keeps downloaded models (a vllm ``download_dir`` first)."""
    if settings.get("download_dir"):
        return Path(settings["download_dir"])
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"])
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]) / "hub"
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "huggingface" / "hub"


def hub_snapshot(model: str, revision: str | None, cache: Path) -> dict[str, Any]:
    """The commit a hub id resolves to in the local hub cache, and its files' blob ids (for a
    file in Git LFS, as weights are, the blob id is the SHA-256 of its content)."""
    folder = cache / f"models--{model.replace('/', '--')}"
    wanted = revision or "main"
    ref = folder / "refs" / wanted
    commit = ref.read_text().strip() if ref.is_file() else None
    if commit is None and len(wanted) == 40 and (folder / "snapshots" / wanted).is_dir():
        commit = wanted
    record: dict[str, Any] = {"kind": "hub", "id": model, "revision": wanted, "commit": commit}
    if commit is None:
        record["note"] = f"not in the local hub cache {cache}"
        return record
    snapshot = folder / "snapshots" / commit
    record["files"] = [
        {
            "path": path.relative_to(snapshot).as_posix(),
            "blob": path.resolve().name,
            "bytes": path.stat().st_size,
        }
        for path in files_in(snapshot)
    ]
    return record


def model_weights(settings: Mapping[str, Any], cache: Path | None = None) -> dict[str, Any]:
    """The identity of a model's weights as far as this host can see them.

    - embedded: the package and version, and the SHA-256 of its GGUF file;
    - a local folder: the SHA-256 of its ``gguf_file``, or of every file in it (cached by path,
      size and mtime: see cached_sha256);
    - a hub id: the commit of the requested revision in the local hub cache, and its blob ids;
    - openai and provider: the configured model id and server (the ids the server reported are in
      ``served``, from the store);
    - simulated: no weights (its planted respondent is in the resolved config).

    A model whose weights this host cannot see is recorded as ``unavailable`` with the reason.
    """
    model = settings["model"]
    if settings["backend"] in API_BACKENDS:
        return {"kind": "api", "model": model, "base_url": settings.get("base_url")}
    if settings["backend"] == "simulated":  # no weights: its respondent is in the config
        return {"kind": "simulated", "model": model}
    try:
        if location.is_embedded(model):
            folder, file_name, package = location.locate(model)
            files = _hashed_files([folder / file_name], folder, cache)
            return {"kind": "embedded", "model": model, "package": package, "files": files}
        where, gguf_file = location.locate_model(model, settings.get("gguf_file"))
    except InputError as exc:
        return {"kind": "unavailable", "model": model, "reason": str(exc)}
    folder = Path(where)
    if folder.is_dir():
        files = [folder / gguf_file] if gguf_file else files_in(folder)
        return {
            "kind": "local",
            "model": model,
            "folder": str(folder.resolve()),
            "files": _hashed_files(files, folder, cache),
        }
    return hub_snapshot(model, settings.get("revision"), hub_cache(settings))
