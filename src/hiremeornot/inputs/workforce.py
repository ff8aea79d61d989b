"""Who holds each job: a table of the share of men (or women) per job category, and the
crosswalk that matches each audited occupation to one of its categories or to none
(``workforce`` in the config, docs/method.md#alignment-with-the-workforce).

The share table is the two-column form of FiveThirtyEight's ``male-flight-attendants.tsv``
(IPUMS, 2012 American Community Survey): a header row, then a category and a percentage per row;
``workforce.percent_of`` says whose share the percentage is. The crosswalk (COLUMNS) gives each
occupation title its category, the quality of the match (MATCHES) and the reason for it.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd

from hiremeornot.errors import InputError
from hiremeornot.sameness import refuse_twins
from hiremeornot.tables_io import read_tsv

COLUMNS = ["title", "category", "match", "reason"]
# How well a category stands for the job, best first; "none": no category does.
MATCHES = ("exact", "close", "broad", "none")
NOT_IN_CROSSWALK = "not in the crosswalk"


def read_shares(path: str | Path, percent_of: str) -> pd.DataFrame:
    """The share table as ``category``, ``share_women`` (0-1), in the file's order: exactly two
    columns, a percentage from 0 to 100 in the second, each category once."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: file not found (workforce.shares)")
    try:
        table = pd.read_csv(
            path, sep="\t", dtype=str, keep_default_na=False, quoting=csv.QUOTE_NONE
        )
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not a readable tab-separated file: {exc}") from exc
    if table.shape[1] != 2:
        raise InputError(
            f"{path}: {table.shape[1]} column(s) ({', '.join(table.columns[:4])}); a share "
            "table has two, a job category and its percentage, tab-separated"
        )
    if table.empty:
        raise InputError(f"{path}: no rows under the header")
    category, percent = table.columns
    rows = [f"{path}:{line}" for line in range(2, len(table) + 2)]
    refuse_twins(zip(rows, table[category], strict=True), "category")
    values = pd.to_numeric(table[percent].str.strip(), errors="coerce")
    bad = table.index[~values.between(0, 100) | (table[category].str.strip() == "")]
    if len(bad):
        at = bad[0]
        raise InputError(
            f"{rows[at]}: {table.at[at, category]!r} has percentage {table.at[at, percent]!r}; "
            "each row needs a category and a number from 0 to 100"
        )
    women = values / 100 if percent_of == "women" else 1 - values / 100
    return pd.DataFrame({"category": table[category], "share_women": women})


def read_crosswalk(path: str | Path) -> pd.DataFrame:
    """The crosswalk's rows (COLUMNS): each title once, a known match quality, a category
    exactly where the match is not "none", and a reason on every row."""
    table = read_tsv(path, COLUMNS)
    rows = [f"{path}:{line}" for line in range(2, len(table) + 2)]
    refuse_twins(zip(rows, table["title"], strict=True), "title")
    for at, row in table.iterrows():
        if row["match"] not in MATCHES:
            raise InputError(
                f"{rows[at]}: match {row['match']!r} of {row['title']!r} is not one of "
                f"{list(MATCHES)}"
            )
        if (row["match"] == "none") != (row["category"] == ""):
            said = "none but names a" if row["match"] == "none" else f"{row['match']!r} but has no"
            raise InputError(f"{rows[at]}: {row['title']!r} is {said} category")
        if not row["reason"].strip():
            raise InputError(f"{rows[at]}: no reason given for {row['title']!r}")
    return table


def occupation_shares(
    crosswalk: pd.DataFrame, shares: pd.DataFrame, titles: list[str], crosswalk_path: str
) -> pd.DataFrame:
    """Per audited title: its category, match, reason and the category's share of women (NaN
    where it has none). A title the crosswalk lacks is unmatched and says so; a category the
    share table lacks is refused, naming the crosswalk's row."""
    known = set(shares["category"])
    unknown = crosswalk[(crosswalk["category"] != "") & ~crosswalk["category"].isin(known)]
    if len(unknown):
        row = unknown.iloc[0]
        raise InputError(
            f"{crosswalk_path}:{unknown.index[0] + 2}: category {row['category']!r} of "
            f"{row['title']!r} is not in the share table (workforce.shares)"
        )
    matched = crosswalk.set_index("title").reindex(titles)
    missing = matched["match"].isna()
    matched.loc[missing, ["category", "match"]] = ["", "none"]
    matched.loc[missing, "reason"] = f"{NOT_IN_CROSSWALK} {crosswalk_path}"
    share = matched["category"].map(shares.set_index("category")["share_women"])
    return matched.assign(share_women=share).rename_axis("occupation").reset_index()


def share_map(
    crosswalk: str | Path, shares: str | Path, percent_of: str, titles: list[str]
) -> dict[str, float]:
    """Each of ``titles`` the crosswalk matches: its category's share of women."""
    table = occupation_shares(
        read_crosswalk(crosswalk), read_shares(shares, percent_of), titles, str(crosswalk)
    ).dropna(subset=["share_women"])
    return dict(zip(table["occupation"], table["share_women"].astype(float), strict=True))
