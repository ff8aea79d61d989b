"""The curated mapping of UnQover occupation titles to O*NET-SOC codes."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from hiremeornot.errors import InputError
from hiremeornot.sameness import reading, refuse_twins
from hiremeornot.tables_io import read_tsv

COLUMNS = ["title", "soc_code", "onet_title", "match", "reason"]
MATCHES = ("title", "alternate_title", "judgement", "excluded")
SOC_CODE = r"\d{2}-\d{4}\.\d{2}"


def read_occupations(path: str | Path) -> pd.DataFrame:
    """Every row of the mapping; rows without a soc_code are excluded titles."""
    table = read_tsv(path, COLUMNS)
    rows = [f"{path}:{line}" for line in range(2, len(table) + 2)]
    refuse_twins(zip(rows, table["title"], strict=True), "title")
    codes = table["soc_code"]
    malformed = table[(codes != "") & ~codes.str.fullmatch(SOC_CODE)]
    if len(malformed):
        row = malformed.iloc[0]
        raise InputError(
            f"{rows[malformed.index[0]]}: the soc_code {row['soc_code']!r} of {row['title']!r} "
            "is not an O*NET-SOC code such as 29-1141.00"
        )
    unknown = table[~table["match"].isin(MATCHES)]
    if len(unknown):
        raise InputError(
            f"{rows[unknown.index[0]]}: match {unknown['match'].iloc[0]!r} of "
            f"{unknown['title'].iloc[0]!r} is not one of {list(MATCHES)}"
        )
    # excluded exactly where no code is given: a row must not say one thing and do another
    contrary = table[(table["match"] == "excluded") != (codes == "")]
    if len(contrary):
        row = contrary.iloc[0]
        said = (
            "excluded but has a" if row["match"] == "excluded" else f"{row['match']!r} but has no"
        )
        raise InputError(f"{rows[contrary.index[0]]}: {row['title']!r} is {said} soc_code")
    unexplained = table[table["reason"].str.strip() == ""]["title"].tolist()
    if unexplained:
        raise InputError(f"{path}: no reason given for {unexplained}")
    return table


def select_occupations(path: str | Path, select: str | list[str]) -> pd.DataFrame:
    """The audited occupations (title, soc_code, onet_title) in the table's order."""
    table = read_occupations(path)
    retained = table[table["soc_code"] != ""]
    if retained.empty:
        raise InputError(f"{path}: no occupation with a soc_code: nothing to audit")
    if select == "all":
        return retained[["title", "soc_code", "onet_title"]].reset_index(drop=True)
    unknown = [title for title in select if title not in set(table["title"])]
    if unknown:
        known = {reading(title): title for title in table["title"]}
        meant = {title: known[reading(title)] for title in unknown if reading(title) in known}
        hint = f"; as written in the table: {meant}" if meant else ""
        raise InputError(
            f"occupations.select: unknown occupation(s) {unknown} (not in {path}){hint}"
        )
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
