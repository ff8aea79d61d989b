"""Tables on disk: input TSVs read with errors that name the file and the column at fault; the
pipeline's tables written whole or not at all and read back; damaged Parquet tables set aside to
be re-made; the step tables' layout (``<model>/<step>/<wording>/shard-<i>.parquet``) and the
record of the job that wrote each, and its seal (the sha256 of the table as the job wrote it,
beside it in ``<table>.sha256``), which every later read checks."""

from __future__ import annotations

import csv
import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from hiremeornot.atomic import atomic_output
from hiremeornot.errors import InputError, first_line

STEPS = ("step1", "step2", "step3")


def read_tsv(path: str | Path, columns: Iterable[str], *, quoted: bool = False) -> pd.DataFrame:
    """Read a TSV with a header row as strings; require ``columns`` to be present.

    ``quoted``: fields may be CSV-quoted (``"a ""b"" c"`` reads ``a "b" c``), as in O*NET's
    files; otherwise every double quote is literal text, as in the hand-edited resources.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: file not found")
    quoting = csv.QUOTE_MINIMAL if quoted else csv.QUOTE_NONE
    try:
        frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, quoting=quoting)
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not a readable tab-separated file: {exc}") from exc
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        found = ", ".join(frame.columns[:6])
        hint = " (is it tab-separated?)" if len(frame.columns) == 1 else ""
        raise InputError(f"{path}: missing column(s) {', '.join(missing)}; found: {found}{hint}")
    return frame


def write_table(frame: pd.DataFrame, path: str | Path) -> None:
    """Write a table atomically: Parquet for .parquet, comma-separated for .csv, TSV
    otherwise."""
    with atomic_output(path) as partial:
        if partial.suffix == ".parquet":
            frame.to_parquet(partial, index=False)
        else:
            frame.to_csv(partial, sep=_separator(partial), index=False)


def _separator(path: Path) -> str:
    return "," if path.suffix == ".csv" else "\t"


def read_table(path: str | Path) -> pd.DataFrame:
    """Read a table written by :func:`write_table`; a damaged Parquet file is an InputError
    naming it (remove it and run again: the workflow re-makes it, a step table's answers from
    the store)."""
    path = Path(path)
    if path.suffix != ".parquet":
        return pd.read_csv(path, sep=_separator(path))
    check_seal(path)
    try:
        return pd.read_parquet(path)
    except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError
        if not path.is_file():
            raise
        raise InputError(
            f"{path}: a damaged table ({first_line(exc)}); remove it and run again: the "
            "workflow re-makes it (a step table's answers come back from the store)"
        ) from None


def damaged_parquet(path: Path) -> str | None:
    """Why the Parquet file at ``path`` cannot be read (its footer), or None where it can."""
    import pyarrow.parquet as pq

    try:
        pq.read_metadata(path)
    except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError
        return first_line(exc)
    return None


DAMAGED_SUFFIX = ".damaged"


def set_aside_damaged_tables(root: str | Path) -> list[str]:
    """Rename every damaged Parquet table under ``root`` (a truncated file has no footer) to
    ``<name>.damaged``; partial files being written (hidden names) are left alone. One message
    per table set aside."""
    messages = []
    for path in sorted(Path(root).rglob("*.parquet")):
        reason = None if path.name.startswith(".") else damaged_parquet(path)
        if reason is not None:
            kept = path.replace(path.with_name(path.name + DAMAGED_SUFFIX))
            messages.append(
                f"{path}: a damaged table ({reason}); kept as {kept.name}, and the workflow "
                "re-makes it (a step table's answers come back from the store)"
            )
    return messages


def tables_to_remake(root: str | Path) -> list[str]:
    """The tables under ``root`` set aside as damaged and not re-made yet: the workflow's
    targets until they are (Snakemake re-makes a missing table only when something asks for
    it, and what read it may look up to date)."""
    return sorted(
        str(kept.with_suffix(""))
        for kept in Path(root).rglob(f"*.parquet{DAMAGED_SUFFIX}")
        if not kept.with_suffix("").exists()
    )


def read_tables(paths: Iterable[str | Path]) -> pd.DataFrame:
    """Tables written by :func:`write_table`, one after the other (e.g. the shards of a step)."""
    return pd.concat([read_table(path) for path in paths], ignore_index=True)


STEP_TABLE = "<model>/<step>/<wording>/shard-<i>.parquet"


def model_step_tables(folder: str | Path) -> list[Path]:
    """Every step table of a model's result folder: ``<step>/<wording>/shard-<i>.parquet``."""
    return sorted(
        path for step in STEPS for path in (Path(folder) / step).glob("*/shard-*.parquet")
    )


def step_table_parts(path: str | Path) -> tuple[str, str, str, int]:
    """(model, step, wording, shard) of a step table ``<model>/<step>/<wording>/shard-<i>``."""
    path = Path(path)
    parents = [parent.name for parent in path.parents]
    shard = re.fullmatch(r"shard-(\d+)\.parquet", path.name)
    if shard is None or len(parents) < 3 or parents[1] not in STEPS:
        raise InputError(f"{path}: not a step table ({STEP_TABLE})")
    return parents[2], parents[1], parents[0], int(shard.group(1))


# The key of the job record in a step table's Parquet metadata: the record travels with the
# table it describes, and a table re-written by a new job carries that job's record.
JOB_RECORD_KEY = b"hiremeornot.job"


def stamp_table(path: str | Path, record: Mapping[str, Any]) -> None:
    """Add a job record to a Parquet step table's metadata (the table is rewritten atomically)
    and seal it."""
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    metadata = {**(table.schema.metadata or {}), JOB_RECORD_KEY: json.dumps(record).encode()}
    with atomic_output(path) as partial:
        pq.write_table(table.replace_schema_metadata(metadata), partial)
    with atomic_output(seal_of(path)) as partial:
        partial.write_text(sha256_file(path) + "\n")


def sha256_file(path: str | Path) -> str:
    """The SHA-256 of a file's bytes, in hex."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def seal_of(path: str | Path) -> Path:
    """Where a step table's seal lies: ``<table>.sha256``."""
    return Path(f"{path}.sha256")


def seal_broken(path: str | Path) -> bool:
    """Whether a table differs from its seal: edited or replaced after its job wrote it (a
    table without a seal was written before seals, or by no job)."""
    seal = seal_of(path)
    return seal.is_file() and seal.read_text().strip() != sha256_file(path)


def check_seal(path: str | Path) -> None:
    """Refuse a table whose seal is broken (seal_broken)."""
    if seal_broken(path):
        raise InputError(
            f"{path}: changed after its job wrote it (its bytes no longer match "
            f"{seal_of(path).name}), "
            "so nothing is made from it. Run its step again (its answers come from the store), "
            "or list what differs from the run's record: hiremeornot verify"
        )


def read_job_record(path: str | Path) -> dict[str, Any] | None:
    """The job record of a step table; None for a table written before records existed."""
    import pyarrow.parquet as pq

    metadata = pq.read_schema(path).metadata or {}
    return json.loads(metadata[JOB_RECORD_KEY]) if JOB_RECORD_KEY in metadata else None
