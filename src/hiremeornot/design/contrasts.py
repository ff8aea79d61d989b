"""Contrasts: the two groups of names each pair sets side by side, and the pairs themselves.

A group fixes some of a name's attributes (``gender``, ``race``), e.g. {race: Black, gender:
female}. A contrast compares group A with group B; an attribute that neither group fixes is held
equal inside each pair (a pair of a Black and a White name is then of two women or two men).
Every number of the audit is "A minus B". ``names.contrast`` in the config chooses them:

- ``gender``: female minus male, within each race of a list that has races;
- ``race``: within each gender, each race minus the first race listed in
  sources.names.<list>.races (the reference group);
- a list of ``{a: {...}, b: {...}}``: those groups.

Inside a contrast the two sides are named by the values of the attributes that differ (their
``Sides``): female/male for gender, black/white for race, black_female/white_male where both
differ. The tables name their columns after them (``q2_female``, ``p_q1_black``), and the
gender contrast of a gender-only list keeps the layout of the paper's audit.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from hiremeornot.errors import InputError
from hiremeornot.inputs.names import GENDERS

ATTRIBUTES = ("race", "gender")  # the order in which a group's label names them
CONTROL = "label"  # the attribute of the neutral control's two people ("Person A", "Person B")
NEUTRAL_ROLES = ("both", "neither")


@dataclass(frozen=True)
class Sides:
    """What tells the two subjects of a pair apart: the attribute (a column name, as in
    ``gender1``) and the label of each side (the column of its names, the role of its answers).
    """

    attribute: str = "gender"
    a: str = "female"
    b: str = "male"
    a_words: str = "female"  # how the text names each side
    b_words: str = "male"

    @property
    def labels(self) -> tuple[str, str]:
        return (self.a, self.b)

    @property
    def is_gender(self) -> bool:
        """Whether the two sides differ in gender alone, women against men."""
        return self.attribute == "gender" and {self.a, self.b} == set(GENDERS)

    @property
    def orders(self) -> tuple[str, str]:
        """The listing orders: A first, B first."""
        return (f"{self.a}_first", f"{self.b}_first")

    def first_listed(self, order: str) -> str:
        """The side listed first in ``order``."""
        return dict(zip(self.orders, self.labels, strict=True))[order]


GENDER = Sides()


@dataclass(frozen=True)
class Contrast:
    """Group A and group B, each a tuple of (attribute, value) in ATTRIBUTES order, and the
    attributes of the list that neither fixes (held equal inside each pair)."""

    a: tuple[tuple[str, str], ...]
    b: tuple[tuple[str, str], ...]
    held: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """E.g. "Black female minus White female"; what is held equal, in brackets."""
        suffix = f" (matched on {' and '.join(self.held)})" if self.held else ""
        return f"{_label(self.a)} minus {_label(self.b)}{suffix}"

    @property
    def title(self) -> str:
        """The label, the neutral control's led by "control: " (tables of several contrasts)."""
        return ("control: " if self.is_control else "") + self.label

    @property
    def id(self) -> str:
        """The label as a path segment: black-female-minus-white-female."""
        return re.sub(r"[^a-z0-9]+", "-", self.label.lower()).strip("-")

    @property
    def is_paper(self) -> bool:
        """The paper's female vs male audit (of a gender-only list): its outputs name no
        contrast."""
        return self == GENDER_CONTRAST

    @property
    def is_control(self) -> bool:
        """The neutral control: two people named by labels, not by names."""
        return dict(self.a).keys() == {CONTROL}

    @property
    def sides(self) -> Sides:
        a, b = dict(self.a), dict(self.b)
        differ = [attribute for attribute in a if a[attribute] != b[attribute]]
        if len(differ) == 1:
            (attribute,) = differ
            words = (a[attribute], b[attribute])
        else:
            attribute, words = "group", (_label(self.a), _label(self.b))
        return Sides(attribute, *(_slug(w) for w in words), *words)

    @property
    def groups(self) -> dict[str, dict[str, str]]:
        """Each side's label and its group: {"female": {"gender": "female"}, ...}."""
        return {self.sides.a: dict(self.a), self.sides.b: dict(self.b)}

    def as_dict(self) -> dict[str, Any]:
        return {"a": dict(self.a), "b": dict(self.b), "held": list(self.held)}

    @classmethod
    def from_dict(cls, value: Mapping[str, Any]) -> Contrast:
        """The contrast of ``as_dict``'s JSON (the workflow passes it to every command)."""
        return cls(_group(value["a"]), _group(value["b"]), tuple(value.get("held", ())))


GENDER_CONTRAST = Contrast((("gender", "female"),), (("gender", "male"),))


def _members(names: pd.DataFrame, group: tuple[tuple[str, str], ...]) -> pd.Series:
    """Which rows of a name table belong to ``group``."""
    inside = pd.Series(True, index=names.index)
    for attribute, value in group:
        inside &= names[attribute] == value
    return inside


def _label(group: tuple[tuple[str, str], ...]) -> str:
    return " ".join(value for _, value in group)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def _group(spec: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """A group's (attribute, value) pairs: race, gender, then any other (the control's label)."""
    order = [*ATTRIBUTES, *(attribute for attribute in spec if attribute not in ATTRIBUTES)]
    return tuple((attribute, spec[attribute]) for attribute in order if attribute in spec)


def control_contrast(labels: list[str]) -> Contrast:
    """The neutral control: the person labelled ``labels[0]`` minus the one labelled
    ``labels[1]``, asked through the same steps (control.neutral)."""
    first, second = labels
    return Contrast(((CONTROL, first),), ((CONTROL, second),))


def control_pairs(contrast: Contrast) -> pd.DataFrame:
    """The control's one pair: its two labels."""
    first, second = dict(contrast.a)[CONTROL], dict(contrast.b)[CONTROL]
    return pd.DataFrame(
        [(pair_id(first, second), first, second)], columns=["pair_id", *contrast.sides.labels]
    )


def contrasts(spec: str | list, races: list[str], where: str = "names.contrast") -> list[Contrast]:
    """The contrasts of a ``names.contrast`` setting for a list with these ``races`` (none: a
    gender-only list), checked against what the list has."""
    if spec == "gender":
        if not races:
            return [GENDER_CONTRAST]
        return [
            Contrast((("race", race), ("gender", "female")), (("race", race), ("gender", "male")))
            for race in races
        ]
    if spec == "race":
        if not races:
            raise InputError(f"{where}: race needs a name list with races (sources.names)")
        reference, *others = races
        return [
            Contrast(
                (("race", race), ("gender", gender)), (("race", reference), ("gender", gender))
            )
            for gender in GENDERS
            for race in others
        ]
    return [_listed(pair, races, f"{where}[{i}]") for i, pair in enumerate(spec)]


def _listed(pair: Mapping[str, Mapping[str, str]], races: list[str], where: str) -> Contrast:
    known = {"gender": list(GENDERS), "race": races}
    for side in ("a", "b"):
        for attribute, value in pair[side].items():
            if value not in known[attribute]:
                among = (
                    f"is not one of {known[attribute]}"
                    if known[attribute]
                    else "is not in the name list, which declares no races (sources.names)"
                )
                raise InputError(f"{where}.{side}.{attribute}: {value!r} {among}")
    held = tuple(a for a in ATTRIBUTES if a not in pair["a"] and (a != "race" or races))
    contrast = Contrast(_group(pair["a"]), _group(pair["b"]), held)
    if set(pair["a"]) != set(pair["b"]):
        raise InputError(f"{where}: groups a and b must fix the same attributes")
    if contrast.a == contrast.b:
        raise InputError(f"{where}: groups a and b are the same group")
    if set(contrast.sides.labels) & set(NEUTRAL_ROLES):
        raise InputError(f"{where}: a group may not be called {NEUTRAL_ROLES}")
    return contrast


def pair_id(a: str, b: str) -> str:
    """The id of the pair of names ``a`` and ``b``: "A-B", a hyphen inside a name doubled, so
    that the id is unambiguous for any names that neither start nor end with one ("Mary-Ann"
    and "Jo" give "Mary--Ann-Jo", "Mary" and "Ann-Jo" give "Mary-Ann--Jo")."""
    return f"{a.replace('-', '--')}-{b.replace('-', '--')}"


def contrast_pairs(
    names: pd.DataFrame, contrast: Contrast, pairs: int | str, seed: int
) -> pd.DataFrame:
    """All pairs of an A name with a B name that agree on every attribute the contrast holds
    equal (in list order), or a seeded sample of ``pairs`` of them, split as evenly as it goes
    over the held-equal levels (as many pairs of two women as of two men). Columns:
    ``pair_id`` (see pair_id) and the names under the sides' labels."""
    levels = _pairs_by_level(names, contrast)
    if not levels:
        raise InputError(f"names.contrast: no pairs for {contrast.label}")
    chosen = list(levels.values())
    if pairs != "all":
        if pairs < len(chosen) and contrast.held:
            left_out = [" ".join(level) for level in list(levels)[pairs:]]
            held = " and ".join(contrast.held)
            raise InputError(
                f"names.pairs: {pairs} pairs leave out {left_out} of the {len(chosen)} levels "
                f"of {held} that {contrast.label} holds equal; use at least {len(chosen)} (a "
                f"multiple of {len(chosen)} splits them evenly)"
            )
        rng = random.Random(seed)
        quotas = [pairs // len(chosen) + (i < pairs % len(chosen)) for i in range(len(chosen))]
        if any(quota > len(level) for quota, level in zip(quotas, chosen, strict=True)):
            available = sum(len(level) for level in chosen)
            if contrast.held:
                even = min(len(level) for level in chosen) * len(chosen)
                held = " and ".join(contrast.held)
                available = f"{even} that split evenly over {held} ({available} in all)"
            raise InputError(
                f"names.pairs: asked for {pairs} pairs but {contrast.label} has only {available}"
            )
        chosen = [_sample(level, quota, rng) for quota, level in zip(quotas, chosen, strict=True)]
    label_a, label_b = contrast.sides.labels
    return pd.DataFrame(
        [(pair_id(a, b), a, b) for level in chosen for a, b in level],
        columns=["pair_id", label_a, label_b],
    )


def _pairs_by_level(names: pd.DataFrame, contrast: Contrast) -> dict[tuple, list[tuple[str, str]]]:
    """Every pair of an A name with a B name, by the level of the attributes held equal."""
    side_a, side_b = (names[_members(names, group)] for group in (contrast.a, contrast.b))
    levels: dict[tuple, list[tuple[str, str]]] = {}
    for a, b in itertools.product(side_a.itertuples(), side_b.itertuples()):
        level = tuple(getattr(a, attribute) for attribute in contrast.held)
        if level == tuple(getattr(b, attribute) for attribute in contrast.held):
            levels.setdefault(level, []).append((a.name, b.name))
    return levels


def list_capacity(names: pd.DataFrame, contrast: Contrast) -> dict[str, Any]:
    """What a name list offers ``contrast``: its names on each side (under the sides' labels)
    and the pairs they make (``names.pairs: all``)."""
    counts = [int(_members(names, group).sum()) for group in (contrast.a, contrast.b)]
    return {
        "names": dict(zip(contrast.sides.labels, counts, strict=True)),
        "pairs": sum(len(level) for level in _pairs_by_level(names, contrast).values()),
    }


def _sample(pairs: list[tuple[str, str]], size: int, rng: random.Random) -> list:
    """``size`` of ``pairs``, drawn with ``rng``, in their order."""
    picked = set(rng.sample(range(len(pairs)), size))
    return [pair for index, pair in enumerate(pairs) if index in picked]
