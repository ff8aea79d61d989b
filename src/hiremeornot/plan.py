"""What the workflow plans from the config: checks before any job, paths, shards, settings."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hiremeornot.arms import check_interventions
from hiremeornot.asking import backends
from hiremeornot.asking.backends.location import model_location
from hiremeornot.asking.respondent import check_design
from hiremeornot.config import model_keys, read_yaml, validate_config
from hiremeornot.design.contrasts import (
    CONTROL,
    NEUTRAL_ROLES,
    Contrast,
    Sides,
    contrasts,
    control_contrast,
)
from hiremeornot.design.prompts import check_wordings, placeholders, wordings
from hiremeornot.errors import InputError
from hiremeornot.inputs.names import (
    GENDERS,
    answer_read_as,
    check_answer_words,
    name_files,
    read_name_list,
    same_answer,
)
from hiremeornot.inputs.occupations import select_occupations, shard_titles

DOWNLOADS = "results/downloads"


def find_commands_beside_this_interpreter() -> None:
    """Put the folder of the running interpreter first on PATH, so that the shell rules find the
    hiremeornot command when Snakemake runs from a venv that is not activated
    (``.venv/bin/snakemake``); a job's conda env, activated inside the job, still comes first."""
    here = str(Path(sys.executable).parent)
    os.environ["PATH"] = os.pathsep.join([here, os.environ.get("PATH", "")])


def check_config_files(paths: Sequence[str | Path], argv: Sequence[str]) -> list[str]:
    """Read every config file Snakemake merged strictly (a key twice in one file is an error
    naming the file, the key and its lines); the warnings to show for the command line
    ``argv``: Snakemake keeps only the last of several ``--config`` flags."""
    for path in paths:
        read_yaml(path)
    flags = [arg for arg in argv if arg in ("--config", "-C") or arg.startswith("--config=")]
    if len(flags) < 2:
        return []
    return [
        f"--config is given {len(flags)} times: Snakemake keeps only the last one's keys and "
        "drops the others (local_data among them?); give every key after one --config"
    ]


def check_config(config: dict, source: str = "config") -> dict:
    """Validate the config and everything it names that can be checked without a model."""
    validate_config(config, source)
    check_wordings(config["prompts"])
    check_answer_space(config["answers"])
    if config["names"]["list"] not in config["sources"]["names"]:
        raise InputError(
            f"names.list: unknown name list {config['names']['list']!r}; "
            f"known (sources.names): {sorted(config['sources']['names'])}"
        )
    check_orders(config)
    check_control(config)
    check_validity(config["names"])
    if config["local_data"] is not None:
        check_local_data(config)
    for name, settings in config["models"].items():
        try:
            model_location(settings)
        except InputError as exc:
            raise InputError(f"models.{name}: {exc}") from exc
        check_vllm_job(name, settings)
    check_venvs(config)
    check_simulated(config)
    check_interventions(config)
    return config


def check_local_data(config: dict) -> None:
    """The local data folder holds the O*NET release and the name list the config names (a
    release it lacks would otherwise leave the old release's results standing), and the list
    reads as one."""
    if not Path(config["local_data"]).is_dir():
        raise InputError(f"local_data: folder {config['local_data']!r} does not exist")
    if not Path(onet_dir(config)).is_dir():
        raise InputError(
            f"sources.onet.release: {config['sources']['onet']['release']!r} is not in "
            f"local_data ({onet_dir(config)} does not exist)"
        )
    missing = [path for path in name_list_files(config) if not Path(path).is_file()]
    if missing:
        raise InputError(
            f"names.list: {config['names']['list']!r} is not in local_data ({missing[0]} does "
            "not exist)"
        )
    # the names are at hand: read them now (a name file's fault is named before any job), no
    # name may read as an answer word and no control label may be a name
    listed = read_name_list(config["local_data"], name_source(config), config["names"]["list"])
    check_answer_words(listed, config["answers"])
    if config["control"]["neutral"]:
        names = {name.casefold(): name for name in listed["name"]}
        for label in config["control"]["labels"]:
            if label.strip().casefold() in names:
                raise InputError(
                    f"control.labels: {label!r} is the name {names[label.strip().casefold()]!r} "
                    f"of names.list {config['names']['list']!r}: the control would not be neutral"
                )


# Report settings that one job each reads: the calibration's audits and whether they fit the
# pooled model, the estimate's power table.
ONE_JOBS_REPORT_KEYS = ("calibration_audits", "calibration_pooled", "power_differences")


def analysis_settings(config: dict) -> dict[str, Any]:
    """The report settings the analysis jobs read: less those only the calibration or the
    estimate reads (editing them re-runs no statistics)."""
    return {k: v for k, v in config["report"].items() if k not in ONE_JOBS_REPORT_KEYS}


def without_resources(models: dict[str, dict]) -> dict[str, dict]:
    """Each model's settings less those marked ``x-role: resource`` (threads, memory, time):
    a job's params built from these re-run nothing when only resources change."""
    resources = model_keys("resource")
    return {
        name: {key: value for key, value in settings.items() if key not in resources}
        for name, settings in models.items()
    }


def check_simulated(config: dict) -> None:
    """A simulated model plants effects only on occupations, groups and wordings of the design,
    and only on attributes every contrast of names names in its groups."""
    attribute_of = dict.fromkeys(GENDERS, "gender") | dict.fromkeys(
        name_source(config)["races"], "race"
    )
    if config["control"]["neutral"]:
        attribute_of |= dict.fromkeys(config["control"]["labels"], CONTROL)
    named = {
        contrast.label: {attribute for attribute, _ in (*contrast.a, *contrast.b)}
        for contrast in named_contrasts(config).values()
    }
    titles = list(selected_occupations(config)["title"])
    for name, settings in config["models"].items():
        if settings["backend"] == "simulated":
            check_design(
                settings["respondent"],
                titles,
                attribute_of,
                named,
                config["prompts"]["variants"],
                f"models.{name}.respondent",
            )


def check_answer_space(answers: dict[str, str]) -> None:
    """The two answers that one question offers side by side must read differently."""
    for first, second in (("yes", "no"), ("both", "neither")):
        if same_answer(answers[first], answers[second]):
            raise InputError(
                f"answers.{first} and answers.{second} read the same ({answers[first]!r}, "
                f"{answers[second]!r}): a question would offer one answer twice"
            )


def check_vllm_job(name: str, settings: dict) -> None:
    """A vllm model runs one job per step, with the GPUs its parallelism needs."""
    if settings["backend"] != "vllm":
        return
    for key, unsharded in (("shard_size", 0), ("step1_shards", 1)):
        if settings[key] != unsharded:
            raise InputError(
                f"models.{name}.{key}: a vllm model loads its weights once per step and is "
                f"never sharded; set {key}: {unsharded}"
            )
    needed = settings["tensor_parallel_size"] * settings["pipeline_parallel_size"]
    if settings["distributed_executor_backend"] != "ray" and settings["gpus"] < needed:
        raise InputError(
            f"models.{name}.gpus: {settings['gpus']} GPUs, but tensor_parallel_size x "
            f"pipeline_parallel_size needs {needed}; set gpus: {needed}"
        )


# The conda environment (envs/NAME.yaml) of each backend's model jobs.
def command(config: dict, model: str) -> str:
    """The hiremeornot that runs a model's jobs: its ``venv``'s, else the one on PATH."""
    venv = config["models"][model]["venv"]
    return "hiremeornot" if venv is None else shlex.quote(f"{venv}/bin/hiremeornot")


def check_venvs(config: dict) -> None:
    """Every model's ``venv`` holds a hiremeornot to run its jobs."""
    for name, settings in config["models"].items():
        venv = settings["venv"]
        if venv is not None and not Path(venv, "bin", "hiremeornot").is_file():
            made_by_make = settings["backend"] == "vllm" and Path(venv) == Path(".venv-vllm")
            setup = " (make setup-vllm creates it)" if made_by_make else ""
            raise InputError(f"models.{name}.venv: no {venv}/bin/hiremeornot{setup}")


def conda_env(config: dict, model: str) -> str:
    """The environment file of a model's jobs, relative to workflow/rules/."""
    return f"../../envs/{backends.environment(config['models'][model]['backend'])}.yaml"


def data_root(config: dict) -> str:
    return config["local_data"] if config["local_data"] is not None else DOWNLOADS


def onet_dir(config: dict) -> str:
    return f"{data_root(config)}/onet/{config['sources']['onet']['release']}"


def name_source(config: dict) -> dict:
    """The settings of the name list in use (sources.names.<names.list>)."""
    return config["sources"]["names"][config["names"]["list"]]


def name_reading(config: dict) -> dict:
    """How the jobs read the name list in use: its settings less the URL (only the download
    reads it; the files are the jobs' inputs)."""
    return {k: v for k, v in name_source(config).items() if k != "url"}


def name_list_files(config: dict) -> list[str]:
    """The files of the name list in use, under the data root."""
    return [f"{data_root(config)}/{path}" for path in name_files(name_source(config))]


def root_above(path: str, relative: str) -> str:
    """The folder that holds ``relative`` at ``path``: root_above("d/a/b", "a/b") is "d"."""
    return str(Path(path).parents[len(Path(relative).parts) - 1])


def run_contrasts(config: dict) -> dict[str, Contrast]:
    """The contrasts of the run by the prefix of their results: "" (results/ itself) for the
    gender contrast of a gender-only list, the paper's audit; ``contrasts/<id>/`` otherwise;
    and ``control/`` for the neutral control where it is run."""
    found = contrasts(config["names"]["contrast"], name_source(config)["races"])
    prefixes: dict[str, Contrast] = {}
    if len(found) == 1 and not found[0].held and found[0].sides == Sides():
        prefixes[""] = found[0]
    else:
        for contrast in found:
            if prefixes.setdefault(f"contrasts/{contrast.id}/", contrast) is not contrast:
                raise InputError(f"names.contrast: {contrast.label} is listed twice")
    if config["control"]["neutral"]:
        prefixes["control/"] = control_contrast(config["control"]["labels"])
    return prefixes


def named_contrasts(config: dict) -> dict[str, Contrast]:
    """The run's contrasts of names, without the neutral control."""
    return {p: c for p, c in run_contrasts(config).items() if not c.is_control}


# How names.orders may say which side is listed first.
ORDER_ALIASES = {"a_first": 0, "b_first": 1, "female_first": 0, "male_first": 1}


def check_orders(config: dict) -> None:
    """female_first and male_first name the orders of the gender contrast only, and no order
    is listed twice (a_first and female_first are one order)."""
    gendered = [o for o in config["names"]["orders"] if o in ("female_first", "male_first")]
    for contrast in run_contrasts(config).values():
        listing_orders(config, contrast.sides)
    for contrast in named_contrasts(config).values():
        if gendered and contrast.sides.attribute != "gender":
            raise InputError(
                f"names.orders: {gendered[0]} names an order of the gender contrast; "
                f"{contrast.label} needs a_first / b_first"
            )


def check_validity(names: dict) -> None:
    """The validity questions name the name and nothing else; their answers differ."""
    for key in ("gender_question", "race_question"):
        try:
            used = placeholders(names["validity"][key])
        except ValueError as exc:
            raise InputError(f"names.validity.{key}: malformed template: {exc}") from None
        if used != {"name"}:
            raise InputError(f"names.validity.{key}: the template must use {{name}} and no other")
    if same_answer(names["validity"]["female"], names["validity"]["male"]):
        raise InputError("names.validity.female and .male read the same")
    if names["drop_misperceived"] and not names["validate"]:
        raise InputError("names.drop_misperceived needs names.validate: true")


def check_control(config: dict) -> None:
    """The control's labels must read as people, not as answers or as the groups the names
    stand for, and differ from the names' sides' labels (a role may not mean two things)."""
    labels, answers = config["control"]["labels"], config["answers"]
    groups = {value.casefold(): value for value in (*GENDERS, *name_source(config)["races"])}
    for label in labels:
        key = answer_read_as(label, answers)
        if key is not None:
            raise InputError(f"control.labels: {label!r} reads as answers.{key} ({answers[key]!r})")
        if label.strip().casefold() in groups:
            raise InputError(
                f"control.labels: {label!r} is the group {groups[label.strip().casefold()]!r} "
                "of the name list: the control's differences would read as that group's"
            )
        if "|" in label:
            raise InputError(f"control.labels: {label!r} contains '|'")
    sides = control_contrast(labels).sides
    if sides.a == sides.b or set(sides.labels) & set(NEUTRAL_ROLES):
        raise InputError(f"control.labels: {labels} do not make two distinct roles")


def listing_orders(config: dict, sides: Sides) -> list[str]:
    """names.orders as the orders of ``sides`` (a_first -> female_first for gender)."""
    chosen = {ORDER_ALIASES[order] for order in config["names"]["orders"]}
    if len(chosen) < len(config["names"]["orders"]):
        raise InputError(f"names.orders: {config['names']['orders']} lists one order twice")
    return [order for index, order in enumerate(sides.orders) if index in chosen]


def selected_occupations(config: dict):
    occ = config["occupations"]
    return select_occupations(occ["table"], occ["select"])


def shard_count(config: dict, model: str) -> int:
    titles = list(selected_occupations(config)["title"])
    return len(shard_titles(titles, config["models"][model]["shard_size"]))


# The templates and answer words each step uses: editing one re-runs only the steps listed.
# Steps 2 and 3 read the Step-1 answers by key (granted.parquet), not by re-rendered prompts.
_STATEMENTS = ["attribute_statement", "no_attribute_statement"]
STEP_PROMPTS = {
    "step1": ["context", "attribute_question"],
    "step2": ["context", *_STATEMENTS, "q1"],
    "step3": ["context", *_STATEMENTS, "q2", "q3"],
}
STEP_ANSWERS = {
    "step1": ["yes", "no"],
    "step2": ["yes", "no"],
    "step3": ["both", "neither"],
}
# How a step's work is split: the other step kind's split is no concern of its jobs.
OTHER_SPLIT = {"step1": "shard_size", "step2": "step1_shards", "step3": "step1_shards"}


# Model settings that only size the job (x-role: resource in the schema): changing them re-runs
# nothing.
JOB_RESOURCE_KEYS = model_keys("resource")


def model_job_settings(config: dict, model: str, step: str) -> dict[str, Any]:
    """A model's settings as its ``step`` jobs depend on them: less those that only size the
    job, and the other step kind's split."""
    settings = config["models"][model]
    return {
        k: v for k, v in settings.items() if k not in JOB_RESOURCE_KEYS and k != OTHER_SPLIT[step]
    }


def pairing_settings(config: dict) -> dict[str, Any]:
    """The names settings the pairs depend on (not the validity questions: a misread name
    changes the pairs through the names jobs' tables; not names.contrast: a dataset job gets
    its own contrast, so adding a contrast re-runs no other's)."""
    names = config["names"]
    return {key: names[key] for key in ("list", "pairs", "seed", "drop_misperceived")}


def validity_settings(config: dict, model: str) -> dict[str, Any]:
    """What a model's names job depends on beside the list's table: the model's settings, the
    questions, the races the list declares."""
    settings = model_job_settings(config, model, "step1")
    return {
        "model": {k: v for k, v in settings.items() if k != "step1_shards"},
        "validity": config["names"]["validity"],
        "races": name_source(config)["races"],
    }


def step_settings(config: dict, model: str, step: str) -> dict[str, Any]:
    """Exactly what a ``step`` job of ``model`` depends on."""
    return {
        "model": model_job_settings(config, model, step),
        # every wording defined, not only those run: dropping one from prompts.variants changes
        # no model job's settings (the wordings a job asks come from its outputs)
        "prompts": {
            wording: {key: texts[key] for key in STEP_PROMPTS[step]}
            for wording, texts in wordings(config["prompts"]).items()
        },
        "answers": {key: config["answers"][key] for key in STEP_ANSWERS[step]},
    }


def simulated_models(models: dict) -> list[str]:
    """The models (of the config's ``models``) answered by the simulated backend."""
    return [m for m, settings in models.items() if settings["backend"] == "simulated"]


def simulation_settings(config: dict, model: str) -> dict[str, Any]:
    """What a simulated model's truth and calibration depend on: its respondent and the
    wordings run."""
    if model not in simulated_models(config["models"]):
        raise InputError(f"models.{model}: the truth and the calibration need backend simulated")
    settings = config["models"][model]
    arm = {"intervention": settings["intervention"]["id"]} if "intervention" in settings else {}
    return {
        "respondent": settings["respondent"],
        "wordings": config["prompts"]["variants"],
        **arm,
    }
