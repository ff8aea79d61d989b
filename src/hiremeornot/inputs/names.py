"""Name lists with the groups of each name (gender, and race/ethnicity where the list has it).

A list is read from its upstream files (the layout of its ``format``, under the list's folder of
the data root) into a table with one row per name: ``name`` (as people write it), ``gender``
(female/male), ``race`` (empty where the list has none) and ``source`` (``file:line``, or
``file [key][index]`` for JSON), so that every error can name where the name comes from.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from hiremeornot.errors import InputError
from hiremeornot.sameness import reading, same_text

GENDERS = ("female", "male")
NAME_COLUMNS = ["name", "gender", "race", "source"]

# The files of each format, relative to the list's folder (the upstream repository's layout).
FORMAT_FILES = {
    "unqover": ("word_lists/nouns/subjects/female", "word_lists/nouns/subjects/male"),
    "bloomberg": ("data/input/top_womens_names.json", "data/input/top_mens_names.json"),
    "bbq": ("templates/vocabulary_proper_names.csv",),
}
BLOOMBERG_GENDERS = {"top_womens_names.json": "female", "top_mens_names.json": "male"}
BLOOMBERG_RACES = {"W": "White", "B": "Black", "A": "Asian", "H": "Hispanic"}
# Bloomberg's file drops the apostrophe of these surnames (title case alone gives "Oconnell").
BLOOMBERG_SPELLINGS = {"Oconnell": "O'Connell"}
BBQ_GENDERS = {"F": "female", "M": "male"}

Row = tuple[str, str, str, str]  # name, gender, race, source


def name_files(source: Mapping[str, Any]) -> list[str]:
    """The files of a list, relative to its folder."""
    return [f"{source['folder']}/{path}" for path in FORMAT_FILES[source["format"]]]


def _unqover_rows(folder: Path) -> Iterator[Row]:
    """Lines like ``[subj] female | Mary``; the file name is the gender."""
    for relative in FORMAT_FILES["unqover"]:
        path = folder / relative
        for number, line in enumerate(_text(path).splitlines(), start=1):
            if not line.strip():
                continue
            head, sep, name = line.partition("|")
            tag = head.split()
            where = f"{path}:{number}"
            if not sep or len(tag) != 2 or tag[0] != "[subj]" or not name.strip():
                raise InputError(f"{where}: expected '[subj] {path.name} | Name', got {line!r}")
            if tag[1] != path.name:
                raise InputError(f"{where}: the name is tagged {tag[1]!r}, not {path.name!r}")
            yield name.strip(), tag[1], "", where


def _bloomberg_rows(folder: Path) -> Iterator[Row]:
    """``{"W": ["ABBY SCHMIDT", ...], ...}`` per gender; upper case, rendered in title case."""
    for relative in FORMAT_FILES["bloomberg"]:
        path = folder / relative
        try:
            groups = json.loads(_text(path))
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}: not JSON ({exc})") from None
        if not isinstance(groups, dict):
            raise InputError(f"{path}: expected an object of race codes to name lists")
        for code, listed in groups.items():
            race = BLOOMBERG_RACES.get(code)
            if race is None:
                raise InputError(
                    f"{path} [{code!r}]: unknown race code; known: {sorted(BLOOMBERG_RACES)}"
                )
            if not isinstance(listed, list) or not all(isinstance(n, str) for n in listed):
                raise InputError(f"{path} [{code!r}]: expected a list of names (strings)")
            for index, name in enumerate(listed):
                yield (
                    render_upper_case(str(name)),
                    BLOOMBERG_GENDERS[path.name],
                    race,
                    f"{path} [{code!r}][{index}]",
                )


def render_upper_case(name: str) -> str:
    """A name as people write it: "ALLYSON OCONNELL" -> "Allyson O'Connell"."""
    return " ".join(BLOOMBERG_SPELLINGS.get(part, part) for part in name.title().split())


def _bbq_rows(folder: Path) -> Iterator[Row]:
    """The first names (First_last = first) of BBQ's vocabulary, with gender and ethnicity."""
    path = folder / FORMAT_FILES["bbq"][0]
    rows = csv.DictReader(_text(path).splitlines())
    missing = {"Name", "First_last", "gender", "ethnicity"} - set(rows.fieldnames or [])
    if missing:
        raise InputError(f"{path}: missing column(s) {sorted(missing)}")
    for number, row in enumerate(rows, start=2):
        if row["First_last"] != "first":
            continue
        gender = BBQ_GENDERS.get(row["gender"], row["gender"])
        yield row["Name"].strip(), gender, row["ethnicity"].strip(), f"{path}:{number}"


READERS = {"unqover": _unqover_rows, "bloomberg": _bloomberg_rows, "bbq": _bbq_rows}


def _text(path: Path) -> str:
    if not path.is_file():
        raise InputError(f"{path}: name file not found")
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            f"{path}:{line}: not UTF-8 (byte {data[exc.start]:#04x} at offset {exc.start}); "
            "save the name file as UTF-8"
        ) from None


def read_name_list(data_root: str | Path, source: Mapping[str, Any], key: str) -> pd.DataFrame:
    """The names of list ``key`` (its settings ``source``, from sources.names) under
    ``data_root``, checked: every name has a gender and, where the list declares races, one of
    them; no name repeats; the names in ``source['exclude']`` are left out and must exist."""
    rows = list(READERS[source["format"]](Path(data_root) / source["folder"]))
    excluded = set(source.get("exclude", []))
    unknown = sorted(excluded - {row[0] for row in rows})
    if unknown:
        raise InputError(f"sources.names.{key}.exclude: not in the list: {unknown}")
    rows = [row for row in rows if row[0] not in excluded]
    races = source.get("races", [])
    seen: dict[str, str] = {}
    for name, gender, race, where in rows:
        if not name or "|" in name or name.startswith("-") or name.endswith("-"):
            raise InputError(
                f"{where}: {name!r} is not a name (empty, contains '|', or starts or ends with '-')"
            )
        if gender not in GENDERS:
            raise InputError(f"{where}: {name!r} has gender {gender!r}, not one of {GENDERS}")
        if races and race not in races:
            raise InputError(
                f"{where}: {name!r} has race/ethnicity {race!r}, not one of "
                f"sources.names.{key}.races {races}"
            )
        first = seen.setdefault(reading(name), where)
        if first != where:
            raise InputError(
                f"{where}: {name!r} repeats {first}; list it in sources.names.{key}.exclude "
                "to leave it out"
            )
    table = pd.DataFrame(rows, columns=NAME_COLUMNS)
    if not races:
        table["race"] = ""
    for gender in GENDERS:
        if not (table["gender"] == gender).any():
            raise InputError(f"sources.names.{key}: no {gender} names")
    return table


def answer_read_as(word: str, answers: Mapping[str, str]) -> str | None:
    """The key of the answer word that ``word`` reads as, if any."""
    return next((key for key, answer in answers.items() if same_text(word, answer)), None)


def check_answer_words(names: pd.DataFrame, answers: Mapping[str, str]) -> None:
    """No name may read as an answer word: Q3 offers the two names beside both and neither."""
    for row in names.itertuples():
        key = answer_read_as(row.name, answers)
        if key is not None:
            raise InputError(
                f"{row.source}: the name {row.name!r} reads as answers.{key} "
                f"({answers[key]!r}); remove the name or change answers.{key}"
            )


def group_labels(names: pd.DataFrame) -> pd.Series:
    """Each name's group with every attribute its list has: "Black female", or "female" (an
    empty race, also read back from a TSV as missing, adds nothing)."""
    return (names["race"].fillna("") + " " + names["gender"]).str.strip()


def misread(tables: Iterable[pd.DataFrame]) -> list[str]:
    """The names some model does not read as their label (the names jobs' ``tables``), in list
    order."""
    names: dict[str, None] = {}
    for table in tables:
        names.update(dict.fromkeys(table.loc[~table["reads_as_label"], "name"]))
    return list(names)
