"""Where the config's paths and the targets a user asks for lie: every path a usable file or
folder, the response store apart from the results, a target by name made of the config's
models. Checked before any job (checks.check_config; the targets in the workflow)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from hiremeornot.config import marked_values
from hiremeornot.errors import InputError


def check_paths(config: dict) -> None:
    """Every path of the config (the schema's ``x-path``) is not empty; a file is a file; a
    folder is not a file; a folder the run writes can be written, or made where it is missing."""
    for key, value, kind in marked_values(config, "x-path"):
        if value is None:
            continue
        if not value.strip():
            raise InputError(f"{key}: an empty path")
        if value.startswith("~"):
            raise InputError(
                f"{key}: {value!r}: ~ is not expanded here (it would name a folder called ~); "
                f"write the full path, {os.path.expanduser(value)}"
            )
        path = Path(value)
        if kind == "file" and not path.is_file():
            found = "a folder" if path.is_dir() else "not there"
            where = (
                "" if path.is_absolute() else f" (read from the folder the run is in, {Path.cwd()})"
            )
            raise InputError(f"{key}: {value!r} is {found}{where}; a file is expected")
        if kind in ("folder", "writable_folder") and path.exists() and not path.is_dir():
            raise InputError(f"{key}: {value!r} is a file where a folder belongs")
        if kind == "writable_folder":
            existing = next(p for p in (path.absolute(), *path.absolute().parents) if p.exists())
            if not existing.is_dir():
                raise InputError(f"{key}: {value!r} lies under the file {existing}")
            if not os.access(existing, os.W_OK | os.X_OK):
                raise InputError(f"{key}: {value!r} cannot be written ({existing} is not writable)")


def check_store_place(config: dict) -> None:
    """The store lies neither at results/ itself nor in a model's results folder (where a
    model named like the store's folder, or a clean-up of the results, would take it)."""
    store = Path(config["store_dir"]).absolute()
    results = Path("results").absolute()
    folders = (results / model for model in config["models"])
    clash = next((folder for folder in folders if store.is_relative_to(folder)), None)
    if store == results or clash is not None:
        inside = (
            "is results/ itself" if clash is None else f"lies in {clash.relative_to(Path.cwd())}/"
        )
        raise InputError(
            f"store_dir: {config['store_dir']!r} {inside}, where the results are written; keep "
            "it apart (the default, results/store, is a folder of its own)"
        )


# The targets a user asks for by name (not part of `all`), under a contrast's prefix or not.
_BY_NAME = re.compile(
    r"(?:.*/)?results/(?:contrasts/[^/]+/|control/)?"
    r"(?:compare/(?P<pair>[^/]+?)(?:_changed)?\.\w+|calibration/(?P<model>[^/]+?)(?:_verdicts)?\.\w+)$"
)


def check_targets(targets: Iterable[str], models: Sequence[str], simulated: Sequence[str]) -> None:
    """A comparison or a calibration asked for by name names models of the config (Snakemake
    would only say that no rule makes it)."""
    for target in targets:
        found = _BY_NAME.match(str(target))
        if found is None:
            continue
        if found["pair"] is not None:
            a, joined, b = found["pair"].partition("_vs_")
            if not joined or a not in models or b not in models:
                raise InputError(
                    f"{target}: not two models of the config joined by _vs_ (its models: "
                    f"{list(models)})"
                )
            if a == b:
                raise InputError(f"{target}: compares {a} with itself")
        elif found["model"] not in simulated:
            whose = "no model" if found["model"] not in models else "not a simulated model"
            raise InputError(
                f"{target}: {found['model']!r} is {whose}; a calibration needs backend "
                f"simulated (the config's simulated models: {list(simulated)})"
            )
