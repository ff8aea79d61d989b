"""When two entries a user wrote are one: the same text once the differences a reader does not
see are set aside (Unicode normal form, case, invisible characters, surrounding and repeated
white space)."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable
from typing import Any

from hiremeornot.errors import InputError

# What set aside means, as the messages say it.
SET_ASIDE = "case, Unicode form and invisible or surrounding spaces aside"
SET_ASIDE_BUT_CASE = "Unicode form and invisible or surrounding spaces aside"


def reading(text: str, *, fold_case: bool = True) -> str:
    """``text`` as a reader takes it: NFKC (a full-width ``Ｙｅｓ`` is ``Yes``), without format
    characters (a zero-width space, a byte-order mark), white space trimmed and collapsed
    (a no-break space is a space), case folded unless ``fold_case`` is false (a text a model
    reads, where case can change an answer)."""
    normal = unicodedata.normalize("NFKC", text)
    visible = "".join(char for char in normal if unicodedata.category(char) != "Cf")
    collapsed = " ".join(visible.split())
    return collapsed.casefold() if fold_case else collapsed


def content_reading(value: Any) -> str:
    """Settings or templates (texts in mappings and lists) as a reader takes them, in one
    string: every text read as ``reading`` reads it, case kept (a model reads case)."""

    def read(item: Any) -> Any:
        if isinstance(item, str):
            return reading(item, fold_case=False)
        if isinstance(item, dict):
            return {key: read(part) for key, part in item.items()}
        if isinstance(item, list):
            return [read(part) for part in item]
        return item

    return json.dumps(read(value), sort_keys=True, ensure_ascii=False)


def same_text(text: str, other: str) -> bool:
    """Whether a reader takes two texts for one."""
    return reading(text) == reading(other)


def first_twin(
    entries: Iterable[tuple[str, str]], *, fold_case: bool = True
) -> tuple[tuple[str, str], tuple[str, str]] | None:
    """The first ``(where, text)`` that reads as an earlier one, and that earlier one."""
    seen: dict[str, tuple[str, str]] = {}
    for entry in entries:
        first = seen.setdefault(reading(entry[1], fold_case=fold_case), entry)
        if first is not entry:
            return first, entry
    return None


def refuse_twins(entries: Iterable[tuple[str, str]], what: str = "entry") -> None:
    """Raise InputError at the first ``(where, text)`` that reads as an earlier one, naming
    both places; ``what`` says what the entries are."""
    twin = first_twin(entries)
    if twin:
        (first, text), (where, again) = twin
        raise InputError(
            f"{where}: the {what} {again!r} is {text!r} of {first} ({SET_ASIDE}); give it once"
        )
