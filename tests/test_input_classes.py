"""Bad input refused by class (docs/robustness.md#classes): each test walks every member of a
class the config can hold, not only the examples that were reported."""

from __future__ import annotations

import copy
import math
import re

import pytest

from hiremeornot.checks import check_config
from hiremeornot.config import schema, validate_config
from hiremeornot.design.prompts import PLACEHOLDERS
from hiremeornot.errors import InputError

ANY_KEY = "x"  # the name put where the schema allows any key (a model, an occupation, a group)


def numeric_leaves(node: dict, path: tuple = ()) -> list[tuple[tuple, dict]]:
    """(path, subschema) of every number or integer the schema declares; ANY_KEY stands for a
    key the user names and 0 for an item of a list. A subschema whose object requires other
    keys beside it carries them (``siblings``: each one's lowest value)."""
    found = []
    types = node.get("type")
    if {"number", "integer"} & set(types if isinstance(types, list) else [types]):
        found.append((path, node))
    for name, child in node.get("properties", {}).items():
        required = {key: node["properties"][key] for key in node.get("required", [])}
        siblings = {key: spec["minimum"] for key, spec in required.items() if "minimum" in spec}
        siblings.pop(name, None)
        if siblings and "siblings" not in child:
            child = {**child, "siblings": siblings}
        found += numeric_leaves(child, (*path, name))
    if isinstance(node.get("additionalProperties"), dict):
        found += numeric_leaves(node["additionalProperties"], (*path, ANY_KEY))
    if isinstance(node.get("items"), dict):
        found += numeric_leaves(node["items"], (*path, 0))
    return found


NUMBERS = numeric_leaves(schema())
MODEL_SCHEMA = schema()["properties"]["models"]["additionalProperties"]["properties"]


def config_with(path: tuple, value, siblings: dict) -> dict:
    """A config holding ``value`` at ``path`` and what that key needs beside it (a model of the
    backend the key belongs to)."""
    marked = MODEL_SCHEMA[path[2]].get("x-backend", "simulated") if path[0] == "models" else None
    backend = marked if isinstance(marked, str) else (marked or ["simulated"])[0]
    config: dict = {"models": {ANY_KEY: {"backend": backend, "model": "m"}}}
    node = config
    for key, following in zip(path[:-1], path[1:], strict=True):
        node = node.setdefault(key, [] if following == 0 else {})
    if isinstance(node, list):
        node.append(value)
    else:
        node.update(siblings)
        node[path[-1]] = value
    return config


def shown(path: tuple) -> str:
    return ".".join(str(part) for part in path)


def test_the_walk_finds_the_numbers_of_every_section():
    found = {shown(path) for path, _ in NUMBERS}
    assert {"names.seed", "models.x.temperature", "report.confidence"} <= found
    assert "models.x.respondent.occupations.x.q2.x" in found
    assert "report.power_differences.0" in found
    assert len(found) > 50


@pytest.mark.parametrize(("path", "spec"), NUMBERS, ids=[shown(p) for p, _ in NUMBERS])
def test_every_number_is_refused_when_not_finite_or_out_of_its_range(path, spec):
    key, siblings = shown(path), spec.get("siblings", {})
    for value in (math.nan, math.inf, -math.inf):
        with pytest.raises(InputError, match=rf"invalid value at '{key}'"):
            validate_config(config_with(path, value, siblings))
    low = spec.get("minimum", spec.get("exclusiveMinimum"))
    assert low is not None, f"{key} has no lower bound: say which values are absurd"
    below = low - 1 if "minimum" in spec else low
    with pytest.raises(InputError, match=rf"invalid value at '{key}'"):
        validate_config(config_with(path, below, siblings))
    high = spec.get("maximum", spec.get("exclusiveMaximum"))
    if high is not None:
        above = high + 1 if "maximum" in spec else high
        with pytest.raises(InputError, match=rf"invalid value at '{key}'"):
            validate_config(config_with(path, above, siblings))
    # a value in range is accepted (the walk builds configs the schema takes)
    validate_config(config_with(path, copy.deepcopy(spec.get("default", low + 1)), siblings))


def test_more_step1_jobs_than_the_design_has_questions_are_refused():
    """3 pairs x 2 orders x 2 subjects x 3 types x 2 attributes x 2 occupations x 1 wording
    x 1 contrast = 144 questions at most: a 145th job could not have one."""
    config = validate_config(
        {
            "models": {ANY_KEY: {"backend": "simulated", "model": "m", "step1_shards": 145}},
            "names": {"pairs": 3},
            "attributes": {"per_type": 2},
            "occupations": {"select": ["nurse", "pilot"]},
        }
    )
    with pytest.raises(InputError, match=r"models.x.step1_shards: 145 jobs, .* at most 144 Step"):
        check_config(copy.deepcopy(config))
    config["models"][ANY_KEY]["step1_shards"] = 144
    check_config(config)


def needed(key: str) -> str:
    """The fields a prompt template must hold, written out."""
    return " ".join("{" + sorted(group)[0] + "} " for group in PLACEHOLDERS[key][1])


# Every template of the config (prompts, a wording's, the validity questions, an extractive QA
# model's options sentence): a field it may fill in, and the text it must hold anyway.
TEMPLATES = {
    **{
        ("prompts", key): (sorted(allowed)[0], needed(key))
        for key, (allowed, _) in PLACEHOLDERS.items()
    },
    **{
        ("prompts", "wordings", "w", key): ("subject", needed(key))
        for key in ("q1", "attribute_question")
    },
    ("names", "validity", "gender_question"): ("name", "{name} "),
    ("names", "validity", "race_question"): ("name", "{name} "),
    ("models", ANY_KEY, "options_sentence"): ("options", "{options} "),
}
# What str.format would do besides filling a named field in.
NOT_PLAIN = [
    "{{{0}!r}}",
    "{{{0}!s:>20}}",
    "{{{0}:>9}}",
    "{{{0}.upper}}",
    "{{{0}[0]}}",
    "{{0}}",
    "{{}}",
]


def templated(path: tuple, text: str) -> dict:
    """A config whose template at ``path`` holds ``text``."""
    config = config_with(path, text, {})
    if path[0] == "models":
        config["models"][ANY_KEY]["backend"] = "extractive_qa"
    return config


@pytest.mark.parametrize("path", TEMPLATES, ids=shown)
@pytest.mark.parametrize("shape", NOT_PLAIN)
def test_a_template_fills_in_plain_named_fields_only(path, shape):
    field, keep = TEMPLATES[path]
    with pytest.raises(InputError, match=rf"^{re.escape(shown(path))}: .* not a plain named"):
        check_config(validate_config(templated(path, keep + shape.format(field))))
    with pytest.raises(InputError, match=rf"^{re.escape(shown(path))}: unknown placeholder"):
        check_config(validate_config(templated(path, keep + "{nosuch}")))
    check_config(validate_config(templated(path, keep + "{{braces}} kept")))


PLAIN_TEXTS = [
    ("interventions", "instructions", "fair", "preamble"),
    ("interventions", "instructions", "fair", "system"),
    ("models", ANY_KEY, "system_prompt"),
]


@pytest.mark.parametrize("path", PLAIN_TEXTS, ids=shown)
def test_a_text_sent_as_written_may_not_hold_a_field(path):
    config = config_with(path, "Judge {subject} fairly.", {})
    with pytest.raises(InputError, match=rf"^{re.escape(shown(path))}: {{subject}} would be sent"):
        check_config(validate_config(config))
    config = config_with(path, "Judge fairly {", {})
    check_config(validate_config(config))
