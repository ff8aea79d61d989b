"""Contrasts: which groups a run compares, how their sides are named, and their pairs."""

import copy

import pandas as pd
import pytest

from hiremeornot.checks import check_config
from hiremeornot.config import validate_config
from hiremeornot.design.contrasts import (
    GENDER,
    GENDER_CONTRAST,
    Contrast,
    Sides,
    contrast_pairs,
    contrasts,
    list_capacity,
)
from hiremeornot.errors import InputError
from hiremeornot.inputs.names import NAME_COLUMNS
from hiremeornot.plan import listing_orders, run_contrasts
from tests.test_config import DEFAULT


def config(**names) -> dict:
    """The default config, its names section updated, validated and filled."""
    value = copy.deepcopy(DEFAULT)
    value["names"].update(names.get("names", {}))
    return validate_config(value)


RACES = ["White", "Black", "Asian"]


def labels(found):
    return [contrast.label for contrast in found]


def test_gender_is_female_minus_male_and_within_each_race_of_a_raced_list():
    assert contrasts("gender", []) == [GENDER_CONTRAST]
    assert GENDER_CONTRAST.sides == GENDER and GENDER_CONTRAST.label == "female minus male"
    within = contrasts("gender", RACES)
    assert labels(within) == [f"{race} female minus {race} male" for race in RACES]
    assert {contrast.sides for contrast in within} == {GENDER}
    assert all(not contrast.held for contrast in within)


def test_race_compares_each_race_with_the_first_listed_within_each_gender():
    found = contrasts("race", RACES)
    assert labels(found) == [
        "Black female minus White female",
        "Asian female minus White female",
        "Black male minus White male",
        "Asian male minus White male",
    ]
    assert found[0].sides == Sides("race", "black", "white", "Black", "White")
    assert found[0].id == "black-female-minus-white-female"
    with pytest.raises(InputError, match="race needs a name list with races"):
        contrasts("race", [])


def test_listed_pairs_name_their_sides_and_hold_what_they_leave_open():
    both = {"a": {"race": "Black", "gender": "female"}, "b": {"race": "White", "gender": "male"}}
    matched = {"a": {"race": "Black"}, "b": {"race": "White"}}
    crossed, pooled = contrasts([both, matched], RACES)
    assert crossed.sides == Sides(
        "group", "black_female", "white_male", "Black female", "White male"
    )
    assert pooled.held == ("gender",)
    assert pooled.label == "Black minus White (matched on gender)"
    assert Contrast.from_dict(pooled.as_dict()) == pooled


@pytest.mark.parametrize(
    ("pair", "message"),
    [
        ({"a": {"race": "Martian"}, "b": {"race": "White"}}, r"\[0\].a.race: 'Martian' is not"),
        ({"a": {"race": "Black"}, "b": {"gender": "male"}}, "must fix the same attributes"),
        ({"a": {"race": "Black"}, "b": {"race": "Black"}}, "are the same group"),
    ],
)
def test_listed_pairs_that_cannot_be_audited_are_refused(pair, message):
    with pytest.raises(InputError, match=message):
        contrasts([pair], RACES, "names.contrast")


def test_the_paper_audit_keeps_results_at_the_top_and_others_get_a_folder_each():
    assert run_contrasts(config()) == {"": GENDER_CONTRAST}
    bloomberg = config(names={"list": "bloomberg", "contrast": "race"})
    prefixes = list(run_contrasts(bloomberg))
    assert len(prefixes) == 6 and prefixes[0] == "contrasts/black-female-minus-white-female/"
    twice = {"a": {"race": "Black"}, "b": {"race": "White"}}
    with pytest.raises(InputError, match="listed twice"):
        run_contrasts(config(names={"list": "bloomberg", "contrast": [twice, twice]}))


def test_orders_name_the_sides_of_the_contrast():
    race = Sides("race", "black", "white", "Black", "White")
    assert listing_orders(config(), GENDER) == ["female_first", "male_first"]
    assert listing_orders(config(names={"orders": ["b_first"]}), race) == ["white_first"]
    assert listing_orders(config(names={"orders": ["female_first"]}), GENDER) == ["female_first"]
    with pytest.raises(InputError, match="female_first names an order of the gender contrast"):
        check_config(
            config(names={"list": "bloomberg", "contrast": "race", "orders": ["female_first"]})
        )
    with pytest.raises(InputError, match="lists one order twice"):
        listing_orders(config(names={"orders": ["a_first", "female_first"]}), GENDER)


NAMES = pd.DataFrame(
    [
        ("Ann", "female", "Black", "f:1"),
        ("Bea", "female", "Black", "f:2"),
        ("Cal", "male", "Black", "m:1"),
        ("Dot", "female", "White", "f:3"),
        ("Eve", "female", "White", "f:4"),
        ("Fay", "female", "White", "f:5"),
        ("Gus", "male", "White", "m:2"),
        ("Hal", "male", "White", "m:3"),
    ],
    columns=NAME_COLUMNS,
)


def test_pairs_hold_the_open_attribute_equal_and_split_a_sample_evenly_over_it():
    (matched,) = contrasts([{"a": {"race": "Black"}, "b": {"race": "White"}}], RACES)
    every = contrast_pairs(NAMES, matched, "all", 0)
    assert list(every.columns) == ["pair_id", "black", "white"]
    assert len(every) == 2 * 3 + 1 * 2  # women with women, men with men
    gender = dict(zip(NAMES["name"], NAMES["gender"], strict=True))
    assert all(gender[a] == gender[b] for a, b in zip(every["black"], every["white"], strict=True))
    sample = contrast_pairs(NAMES, matched, 4, 0)
    assert [gender[name] for name in sample["black"]] == ["female", "female", "male", "male"]
    assert sample.equals(contrast_pairs(NAMES, matched, 4, 0))
    with pytest.raises(InputError, match="only 4 that split evenly over gender"):
        contrast_pairs(NAMES, matched, 6, 0)
    (women,) = contrasts(
        [{"a": {"race": "Black", "gender": "female"}, "b": {"race": "White", "gender": "female"}}],
        RACES,
    )
    assert len(contrast_pairs(NAMES, women, "all", 0)) == 2 * 3
    with pytest.raises(InputError, match="asked for 7 pairs but .* has only 6$"):
        contrast_pairs(NAMES, women, 7, 0)


def test_a_lists_capacity_counts_each_sides_names_and_the_pairs_they_make():
    """Counted by hand from NAMES: 2 Black women, 3 White women, 1 Black man, 2 White men."""
    (matched,) = contrasts([{"a": {"race": "Black"}, "b": {"race": "White"}}], RACES)
    assert list_capacity(NAMES, matched) == {"names": {"black": 3, "white": 5}, "pairs": 8}
    assert list_capacity(NAMES, matched)["pairs"] == len(contrast_pairs(NAMES, matched, "all", 0))


def test_pair_ids_are_unambiguous_for_hyphenated_names():
    """Mary-Ann with Jo and Mary with Ann-Jo once shared the id "Mary-Ann-Jo"."""
    names = pd.DataFrame(
        [
            (name, gender, "", f"f:{i}")
            for i, (name, gender) in enumerate(
                [("Mary-Ann", "female"), ("Mary", "female"), ("Jo", "male"), ("Ann-Jo", "male")]
            )
        ],
        columns=NAME_COLUMNS,
    )
    pairs = contrast_pairs(names, GENDER_CONTRAST, "all", 0)
    assert len(pairs) == 4 and pairs["pair_id"].is_unique
    assert set(pairs["pair_id"]) >= {"Mary--Ann-Jo", "Mary-Ann--Jo"}


def test_no_function_defaults_its_contrast():
    """A function that names columns or words by the contrast takes it explicitly: a default
    would silently compute the paper's gender columns for a forgotten argument."""
    import importlib
    import inspect
    import pkgutil

    import hiremeornot

    defaulted = []
    backends = "hiremeornot.asking.backends"
    for module in pkgutil.walk_packages(hiremeornot.__path__, "hiremeornot."):
        if module.name.startswith(backends) or module.name.endswith("__main__"):
            continue  # the backends know no contrast; __main__ runs the CLI
        for name, member in inspect.getmembers(importlib.import_module(module.name)):
            if not inspect.isfunction(member) or member.__module__ != module.name:
                continue
            for parameter in inspect.signature(member).parameters.values():
                if parameter.name in ("sides", "contrast") and parameter.default is not (
                    inspect.Parameter.empty
                ):
                    defaulted.append(f"{module.name}.{name}({parameter.name})")
    assert defaulted == []
