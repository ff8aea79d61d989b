"""Gendered first names in UnQover's format and the female x male pairs built from them."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pandas as pd

from hiremeornot.errors import InputError

GENDERS = ("female", "male")
ORDERS = ("female_first", "male_first")
PAIR_COLUMNS = ["pair_id", "female", "male"]


def read_names(path: str | Path, gender: str) -> list[str]:
    """Names of one file with lines like ``[subj] female | Mary``, in file order."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: name file not found")
    names = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        head, sep, name = line.partition("|")
        tag = head.split()
        if not sep or len(tag) != 2 or tag[0] != "[subj]" or not name.strip():
            raise InputError(f"{path}:{number}: expected '[subj] {gender} | Name', got {line!r}")
        if tag[1] != gender:
            raise InputError(f"{path}:{number}: the name is tagged {tag[1]!r}, not {gender!r}")
        names.append(name.strip())
    if not names:
        raise InputError(f"{path}: no names")
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise InputError(f"{path}: duplicated name(s) {duplicates}")
    return names


def read_name_lists(folder: str | Path) -> dict[str, list[str]]:
    """The female and male names of one list; a name in both lists is an error."""
    lists = {gender: read_names(Path(folder) / gender, gender) for gender in GENDERS}
    overlap = sorted(set(lists["female"]) & set(lists["male"]))
    if overlap:
        raise InputError(f"{folder}: name(s) in both the female and the male list: {overlap}")
    return lists


def same_answer(word: str, other: str) -> bool:
    """Whether two answer words read the same to a model (case and surrounding spaces aside)."""
    return word.strip().casefold() == other.strip().casefold()


def check_answer_words(
    names: dict[str, list[str]], folder: str | Path, answers: dict[str, str]
) -> None:
    """No name may read as an answer word: Q3 offers the two names beside both and neither."""
    for gender, listed in names.items():
        for name in listed:
            for key, word in answers.items():
                if same_answer(name, word):
                    raise InputError(
                        f"{Path(folder) / gender}: the name {name!r} reads as answers.{key} "
                        f"({word!r}); remove the name or change answers.{key}"
                    )


def make_pairs(names: dict[str, list[str]], pairs: int | str, seed: int) -> pd.DataFrame:
    """All female x male pairs, or a seeded sample of ``pairs`` of them, in a stable order."""
    every = list(itertools.product(names["female"], names["male"]))
    if pairs != "all":
        if pairs > len(every):
            raise InputError(
                f"names.pairs: asked for {pairs} pairs but the lists give only {len(every)}"
            )
        chosen = set(random.Random(seed).sample(range(len(every)), pairs))
        every = [pair for index, pair in enumerate(every) if index in chosen]
    return pd.DataFrame(
        [(f"{female}-{male}", female, male) for female, male in every], columns=PAIR_COLUMNS
    )
