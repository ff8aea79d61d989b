"""Check a finished run against its own record: tamper evidence an independent auditor can run.

Every file the manifest lists (inputs, dataset, step tables) must still have the SHA-256 it
recorded; every step table must match its seal and be listed; and every answer a step table
holds must be the answer the model's response store holds for that question.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from hiremeornot.asking.backends import model_identity
from hiremeornot.asking.store import request_key
from hiremeornot.asking.store_maintenance import recorded_answers, stored_answers
from hiremeornot.errors import InputError
from hiremeornot.provenance.manifest import read_json
from hiremeornot.tables_io import (
    model_step_tables,
    read_job_record,
    read_table,
    seal_broken,
    sha256_file,
)


@dataclass
class Verification:
    """What a check of a run found: ``problems`` (one line each), the files and answers seen."""

    problems: list[str] = field(default_factory=list)
    files: int = 0
    answers: int = 0


def recorded_files(manifest: dict) -> Iterator[tuple[Path, str]]:
    """Every file the manifest lists, as the run read or wrote it, with its recorded SHA-256."""
    for entry in manifest["inputs"]:
        yield Path(entry["file"]), entry["sha256"]
    for entry in (*manifest["dataset"], *manifest["step_tables"]):
        yield Path(entry["path"]), entry["sha256"]


def verify_run(results: str | Path, store_dir: str | Path) -> Verification:
    """Check the run recorded in ``results``/manifest.json (``results/contrasts/<id>`` for a
    contrast's) whose answers are in ``store_dir``; the manifest's paths are read as the run
    wrote them, from the folder it ran in."""
    manifest_path = Path(results, "manifest.json")
    if not manifest_path.is_file():
        raise InputError(f"{manifest_path}: no manifest, so nothing to check the run against")
    manifest = read_json(manifest_path)
    found = Verification()
    for path, recorded in recorded_files(manifest):
        found.files += 1
        if not path.is_file():
            found.problems.append(f"{path}: missing (the manifest lists it)")
        elif sha256_file(path) != recorded:
            found.problems.append(f"{path}: changed since the manifest was written")
    listed = {Path(entry["path"]).resolve() for entry in manifest["step_tables"]}
    folders = {entry["model"]: Path(entry["path"]).parents[2] for entry in manifest["step_tables"]}
    for model, folder in folders.items():
        tables = model_step_tables(folder)
        added = [path for path in tables if path.resolve() not in listed]
        found.problems += [f"{path}: not in the manifest" for path in added]
        settings = manifest["config"]["models"].get(model, {})
        found.problems += store_differences(tables, store_dir, model, settings, manifest, found)
    return found


def store_differences(
    tables: list[Path],
    store_dir: str | Path,
    model: str,
    settings: dict,
    manifest: dict,
    found: Verification,
) -> list[str]:
    """A line per step table whose seal or answers differ from the store's (``found`` counts
    the answers compared)."""
    stored = stored_answers(store_dir, model).set_index("key")["answer"]
    problems = []
    for path in tables:
        if seal_broken(path):
            problems.append(f"{path}: changed after its job wrote it (its seal differs)")
            continue
        record = read_job_record(path) or {}
        identity = record.get("identity") or model_identity(settings)  # the job's, if recorded
        pairs = list(recorded_answers(read_table(path), path, manifest["config"]["answers"]))
        found.answers += len(pairs)
        keys = [request_key(identity, request) for request, _ in pairs]
        missing = sum(key not in stored.index for key in keys)
        differ = [
            request.prompt
            for key, (request, response) in zip(keys, pairs, strict=True)
            if key in stored.index and stored[key] != response.answer
        ]
        if missing:
            problems.append(f"{path}: {missing} answer(s) not in the store {store_dir}/{model}")
        if differ:
            problems.append(
                f"{path}: {len(differ)} answer(s) differ from the store's, e.g. to {differ[0]!r}"
            )
    return problems
