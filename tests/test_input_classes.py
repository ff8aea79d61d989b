"""Bad input refused by class (docs/robustness.md#classes): each test walks every member of a
class the config can hold, not only the examples that were reported."""

from __future__ import annotations

import copy
import math
import re
import unicodedata

import pytest
import yaml

from hiremeornot import checks, placement
from hiremeornot.checks import check_config
from hiremeornot.config import models_merged_in, schema, validate_config
from hiremeornot.design.prompts import PLACEHOLDERS
from hiremeornot.errors import InputError
from hiremeornot.inputs.names import read_name_list
from hiremeornot.inputs.occupations import read_occupations, select_occupations
from tests.conftest import SHARED_DATA, needs_data
from tests.test_names import UNQOVER, write

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
    types = spec["type"] if isinstance(spec["type"], list) else [spec["type"]]
    if "integer" in types:  # a whole number written as a float: range(3.0) refuses it in a job
        whole = float(spec.get("default") or low + 1)
        with pytest.raises(InputError, match=rf"invalid value at '{key}': .*not of type 'integer'"):
            validate_config(config_with(path, whole, siblings))
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


def name_source(**changes) -> dict:
    """The unqover name list's settings with ``changes``."""
    filled = validate_config({"models": {"m": {"backend": "simulated", "model": "m"}}})
    names = filled["sources"]["names"]
    return {"sources": {"names": {**names, "unqover": {**names["unqover"], **changes}}}}


# Ways one text is written twice that a reader does not see (sameness.reading).
TWIN_MAKERS = {
    "case": str.upper,
    "zero-width space": lambda text: text + "\u200b",
    "no-break space around": lambda text: "\u00a0" + text + " ",
    "full width": lambda text: "".join(
        chr(ord(c) + 0xFEE0) if c.isascii() and c.isalnum() else c for c in text
    ),
    "decomposed accents": lambda text: unicodedata.normalize("NFD", text) + "\u200d",
}
# Every list the config holds, as (where its second entry is, a config holding ``first`` and
# ``second``): occupations, wordings run, instructions run, control labels, a name list's
# excluded names and races, and the names of models.
TWIN_LISTS = {
    "occupations.select.1": lambda a, b: {"occupations": {"select": [a, b]}},
    "prompts.variants.1": lambda a, b: {"prompts": {"variants": [a, b]}},
    "interventions.run.2": lambda a, b: {
        "interventions": {"run": ["none", a, b], "instructions": {a: {"preamble": "Be fair."}}}
    },
    "control.labels.1": lambda a, b: {"control": {"labels": [a, b]}},
    "sources.names.unqover.exclude.1": lambda a, b: name_source(exclude=[a, b]),
    "sources.names.unqover.races.1": lambda a, b: name_source(races=[a, b]),
}
FIRST = {  # an entry each list can hold, with letters NFD splits ("é")
    "occupations.select.1": "nurse",
    "prompts.variants.1": "paper",
    "interventions.run.2": "fair",
    "control.labels.1": "Renée",
    "sources.names.unqover.exclude.1": "José",
    "sources.names.unqover.races.1": "Latiné",
}


def with_model(config: dict) -> dict:
    return {"models": {"m": {"backend": "simulated", "model": "m"}}, **config}


@pytest.mark.parametrize("maker", TWIN_MAKERS)
@pytest.mark.parametrize("where", TWIN_LISTS)
def test_an_entry_given_twice_in_any_list_is_refused_naming_both(where, maker):
    first = FIRST[where]
    second = TWIN_MAKERS[maker](first)
    if second == first:
        pytest.skip(f"{maker} writes {first!r} alike")
    config = with_model(TWIN_LISTS[where](first, second))
    # or refused by the schema at its key (an id's pattern [a-z0-9_], a label's white space)
    twin = rf"^{re.escape(where)}: the entry .* is {first!r} of "
    schema_refusal = rf"^config: invalid value at '{re.escape(where)}'"
    with pytest.raises(InputError, match=rf"{twin}|{schema_refusal}"):
        check_config(validate_config(copy.deepcopy(config)))


@pytest.mark.parametrize("maker", ["case", "full width"])
def test_two_models_whose_names_read_alike_are_refused(maker):
    """Their folders would be one on a file system that ignores case (macOS, Windows)."""
    second = TWIN_MAKERS[maker]("m")
    models = {
        "m": {"backend": "simulated", "model": "a"},
        second: {"backend": "simulated", "model": "b"},
    }
    if maker == "full width":  # the schema allows only [A-Za-z0-9._-] in a model's name
        with pytest.raises(InputError, match=r"invalid value at 'models'"):
            check_config(validate_config({"models": models}))
        return
    with pytest.raises(InputError, match=r"^models.M: the name 'M' is 'm' of models.m \(case"):
        check_config(validate_config({"models": models}))


@pytest.mark.parametrize("maker", ["zero-width space", "no-break space around", "full width"])
def test_one_content_under_two_names_is_refused(maker):
    """Two wordings, two instructions or two models whose texts or answer settings read the same
    would ask every question twice; a difference of case is a difference to a model."""
    text = "Who should be hired as {a_occupation}?"
    wordings = {"w1": {"q3": text}, "w2": {"q3": TWIN_MAKERS[maker](text)}}
    with pytest.raises(InputError, match=r"^prompts.wordings.w2: the same templates as prompts"):
        check_config(validate_config(with_model({"prompts": {"wordings": wordings}})))
    fair = "Judge people by merit."
    instructions = {"a": {"preamble": fair}, "b": {"preamble": TWIN_MAKERS[maker](fair)}}
    with pytest.raises(InputError, match=r"^interventions.instructions.b: the same texts as"):
        check_config(validate_config(with_model({"interventions": {"instructions": instructions}})))
    models = {
        "one": {"backend": "simulated", "model": "sim"},
        "two": {"backend": "simulated", "model": TWIN_MAKERS[maker]("sim")},
    }
    with pytest.raises(InputError, match=r"^models.two: the same model and answer settings as"):
        check_config(validate_config({"models": models}))
    wordings["w2"]["q3"] = text.upper().replace("{A_OCCUPATION}", "{a_occupation}")
    instructions["b"]["preamble"] = fair.upper()
    models["two"]["model"] = "SIM"
    check_config(validate_config(with_model({"prompts": {"wordings": wordings}})))
    check_config(validate_config(with_model({"interventions": {"instructions": instructions}})))
    check_config(validate_config({"models": models}))


@pytest.mark.parametrize("maker", TWIN_MAKERS)
def test_a_name_twice_in_a_name_list_is_refused_with_both_lines(tmp_path, maker):
    """``Mary`` and ``Mary`` with a zero-width space were once paired as two people."""
    twin = TWIN_MAKERS[maker]("Renée")
    folder = write(tmp_path, f"[subj] female | Renée\n[subj] female | {twin}", "[subj] male | Jo")
    with pytest.raises(InputError, match=rf"^{folder}/female:2: .* repeats {folder}/female:1;"):
        read_name_list(tmp_path, UNQOVER, "mine")


@pytest.mark.parametrize("maker", TWIN_MAKERS)
def test_a_title_twice_in_the_occupation_table_is_refused_with_both_rows(tmp_path, maker):
    table = tmp_path / "occupations.tsv"
    rows = [("nurse", "29-1141.00"), (TWIN_MAKERS[maker]("nurse"), "29-1141.00")]
    table.write_text(
        "title\tsoc_code\tonet_title\tmatch\treason\n"
        + "".join(f"{title}\t{code}\tNurses\ttitle\tsame\n" for title, code in rows)
    )
    with pytest.raises(InputError, match=rf"^{table}:3: the title .* is 'nurse' of {table}:2"):
        read_occupations(table)


@pytest.mark.parametrize("code", ["29-1141", "29-1141.00 ", "291141.00", "29–1141.00"])
def test_a_soc_code_not_written_as_one_is_refused_with_its_row(tmp_path, code):
    table = tmp_path / "occupations.tsv"
    table.write_text(
        "title\tsoc_code\tonet_title\tmatch\treason\nnurse\t29-1141.00\tNurses\ttitle\tsame\n"
        f"doctor\t{code}\tPhysicians\ttitle\tsame\n"
    )
    with pytest.raises(InputError, match=rf"^{table}:3: the soc_code .* of 'doctor' is not"):
        read_occupations(table)


def test_an_occupation_table_without_an_occupation_is_refused(tmp_path):
    table = tmp_path / "occupations.tsv"
    table.write_text("title\tsoc_code\tonet_title\tmatch\treason\n")
    with pytest.raises(InputError, match=rf"^{table}: no occupation with a soc_code"):
        select_occupations(table, "all")


def test_a_title_selected_as_written_differently_is_named_with_the_tables_spelling():
    with pytest.raises(
        InputError, match=r"unknown occupation\(s\) \['Nurse '\] .* \{'Nurse ': 'nurse'\}"
    ):
        check_config(validate_config(with_model({"occupations": {"select": ["Nurse "]}})))


@pytest.mark.parametrize("maker", TWIN_MAKERS)
def test_answer_words_offered_together_must_read_differently(maker):
    answers = {"both": "Both", "neither": TWIN_MAKERS[maker]("Both").strip()}
    with pytest.raises(InputError, match=r"answers.both and answers.neither read the same"):
        check_config(validate_config(with_model({"answers": answers})))


def path_keys() -> list[tuple[tuple, str]]:
    """(path, kind) of every key the schema marks x-path, ANY_KEY for a model's name."""
    found = []

    def walk(node: dict, path: tuple) -> None:
        if "x-path" in node:
            found.append((path, node["x-path"]))
        for name, child in node.get("properties", {}).items():
            walk(child, (*path, name))
        if isinstance(node.get("additionalProperties"), dict):
            walk(node["additionalProperties"], (*path, ANY_KEY))

    walk(schema(), ())
    return found


PATHS = path_keys()


def test_every_key_that_names_a_file_or_folder_is_marked_as_a_path():
    marked = {shown(path) for path, _ in PATHS}
    assert marked == {
        "local_data",
        "occupations.table",
        "workforce.crosswalk",
        "workforce.shares",
        "store_dir",
        "models.x.model",
        "models.x.gguf_file",
        "models.x.venv",
        "models.x.download_dir",
    }


def path_config(path: tuple, value: str) -> dict:
    backend = MODEL_SCHEMA[path[2]].get("x-backend", "simulated") if path[0] == "models" else None
    config = config_with(path, value, {})
    if backend:
        config["models"][ANY_KEY]["backend"] = backend if isinstance(backend, str) else backend[0]
    return config


@pytest.mark.parametrize(("path", "kind"), PATHS, ids=[shown(p) for p, _ in PATHS])
def test_every_path_is_refused_empty_and_as_the_wrong_kind_of_thing(path, kind, tmp_path):
    key = shown(path)
    for empty in ("", "  "):
        with pytest.raises(InputError, match=rf"^{re.escape(key)}: an empty path"):
            check_config(validate_config(path_config(path, empty)))
    with pytest.raises(InputError, match=rf"^{re.escape(key)}: '~/x': ~ is not expanded here"):
        check_config(validate_config(path_config(path, "~/x")))
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    wrong = {
        "file": (tmp_path, "is a folder; a file is expected"),
        "folder": (a_file, "is a file where a folder belongs"),
        "writable_folder": (a_file / "store", "lies under the file"),
    }
    if kind in wrong:
        value, message = wrong[kind]
        with pytest.raises(InputError, match=rf"^{re.escape(key)}: .*{re.escape(message)}"):
            check_config(validate_config(path_config(path, str(value))))


@pytest.mark.parametrize("key", ["store_dir", "models.x.download_dir"])
def test_a_folder_the_run_writes_must_be_writable(key, tmp_path, monkeypatch):
    """As a user without write access sees it (root writes anywhere, so access is refused by
    a stand-in for os.access: every folder reads as not writable)."""
    monkeypatch.setattr(placement.os, "access", lambda path, mode: False)
    path = tuple(key.split("."))
    with pytest.raises(InputError, match=rf"^{re.escape(key)}: .* cannot be written \({tmp_path}"):
        check_config(validate_config(path_config(path, str(tmp_path / "store"))))


BACKEND_KEYS = sorted(
    (key, spec["x-backend"]) for key, spec in MODEL_SCHEMA.items() if "x-backend" in spec
)


@pytest.mark.parametrize(("key", "marked"), BACKEND_KEYS, ids=[key for key, _ in BACKEND_KEYS])
def test_a_setting_of_another_backend_is_refused(key, marked):
    """It would do nothing, and one marked answers would still enter the store's key."""
    backends = {"transformers", "openai", "vllm", "extractive_qa", "simulated"}
    other = sorted(backends - set([marked] if isinstance(marked, str) else marked))[0]
    own = marked if isinstance(marked, str) else marked[0]
    filled = validate_config({"models": {"m": {"backend": own, "model": "m"}}})
    value = copy.deepcopy(filled["models"]["m"][key])
    config = {"models": {"m": {"backend": other, "model": "m", key: value}}}
    with pytest.raises(InputError, match=rf"^models.m.{key}: a setting of the .* uses {other}"):
        check_config(validate_config(config))


@pytest.mark.parametrize("backend", ["extractive_qa"])
@pytest.mark.parametrize("mode", ["free", {"step3": "free"}])
def test_free_questions_for_a_backend_that_cannot_ask_them_are_refused(backend, mode):
    config = {"models": {"m": {"backend": backend, "model": "m", "answers_mode": mode}}}
    with pytest.raises(InputError, match=rf"^models.m.answers_mode: the {backend} backend asks"):
        check_config(validate_config(config))


@pytest.mark.parametrize("mode", ["Free", {"step4": "free"}, {"step1": "loose"}, {}])
def test_an_answers_mode_of_no_known_form_is_refused(mode):
    config = {"models": {"m": {"backend": "simulated", "model": "m", "answers_mode": mode}}}
    with pytest.raises(InputError, match=r"'models.m.answers_mode'"):
        validate_config(config)


def test_a_missing_api_key_is_said_before_any_job(monkeypatch):
    config = validate_config({"models": {"gpt": {"backend": "openai", "model": "gpt-4o"}}})
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert checks.config_warnings(config) == [
        "models.gpt: $OPENAI_API_KEY is not set: its jobs will fail until it holds the API key"
    ]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert checks.config_warnings(config) == []


@pytest.mark.parametrize("url", ["localhost:8000/v1", "api.openai.com/v1", " http://a", "ftp://a"])
def test_a_base_url_without_its_scheme_is_refused(url):
    config = {"models": {"gpt": {"backend": "openai", "model": "g", "base_url": url}}}
    with pytest.raises(InputError, match=r"'models.gpt.base_url': .* with its scheme"):
        validate_config(config)


@pytest.mark.parametrize(
    ("given", "key"),
    [
        ("report={alpha: 0.1}", "report.alpha"),
        ("names={pairs: 3}", "names.pairs"),
        ("names={validate: true}", "names.validate"),
        ("report={power_differences: [0.1, 0.2]}", "report.power_differences.0"),
    ],
)
def test_a_value_snakemake_read_as_text_is_named_as_such(given, key):
    """Snakemake's --config reads every value nested in {...} as text ('0.1', not 0.1)."""
    from snakemake.cli import parse_config

    config = {"models": {"m": {"backend": "simulated", "model": "m"}}, **parse_config([given])}
    with pytest.raises(InputError, match=rf"'{re.escape(key)}': .* \(it is the text '"):
        validate_config(config)


def test_text_that_is_no_value_of_the_type_gets_no_such_hint():
    with pytest.raises(InputError) as refused:
        validate_config(
            {"models": {"m": {"backend": "simulated", "model": "m"}}, "names": {"pairs": "x"}}
        )
    assert "it is the text" not in str(refused.value)


@needs_data
def test_more_attributes_than_the_local_release_rates_are_refused_before_any_job():
    """O*NET 29.3 rates 35 skills, 33 knowledge and 52 ability elements."""
    config = with_model({"local_data": str(SHARED_DATA), "attributes": {"per_type": 34}})
    with pytest.raises(
        InputError,
        match=r"^attributes.per_type: 34, but O\*NET db_29_3_text rates 35 skill, 33 knowledge, "
        r"52 ability elements; use at most 33",
    ):
        check_config(validate_config(config))
    config["attributes"]["per_type"] = 33
    check_config(validate_config(config))


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("results/compare/sim_vs_nosuch.md", "not two models of the config joined by _vs_"),
        ("results/compare/nosuch_vs_sim.tsv", "not two models of the config joined by _vs_"),
        ("results/contrasts/black/compare/sim_vs_x_changed.tsv", "not two models"),
        ("results/compare/sim-and-gpt.png", "not two models of the config joined by _vs_"),
        ("results/compare/gpt_vs_gpt.md", "compares gpt with itself"),
        ("results/calibration/gpt.md", "'gpt' is not a simulated model"),
        ("results/control/calibration/nosuch_verdicts.tsv", "'nosuch' is no model"),
    ],
)
def test_a_target_asked_for_by_name_names_models_of_the_config(target, message):
    with pytest.raises(InputError, match=rf"^{re.escape(target)}: .*{re.escape(message)}"):
        placement.check_targets([target], ["sim", "gpt", "gpt+fair"], ["sim"])
    for fine in ("results/compare/sim_vs_gpt+fair.md", "results/calibration/sim.png", "-n"):
        placement.check_targets([fine], ["sim", "gpt", "gpt+fair"], ["sim"])


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            {"names": {"pairs": "ALL"}},
            r"'names.pairs': 'ALL' is none of what it may be: .*'all' was",
        ),
        (
            {"occupations": {"select": ["nurse", 1]}},
            r"'occupations.select': .* none of what it may be: 'all' was expected; at 1: 1 is not",
        ),
    ],
)
def test_a_value_of_none_of_its_forms_is_told_what_each_form_wants(config, message):
    with pytest.raises(InputError, match=message):
        validate_config(with_model(config))


def test_an_api_key_given_for_its_variable_is_refused_without_showing_it():
    config = {
        "models": {"gpt": {"backend": "openai", "model": "g", "api_key_env": "sk-proj-S3CRET"}}
    }
    with pytest.raises(
        InputError, match=r"'models.gpt.api_key_env': the value is not the name"
    ) as refused:
        validate_config(config)
    assert "S3CRET" not in str(refused.value)


ANSWER_WORDS = {
    key: spec["default"] for key, spec in schema()["properties"]["answers"]["properties"].items()
}


@pytest.mark.parametrize("key", ANSWER_WORDS)
@pytest.mark.parametrize("other", ANSWER_WORDS)
def test_an_answer_word_that_is_another_answers_word_is_refused(key, other):
    """answers.yes: "No" would read every yes as no: the results inverted, without a word."""
    if key == other:
        return
    answers = {key: ANSWER_WORDS[other].upper()}
    with pytest.raises(
        InputError, match=rf"answers.{key}: .* is the word of answers.{other}|read the same"
    ):
        check_config(validate_config(with_model({"answers": answers})))


@pytest.mark.parametrize("store", ["results", "./results/", "results/m", "results/m/store"])
def test_a_store_in_the_results_own_folders_is_refused(store):
    with pytest.raises(
        InputError,
        match=rf"^store_dir: '{re.escape(store)}' (is results/ itself|lies in results/m/)",
    ):
        check_config(validate_config(with_model({"store_dir": store})))
    check_config(validate_config(with_model({"store_dir": "results/store"})))


@needs_data
@pytest.mark.parametrize(
    ("names", "message"),
    [
        (
            {
                "list": "bloomberg",
                "contrast": [{"a": {"gender": "female"}, "b": {"gender": "male"}}],
                "pairs": 3,
            },
            r"names.pairs: 3 pairs leave out \['Hispanic'\] of the 4 levels of race",
        ),
        ({"list": "bbq", "contrast": "race", "pairs": 95}, r"names.pairs: asked for 95 pairs but"),
    ],
)
def test_pairs_the_list_cannot_give_are_refused_before_any_job(names, message):
    config = with_model({"local_data": str(SHARED_DATA), "names": names})
    with pytest.raises(InputError, match=message):
        check_config(validate_config(config))


def occupation_table(tmp_path, *rows: str):
    table = tmp_path / "occupations.tsv"
    header = "title\tsoc_code\tonet_title\tmatch\treason\n"
    table.write_text(header + "".join(row.replace("|", "\t") + "\n" for row in rows))
    return table


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("nurse|29-1141.00|Registered Nurses|excluded|x", "'nurse' is excluded but has a soc_code"),
        ("nurse||Registered Nurses|title|x", "'nurse' is 'title' but has no soc_code"),
        ("nurse|29-1141.00|Registered Nurses|maybe|x", "match 'maybe' of 'nurse' is not one of"),
    ],
)
def test_an_occupation_row_that_says_one_thing_and_does_another_is_refused(tmp_path, row, message):
    table = occupation_table(
        tmp_path, "pilot|53-2011.00|Airline Pilots, Copilots, and Flight Engineers|title|x", row
    )
    with pytest.raises(InputError, match=rf"^{table}:3: {re.escape(message)}"):
        read_occupations(table)


@needs_data
def test_a_code_copied_from_another_occupation_is_refused_where_onet_is_at_hand(tmp_path):
    table = occupation_table(
        tmp_path,
        "pilot|53-2011.00|Airline Pilots, Copilots, and Flight Engineers|title|x",
        "nurse|53-2011.00|Registered Nurses|title|x",
    )
    config = with_model({"local_data": str(SHARED_DATA), "occupations": {"table": str(table)}})
    with pytest.raises(
        InputError,
        match=r"'nurse' has the soc_code 53-2011.00, which O\*NET db_29_3_text calls 'Airline",
    ):
        check_config(validate_config(config))


@pytest.mark.parametrize("key", ["female male", "female female"])
def test_a_plant_that_gives_one_attribute_twice_is_refused(key):
    respondent = {"effects": {"q2": {key: 1.0}}}
    config = {"models": {"sim": {"backend": "simulated", "model": "sim", "respondent": respondent}}}
    with pytest.raises(InputError, match=rf"respondent.effects.q2.{key}: gives gender twice"):
        check_config(validate_config(config))


@pytest.mark.parametrize("models", [None, [{"sim": {"backend": "simulated"}}], "sim"])
def test_models_of_the_wrong_shape_get_the_schemas_line_not_a_traceback(models, tmp_path):
    own = tmp_path / "mine.yaml"
    own.write_text("models: {sim: {backend: simulated, model: sim}}\n")
    assert models_merged_in(models, [own]) is None
    with pytest.raises(InputError, match=r"invalid value at 'models'"):
        validate_config({"models": models})


@pytest.mark.parametrize(
    ("text", "where", "key"),
    [
        ("answers: {yes: Sure, no: Nope}", "answers", "True"),
        (
            "models: {sim: {backend: simulated, model: sim}}\noccupations: {select: [nurse]}\n"
            "interventions: {instructions: {on: {preamble: Be fair.}}}",
            "interventions.instructions",
            "True",
        ),
        ("names: {list: unqover, 3: x}", "names", "3"),
    ],
)
def test_a_key_yaml_reads_as_no_text_is_refused_saying_why(text, where, key):
    """YAML 1.1 reads an unquoted yes, no, on or off as a truth value: `answers: {yes: ..}`
    was refused as `False, True were unexpected`."""
    config = {"models": {"m": {"backend": "simulated", "model": "m"}}, **yaml.safe_load(text)}
    with pytest.raises(InputError, match=rf"at '{re.escape(where)}': the key {key} is not text"):
        validate_config(config)


@pytest.mark.parametrize("device", ["gpu", "CUDA:0", "cuda:", "cuda:one", " cpu"])
def test_a_device_torch_cannot_name_is_refused_before_any_job(device):
    config = {"models": {"m": {"backend": "transformers", "model": "x/y", "device": device}}}
    with pytest.raises(InputError, match=r"'models.m.device': .* is not a torch device"):
        validate_config(config)
    for fine in ("cpu", "cuda", "cuda:1", "mps"):
        validate_config(
            {"models": {"m": {"backend": "transformers", "model": "x/y", "device": fine}}}
        )


@pytest.mark.parametrize("constraint", ["json_schema", "structured_outputs", "grammar", "tool"])
def test_a_tokenizer_only_logit_bias_reads_is_refused_with_another_constraint(constraint):
    """It would do nothing, and marked answers it would still enter the store's key."""
    model = {"backend": "openai", "model": "g", "constraint": constraint}
    with pytest.raises(
        InputError, match=rf"models.gpt.tokenizer: only constraint logit_bias .* is {constraint}"
    ):
        check_config(
            validate_config({"models": {"gpt": {**model, "tokenizer": "tiktoken:cl100k_base"}}})
        )
    check_config(validate_config({"models": {"gpt": model}}))


@pytest.mark.parametrize("q3", [{"both": 0.5, "neither": 0.5}, {"both": 1.0, "neither": 0.0}])
def test_a_plant_that_leaves_q3_no_person_to_name_is_refused(q3):
    config = {"models": {"sim": {"backend": "simulated", "model": "sim", "respondent": {"q3": q3}}}}
    with pytest.raises(
        InputError, match=r"respondent.q3: both \+ neither is 1, which leaves Q3 no"
    ):
        check_config(validate_config(config))


class RefusingTokenizer:
    """A transformers auto class whose from_pretrained fails as the hub's does offline: the
    cause on a later line."""

    @staticmethod
    def from_pretrained(*args, **kwargs):
        raise OSError(
            "We couldn't connect to 'https://huggingface.co' to load the files.\n"
            "Check your connection or see https://hf.co/docs: cl100k_base is not a folder."
        )


def test_a_tokenizer_failure_is_told_in_full_on_one_line(monkeypatch):
    from hiremeornot.asking.backends import torch_models
    from hiremeornot.asking.backends.openai import constraints

    with pytest.raises(InputError) as refused:
        torch_models.load_tokenizer(RefusingTokenizer, "m", "/nowhere")
    assert "cl100k_base is not a folder." in str(refused.value) and "\n" not in str(refused.value)
    import transformers

    monkeypatch.setattr(transformers, "AutoTokenizer", RefusingTokenizer)
    with pytest.raises(
        InputError,
        match=r"'cl100k_base' cannot be loaded \(an OpenAI model's encoding is written "
        r"tiktoken:NAME\): .*is not a folder\.$",
    ):
        constraints.load_tokenizer("cl100k_base")


@pytest.mark.parametrize("digest", ["abc", "deadbeef", "0" * 63, "g" * 64, "0" * 64 + " "])
def test_a_checksum_that_is_no_sha256_is_refused_before_the_download(digest):
    config = with_model({"sources": {"onet": {"sha256": digest}}})
    with pytest.raises(InputError, match=r"'sources.onet.sha256': .* is not a SHA-256"):
        validate_config(config)
    validate_config(with_model({"sources": {"onet": {"sha256": "0" * 64}}}))


def test_a_race_on_a_list_without_races_says_the_list_declares_none():
    """It said `'Black' is not one of []`."""
    contrast = [{"a": {"race": "Black"}, "b": {"race": "White"}}]
    config = with_model({"names": {"list": "ethical-interventions", "contrast": contrast}})
    with pytest.raises(
        InputError,
        match=r"names.contrast\[0\].a.race: 'Black' is not in the name list, which declares no",
    ):
        check_config(validate_config(config))


@needs_data
def test_a_name_list_read_in_another_format_says_the_format_may_be_wrong():
    """It said the list is not in local_data, whose folder holds it."""
    config = with_model({"local_data": str(SHARED_DATA), **name_source(format="bbq")})
    config["names"] = {"list": "unqover"}
    with pytest.raises(
        InputError, match=r"^sources.names.unqover.format: 'bbq' reads .* lacks: is it"
    ):
        check_config(validate_config(config))
