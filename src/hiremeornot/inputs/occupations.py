"""The curated mapping of UnQover occupation titles to O*NET-SOC codes."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from hiremeornot.errors import InputError
from hiremeornot.tables_io import read_tsv

COLUMNS = ["title", "soc_code", "onet_title", "match", "reason"]


def read_occupations(path: str | Path) -> pd.DataFrame:
    """Every row of the mapping; rows without a soc_code are excluded titles."""
    table = read_tsv(path, COLUMNS)
    duplicates = sorted(set(table["title"][table["title"].duplicated()]))
    if duplicates:
        raise InputError(f"{path}: duplicated title(s) {duplicates}")
    unexplained = table[table["reason"].str.strip() == ""]["title"].tolist()
    if unexplained:
        raise InputError(f"{path}: no reason given for {unexplained}")
    return table


def select_occupations(path: str | Path, select: str | list[str]) -> pd.DataFrame:
    """The audited occupations (title, soc_code, onet_title) in the table's order."""
    table = read_occupations(path)
    retained = table[table["soc_code"] != ""]
    if select == "all":
        return retained[["title", "soc_code", "onet_title"]].reset_index(drop=True)
    unknown = [title for title in select if title not in set(table["title"])]
    if unknown:
        raise InputError(f"occupations.select: unknown occupation(s) {unknown} (not in {path})")
    excluded = table[table["title"].isin(select) & (table["soc_code"] == "")]
    if len(excluded):
        reasons = "; ".join(f"{r.title}: {r.reason}" for r in excluded.itertuples())
        raise InputError(f"occupations.select: excluded in {path}: {reasons}")
    chosen = retained[retained["title"].isin(select)]
    return chosen[["title", "soc_code", "onet_title"]].reset_index(drop=True)


def shard_titles(titles: list[str], shard_size: int) -> list[list[str]]:
    """Split occupations into consecutive shards of ``shard_size`` (0: one shard)."""
    size = shard_size or len(titles) or 1
    return [titles[start : start + size] for start in range(0, len(titles), size)]
