"""What the workflow plans from the config: checks before any job, paths, shards, settings."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from hiremeornot.backends.location import model_location
from hiremeornot.config import model_keys, validate_config
from hiremeornot.errors import InputError
from hiremeornot.names import same_answer
from hiremeornot.occupations import select_occupations, shard_titles
from hiremeornot.prompts import check_wordings, wordings

DOWNLOADS = "results/downloads"


def find_commands_beside_this_interpreter() -> None:
    """Put the folder of the running interpreter first on PATH, so that the shell rules find the
    hiremeornot command when Snakemake runs from a venv that is not activated
    (``.venv/bin/snakemake``); a job's conda env, activated inside the job, still comes first."""
    here = str(Path(sys.executable).parent)
    os.environ["PATH"] = os.pathsep.join([here, os.environ.get("PATH", "")])


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
    if config["local_data"] is not None and not Path(config["local_data"]).is_dir():
        raise InputError(f"local_data: folder {config['local_data']!r} does not exist")
    for name, settings in config["models"].items():
        try:
            model_location(settings)
        except InputError as exc:
            raise InputError(f"models.{name}: {exc}") from exc
        check_vllm_job(name, settings)
    selected_occupations(config)
    return config


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
CONDA_ENVS = {
    "transformers": "transformers",
    "extractive_qa": "transformers",
    "openai": "openai",
    "vllm": "vllm",
}


def conda_env(config: dict, model: str) -> str:
    """The environment file of a model's jobs, relative to workflow/rules/."""
    return f"../../envs/{CONDA_ENVS[config['models'][model]['backend']]}.yaml"


def data_root(config: dict) -> str:
    return config["local_data"] if config["local_data"] is not None else DOWNLOADS


def onet_dir(config: dict) -> str:
    return f"{data_root(config)}/onet/{config['sources']['onet']['release']}"


def names_dir(config: dict) -> str:
    return f"{data_root(config)}/{config['names']['list']}/word_lists/nouns/subjects"


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


def step_settings(config: dict, model: str, step: str) -> dict[str, Any]:
    """Exactly what a ``step`` job of ``model`` depends on."""
    settings = config["models"][model]
    return {
        "model": {
            k: v
            for k, v in settings.items()
            if k not in JOB_RESOURCE_KEYS and k != OTHER_SPLIT[step]
        },
        # every wording defined, not only those run: dropping one from prompts.variants changes
        # no model job's settings (the wordings a job asks come from its outputs)
        "prompts": {
            wording: {key: texts[key] for key in STEP_PROMPTS[step]}
            for wording, texts in wordings(config["prompts"]).items()
        },
        "answers": {key: config["answers"][key] for key in STEP_ANSWERS[step]},
    }
