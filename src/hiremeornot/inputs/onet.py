"""Read the O*NET text release and pick each occupation's top attributes by Importance.

O*NET's files are tab-separated with CSV quoting: a field may be quoted, with ``""`` for a quote
inside it, and is read as O*NET means it (``without "giving out" or fatiguing.``).

Tie-break (documented in docs/method.md): attributes are ranked by Importance (Scale ID ``IM``)
descending, then by Level (``LV``) descending, then by Element ID ascending, so that the same
release always gives the same top-k. Ratings flagged ``Recommend Suppress = Y`` (low precision,
still O*NET's published estimate) are kept unless ``suppressed="drop"``; docs/onet.md says why.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from hiremeornot.errors import InputError
from hiremeornot.tables_io import read_tsv

ATTRIBUTE_FILES = {"skill": "Skills.txt", "knowledge": "Knowledge.txt", "ability": "Abilities.txt"}
# Every file of the release the pipeline reads (the run manifest hashes them).
FILES_READ = ("Occupation Data.txt", "Content Model Reference.txt", *ATTRIBUTE_FILES.values())
RATING_COLUMNS = ["O*NET-SOC Code", "Element ID", "Element Name", "Scale ID", "Data Value"]
SUPPRESS_COLUMN = "Recommend Suppress"
SUPPRESSED_CHOICES = ("keep", "drop")
ATTRIBUTE_COLUMNS = [
    "soc_code",
    "attribute_type",
    "rank",
    "element_id",
    "attribute",
    "importance",
    "level",
    "description",
]


def read_occupation_titles(onet_dir: str | Path) -> dict[str, str]:
    """Map every O*NET-SOC code of the release to its title."""
    path = Path(onet_dir) / "Occupation Data.txt"
    frame = read_tsv(path, ["O*NET-SOC Code", "Title"], quoted=True)
    return dict(zip(frame["O*NET-SOC Code"], frame["Title"], strict=True))


def read_descriptions(onet_dir: str | Path) -> dict[str, str]:
    """Map every content-model Element ID to its description."""
    path = Path(onet_dir) / "Content Model Reference.txt"
    frame = read_tsv(path, ["Element ID", "Element Name", "Description"], quoted=True)
    return dict(zip(frame["Element ID"], frame["Description"], strict=True))


# Where each attribute type's elements lie in O*NET's content model (their ids' branches).
CONTENT_MODEL_BRANCHES = {"skill": ("2.A.", "2.B."), "knowledge": ("2.C.",), "ability": ("1.A.",)}


def elements_per_type(onet_dir: str | Path) -> dict[str, int]:
    """How many elements of each attribute type the release's content model holds (the leaves
    of its branches: the elements that can be rated)."""
    ids = set(read_descriptions(onet_dir))
    leaves = ids - {element.rsplit(".", 1)[0] for element in ids}
    return {
        kind: sum(element.startswith(branches) for element in leaves)
        for kind, branches in CONTENT_MODEL_BRANCHES.items()
    }


def read_ratings(
    onet_dir: str | Path,
    attribute_type: str,
    soc_codes: list[str] | None = None,
    *,
    suppressed: str,
) -> pd.DataFrame:
    """Importance and level ratings of one attribute type, one row per (occupation, element).

    ``soc_codes`` limits the result to those occupations (all when None); ``suppressed="drop"``
    leaves out the ratings flagged ``Recommend Suppress = Y``.
    """
    if suppressed not in SUPPRESSED_CHOICES:
        raise ValueError(f"suppressed must be one of {SUPPRESSED_CHOICES}, not {suppressed!r}")
    path = Path(onet_dir) / ATTRIBUTE_FILES[attribute_type]
    frame = read_tsv(path, RATING_COLUMNS, quoted=True)
    if soc_codes is not None:
        frame = frame[frame["O*NET-SOC Code"].isin(soc_codes)]
    if suppressed == "drop" and SUPPRESS_COLUMN in frame.columns:
        frame = frame[frame[SUPPRESS_COLUMN] != "Y"]
    frame = frame[frame["Scale ID"].isin(["IM", "LV"])]
    try:
        values = pd.to_numeric(frame["Data Value"])
    except ValueError as exc:
        raise InputError(f"{path}: column 'Data Value' is not numeric: {exc}") from exc
    frame = frame.assign(value=values)
    wide = frame.pivot_table(
        index=["O*NET-SOC Code", "Element ID", "Element Name"],
        columns="Scale ID",
        values="value",
        aggfunc="first",
    ).reset_index()
    for scale in ("IM", "LV"):
        if scale not in wide.columns:
            wide[scale] = float("nan")
    return wide.rename(
        columns={
            "O*NET-SOC Code": "soc_code",
            "Element ID": "element_id",
            "Element Name": "attribute",
            "IM": "importance",
            "LV": "level",
        }
    )[["soc_code", "element_id", "attribute", "importance", "level"]]


def top_attributes(
    ratings: pd.DataFrame, soc_code: str, attribute_type: str, k: int, source: str
) -> pd.DataFrame:
    """The ``k`` most important attributes of one occupation, ranked with the tie-break."""
    rows = ratings[(ratings["soc_code"] == soc_code) & ratings["importance"].notna()]
    if len(rows) < k:
        raise InputError(
            f"{source}: occupation {soc_code} has {len(rows)} {attribute_type} Importance "
            f"ratings, fewer than the {k} needed (the release has no ratings for it?)"
        )
    ranked = rows.sort_values(
        ["importance", "level", "element_id"], ascending=[False, False, True], na_position="last"
    ).head(k)
    return ranked.assign(attribute_type=attribute_type, rank=range(1, k + 1))


def extract_attributes(
    onet_dir: str | Path, soc_codes: list[str], k: int, *, suppressed: str
) -> pd.DataFrame:
    """Top-k skills, knowledge and abilities of each occupation, with their descriptions.

    ``suppressed``: keep or drop the ratings flagged ``Recommend Suppress = Y``.
    """
    titles = read_occupation_titles(onet_dir)
    unknown = [code for code in soc_codes if code not in titles]
    if unknown:
        raise InputError(
            f"{Path(onet_dir) / 'Occupation Data.txt'}: unknown O*NET-SOC code(s) {unknown}"
        )
    descriptions = read_descriptions(onet_dir)
    parts = []
    for attribute_type, file_name in ATTRIBUTE_FILES.items():
        ratings = read_ratings(onet_dir, attribute_type, soc_codes, suppressed=suppressed)
        source = str(Path(onet_dir) / file_name)
        parts += [top_attributes(ratings, code, attribute_type, k, source) for code in soc_codes]
    table = pd.concat(parts, ignore_index=True)
    missing = sorted(set(table["element_id"]) - set(descriptions))
    if missing:
        raise InputError(f"Content Model Reference.txt has no description for {missing}")
    table["description"] = table["element_id"].map(descriptions)
    return table[ATTRIBUTE_COLUMNS]
