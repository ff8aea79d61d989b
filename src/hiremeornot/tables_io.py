"""Read tab-separated input files with errors that name the file and the column at fault."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from hiremeornot.atomic import atomic_output
from hiremeornot.errors import InputError


def read_tsv(path: str | Path, columns: Iterable[str]) -> pd.DataFrame:
    """Read a TSV with a header row as strings; require ``columns`` to be present."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: file not found")
    try:
        frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, quoting=3)
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not a readable tab-separated file: {exc}") from exc
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        found = ", ".join(frame.columns[:6])
        hint = " (is it tab-separated?)" if len(frame.columns) == 1 else ""
        raise InputError(f"{path}: missing column(s) {', '.join(missing)}; found: {found}{hint}")
    return frame


def write_table(frame: pd.DataFrame, path: str | Path) -> None:
    """Write a table atomically: Parquet for .parquet, TSV otherwise."""
    with atomic_output(path) as partial:
        if partial.suffix == ".parquet":
            frame.to_parquet(partial, index=False)
        else:
            frame.to_csv(partial, sep="\t", index=False)


def read_table(path: str | Path) -> pd.DataFrame:
    """Read a table written by :func:`write_table`."""
    path = Path(path)
    if path.suffix == ".parquet":
        return pd.read_parquet(path)
    return pd.read_csv(path, sep="\t")


def read_tables(paths: Iterable[str | Path]) -> pd.DataFrame:
    """Tables written by :func:`write_table`, one after the other (e.g. the shards of a step)."""
    return pd.concat([read_table(path) for path in paths], ignore_index=True)
