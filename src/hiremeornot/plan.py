"""What the workflow plans from the config: paths, shards, settings."""

from __future__ import annotations

import functools
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hiremeornot.asking import backends
from hiremeornot.config import CONSTRAINED, answers_mode, model_keys
from hiremeornot.design.contrasts import Contrast, Sides, contrasts, control_contrast
from hiremeornot.design.prompts import wordings
from hiremeornot.errors import InputError
from hiremeornot.inputs.names import name_files
from hiremeornot.inputs.occupations import select_occupations, shard_titles
from hiremeornot.inputs.workforce import share_map

if TYPE_CHECKING:
    import pandas as pd

DOWNLOADS = "results/downloads"
# The default share table, under the data root (FiveThirtyEight's layout).
WORKFORCE_FILE = "fivethirtyeight/male-flight-attendants/male-flight-attendants.tsv"


def find_commands_beside_this_interpreter() -> None:
    """Put the folder of the running interpreter first on PATH, so that the shell rules find the
    hiremeornot command when Snakemake runs from a venv that is not activated
    (``.venv/bin/snakemake``); a job's conda env, activated inside the job, still comes first."""
    here = str(Path(sys.executable).parent)
    os.environ["PATH"] = os.pathsep.join([here, os.environ.get("PATH", "")])


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


# The conda environment (envs/NAME.yaml) of each backend's model jobs.
def command(config: dict, model: str) -> str:
    """The hiremeornot that runs a model's jobs: its ``venv``'s, else the one on PATH."""
    venv = config["models"][model]["venv"]
    return "hiremeornot" if venv is None else shlex.quote(f"{venv}/bin/hiremeornot")


def conda_env(config: dict, model: str) -> str:
    """The environment file of a model's jobs, relative to workflow/rules/."""
    return f"../../envs/{backends.environment(config['models'][model]['backend'])}.yaml"


def data_root(config: dict) -> str:
    return config["local_data"] if config["local_data"] is not None else DOWNLOADS


def onet_dir(config: dict) -> str:
    return f"{data_root(config)}/onet/{config['sources']['onet']['release']}"


def workforce_shares(config: dict) -> str:
    """The share table of workforce.shares, or the default one under the data root."""
    return config["workforce"]["shares"] or f"{data_root(config)}/{WORKFORCE_FILE}"


def aligned(config: dict, contrast: Contrast) -> bool:
    """Whether the contrast's results are set against who holds each job: a crosswalk is
    given and the contrast sets women against men."""
    return config["workforce"]["crosswalk"] is not None and contrast.sides.is_gender


def occupation_share_map(config: dict) -> dict[str, float]:
    """Each audited occupation's share of women, where the crosswalk matches it (the share
    table must be at hand)."""
    workforce = config["workforce"]
    if workforce["crosswalk"] is None:
        raise InputError("workforce.crosswalk: null, so no occupation has a share of women")
    path = workforce_shares(config)
    if not Path(path).is_file():
        raise InputError(
            f"workforce: the share table {path} is not at hand (a download comes later); give "
            "local_data or workforce.shares"
        )
    titles = selected_occupations(config)["title"].tolist()
    return share_map(workforce["crosswalk"], path, workforce["percent_of"], titles)


def with_planted_shares(config: dict) -> dict[str, dict]:
    """The config's models, each simulated one that plants an alignment without shares given
    them from the workforce block (respondent.shares)."""
    models = {}
    for name, settings in config["models"].items():
        respondent = settings.get("respondent", {})
        if respondent.get("alignment") and not respondent.get("shares"):
            try:
                shares = occupation_share_map(config)
            except InputError as error:
                raise InputError(f"models.{name}.respondent.alignment: {error}") from None
            settings = {**settings, "respondent": {**respondent, "shares": shares}}
        models[name] = settings
    return models


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


def listing_orders(config: dict, sides: Sides) -> list[str]:
    """names.orders as the orders of ``sides`` (a_first -> female_first for gender)."""
    chosen = {ORDER_ALIASES[order] for order in config["names"]["orders"]}
    if len(chosen) < len(config["names"]["orders"]):
        raise InputError(f"names.orders: {config['names']['orders']} lists one order twice")
    return [order for index, order in enumerate(sides.orders) if index in chosen]


def selected_occupations(config: dict) -> pd.DataFrame:
    """The audited occupations (select_occupations), read once per version of the table: a
    dry run asks for them some thirty times."""
    occ = config["occupations"]
    table = Path(occ["table"])
    status = table.stat() if table.is_file() else None
    version = (status.st_mtime_ns, status.st_size) if status else None
    select = occ["select"] if isinstance(occ["select"], str) else tuple(occ["select"])
    return _selected_occupations(str(table), version, select).copy()


@functools.lru_cache(maxsize=8)
def _selected_occupations(table: str, version: object, select: str | tuple[str, ...]):
    return select_occupations(table, select if isinstance(select, str) else list(select))


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


# Model settings no model job reads: those that only size the job (x-role: resource in the
# schema) and those only the reports print (x-role: report).
NOT_READ_BY_MODEL_JOBS = model_keys("resource") | model_keys("report")


def model_job_settings(config: dict, model: str, step: str) -> dict[str, Any]:
    """A model's settings as its ``step`` jobs depend on them: less those no model job reads
    (NOT_READ_BY_MODEL_JOBS), the other step kind's split, and the classifier of free replies
    where ``step`` is constrained."""
    settings = config["models"][model]
    unread = {OTHER_SPLIT[step]}
    if answers_mode(settings, step) == CONSTRAINED:
        unread.add("free_classifier")
    return {k: v for k, v in settings.items() if k not in NOT_READ_BY_MODEL_JOBS | unread}


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
        "model": {
            k: v for k, v in settings.items() if k not in ("step1_shards", "free_classifier")
        },
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
    """What a simulated model's truth and calibration depend on: its respondent, the
    wordings run and how the share table of the alignment reads."""
    if model not in simulated_models(config["models"]):
        raise InputError(f"models.{model}: the truth and the calibration need backend simulated")
    settings = config["models"][model]
    arm = {"intervention": settings["intervention"]["id"]} if "intervention" in settings else {}
    return {
        "respondent": settings["respondent"],
        "wordings": config["prompts"]["variants"],
        "percent_of": config["workforce"]["percent_of"],
        **arm,
    }
