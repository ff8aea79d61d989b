"""The run manifest: what produced an audit's numbers, in one JSON file others can check.

``results/manifest.json`` holds the code (the package version, the git commit and whether the
checkout had uncommitted changes), the environment (Python, key packages), the resolved config
and its SHA-256, the SHA-256 and size of every input file, each model's identity as its backend
knows it (weight file hashes, a hub revision, or for an API the model ids the server reported),
the seeds, and per model the questions asked and answered from the store, with the time span of
the jobs. Each model job writes a small record beside its step table (``job_record``); the
manifest gathers them. See docs/outputs.md ("Run manifest").
"""

from __future__ import annotations

import copy
import hashlib
import importlib.metadata
import importlib.resources
import json
import platform
import subprocess
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hiremeornot.asking.store_maintenance import served_identities
from hiremeornot.atomic import atomic_output
from hiremeornot.config import model_keys
from hiremeornot.errors import InputError
from hiremeornot.inputs.onet import FILES_READ as ONET_FILES_READ
from hiremeornot.provenance.weights import files_in, model_weights
from hiremeornot.tables_io import read_job_record, sha256_file, step_table_parts

MANIFEST_VERSION = 1
KEY_PACKAGES = ("hiremeornot", "snakemake", "torch", "transformers", "vllm", "openai", "pandas")
SOURCES_FILE = "sources.tsv"


def now() -> str:
    """The current time in UTC, ISO 8601 with seconds."""
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def package_versions(names: Iterable[str] = KEY_PACKAGES) -> dict[str, str | None]:
    """The installed version of each package, None where it is not installed."""
    versions: dict[str, str | None] = {}
    for name in names:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def environment() -> dict[str, Any]:
    """Python and the key packages of the running interpreter."""
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "packages": package_versions(),
    }


# --- the record each model job leaves in its step tables (tables_io stamps and reads it) ---


def job_record(
    model: str,
    step: str,
    shard: int,
    summary: Any,
    *,
    started: str,
    finished: str,
    identity: Mapping[str, Any],
) -> dict[str, Any]:
    """What one model job did (``summary`` is its asking.AskSummary), where and with what:
    ``identity`` is the model's settings that key its answers (backends.model_identity), so
    that answers read back from the table (store rebuild) are keyed as they were asked."""
    return {
        "model": model,
        "identity": dict(identity),
        "step": step,
        "shard": shard,
        **_asked(summary),
        "started": started,
        "finished": finished,
        "host": platform.node(),
        "environment": environment(),
    }


def classifier_record(summary: Any, identity: Mapping[str, Any]) -> dict[str, Any]:
    """What a job's ``free_classifier`` was asked (``summary``: its asking.AskSummary), and the
    settings that key its answers."""
    return {"identity": dict(identity), **_asked(summary)}


def _asked(summary: Any) -> dict[str, Any]:
    """How many distinct questions an asking.AskSummary counts, how many the model was asked,
    in what time and at what estimated cost (the cost logged before asking; None: unpriced)."""
    return {
        "questions": summary.questions,
        "asked": summary.asked,
        "from_store": summary.from_store,
        "seconds": round(summary.seconds, 3),
        "usd": summary.usd,
    }


def write_json(value: Any, path: str | Path) -> None:
    with atomic_output(path) as partial:
        partial.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n")


def read_json(path: str | Path) -> Any:
    path = Path(path)
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: not a readable JSON file ({exc})") from None


# --- code, config, seeds -----------------------------------------------------------------------


def git_state(repo: str | Path) -> dict[str, Any]:
    """The commit checked out in ``repo`` and whether the checkout differs from it.

    ``dirty`` counts modified, staged and untracked files that git does not ignore; ``changed``
    lists up to 50 of them. Outside a git checkout (or without git) every value is None.
    """

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
        ).stdout

    try:
        commit = git("rev-parse", "HEAD").strip()
        status = [line[3:] for line in git("status", "--porcelain").splitlines() if line]
    except (OSError, subprocess.CalledProcessError):
        return {"commit": None, "dirty": None, "changed": None}
    return {"commit": commit, "dirty": bool(status), "changed": status[:50]}


def recorded_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """The resolved config as the manifest records it: every key, less the model settings that
    only size a job (``x-role: resource``: threads, memory, time, GPUs), which change no answer
    and so re-run nothing, the manifest included."""
    recorded = copy.deepcopy(dict(config))
    resource = model_keys("resource")
    recorded["models"] = {
        name: {key: value for key, value in settings.items() if key not in resource}
        for name, settings in recorded.get("models", {}).items()
    }
    return recorded


def config_sha256(config: Mapping[str, Any]) -> str:
    """SHA-256 of the config as canonical JSON (sorted keys, no spaces, UTF-8)."""
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def seeds(config: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Every ``seed`` key of the config, by its dotted path (``names.seed``, ``report.seed``)."""
    found: dict[str, Any] = {}
    for key, value in config.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            found.update(seeds(value, f"{path}."))
        elif key == "seed":
            found[path] = value
    return found


# --- input files -------------------------------------------------------------------------------


def read_sources() -> list[dict[str, str]]:
    """The curated table of input sources with their licences (package data sources.tsv)."""
    text = importlib.resources.files("hiremeornot").joinpath(SOURCES_FILE).read_text("utf-8")
    lines = [line.split("\t") for line in text.splitlines() if line.strip()]
    header, rows = lines[0], lines[1:]
    return [dict(zip(header, row, strict=True)) for row in rows]


def _relative(path: Path, root: Path) -> str | None:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None


def input_entries(
    files: Iterable[str | Path],
    *,
    data_root: str | Path,
    repo: str | Path,
    sources: list[dict[str, str]],
) -> list[dict[str, Any]]:
    """One entry per input file (a folder stands for every file in it): ``path`` relative to the
    data root (the upstream layout, the same on every machine) or to the repository, ``file`` as
    the workflow read it, the ``source`` it belongs to (sources.tsv), ``sha256`` and ``bytes``."""
    entries = []
    for given in files:
        for path in files_in(Path(given)):
            if not path.is_file():
                raise InputError(f"{path}: input file not found")
            relative = _relative(path, Path(data_root)) or _relative(path, Path(repo))
            source = next(
                (
                    s["source"]
                    for s in sources
                    if relative is not None
                    and (relative == s["path"] or relative.startswith(s["path"].rstrip("/") + "/"))
                ),
                None,
            )
            entries.append(
                {
                    "path": relative if relative is not None else str(path),
                    "file": str(path),
                    "source": source,
                    "sha256": sha256_file(path),
                    "bytes": path.stat().st_size,
                }
            )
    return entries


def onet_files(onet_dir: str | Path) -> list[Path]:
    """The files of the O*NET release that the pipeline reads (onet.FILES_READ)."""
    return [Path(onet_dir) / name for name in ONET_FILES_READ]


def table_rows(path: str | Path) -> int:
    """Rows of a table written by tables_io.write_table (Parquet metadata, or TSV lines)."""
    path = Path(path)
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return pq.ParquetFile(path).metadata.num_rows
    with path.open("rb") as handle:
        return max(sum(1 for _ in handle) - 1, 0)


def table_entry(path: str | Path) -> dict[str, Any]:
    return {"path": str(path), "rows": table_rows(path), "sha256": sha256_file(path)}


def answer_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The settings that are part of the response store's key (``x-role: answers``)."""
    answers = model_keys("answers")
    return {key: value for key, value in settings.items() if key in answers}


# --- the manifest ------------------------------------------------------------------------------


COUNTS = ("rows", "jobs", "questions", "asked", "from_store")


def _model_counts(tables: list[dict], jobs: list[dict]) -> dict[str, Any]:
    """Rows of a model's step tables, and its jobs' questions, per step and in all."""
    steps: dict[str, dict[str, int]] = {}
    for table in tables:
        step = steps.setdefault(table["step"], dict.fromkeys(COUNTS, 0))
        step["rows"] += table["rows"]
    for job in jobs:
        step = steps.setdefault(job["step"], dict.fromkeys(COUNTS, 0))
        step["jobs"] += 1
        for key in ("questions", "asked", "from_store"):
            step[key] += job[key]
    totals = {key: sum(step[key] for step in steps.values()) for key in COUNTS}
    return {"steps": dict(sorted(steps.items())), **totals}


def _step_tables(tables: Iterable[str | Path]) -> tuple[list[dict], list[dict]]:
    """Every step table's entry, and the records of the jobs that wrote them (each once: one
    job writes a table per wording)."""
    step_tables, jobs, seen = [], [], set()
    for path in tables:
        model, step, wording, shard = step_table_parts(path)
        record = read_job_record(path)
        step_tables.append(
            {
                "model": model,
                "step": step,
                "wording": wording,
                "shard": shard,
                **table_entry(path),
                "job_recorded": record is not None,
            }
        )
        tag = json.dumps(record, sort_keys=True)
        if record is not None and tag not in seen:
            seen.add(tag)
            jobs.append(record)
    return step_tables, jobs


def _model_entry(
    name: str,
    settings: Mapping[str, Any],
    step_tables: list[dict],
    jobs: list[dict],
    store_dir: str | Path,
    cache: Path | None,
) -> dict[str, Any]:
    """One model's part of the manifest: its identity, weights, served ids, environments and
    the counts of its tables and jobs."""
    mine = [job for job in jobs if job["model"] == name]
    tables = [t for t in step_tables if t["model"] == name]
    environments = {json.dumps(job["environment"], sort_keys=True) for job in mine}
    return {
        "backend": settings["backend"],
        "model": settings["model"],
        "identity": answer_settings(settings),
        "weights": model_weights(settings, cache),
        "served": served_identities(store_dir, name),
        "environments": [json.loads(text) for text in sorted(environments)],
        **_model_counts(tables, mine),
        "tables_without_job_record": sum(not t["job_recorded"] for t in tables),
        "job_records": sorted(
            ({k: v for k, v in job.items() if k not in ("model", "environment")} for job in mine),
            key=lambda job: (job["step"], job["shard"]),
        ),
    }


def build_manifest(
    config: Mapping[str, Any],
    *,
    repo: str | Path,
    data_root: str | Path,
    inputs: Iterable[str | Path],
    dataset: Iterable[str | Path],
    tables: Iterable[str | Path],
    store_dir: str | Path,
    cache: Path | None = None,
) -> dict[str, Any]:
    """The manifest of a finished run (see the module docstring and docs/outputs.md).

    ``config``: the resolved config (recorded_config); ``inputs``: the input files read (a
    folder stands for its files); ``dataset``: the dataset tables; ``tables``: every step
    table, each with the record of the job that wrote it (stamp_table).
    """
    sources = read_sources()
    input_list = input_entries(inputs, data_root=data_root, repo=repo, sources=sources)
    used = {entry["source"] for entry in input_list}
    step_tables, jobs = _step_tables(tables)
    models = {
        name: _model_entry(name, settings, step_tables, jobs, store_dir, cache)
        for name, settings in config["models"].items()
    }
    created = now()
    return {
        "manifest_version": MANIFEST_VERSION,
        "created": created,
        "project": {
            "name": "hiremeornot",
            "version": package_versions(["hiremeornot"])["hiremeornot"],
            "git": git_state(repo),
        },
        "environment": environment(),
        "config": dict(config),
        "config_sha256": config_sha256(config),
        "seeds": seeds(config),
        "inputs": input_list,
        "sources": [source for source in sources if source["source"] in used],
        "dataset": [table_entry(path) for path in dataset],
        "step_tables": step_tables,
        "models": models,
        "run": {
            "started": min((job["started"] for job in jobs), default=None),
            "finished": created,
            **{key: sum(m[key] for m in models.values()) for key in COUNTS},
        },
    }
