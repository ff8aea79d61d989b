"""What the workflow plans from the config: checks before any job, paths, shards, settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hiremeornot.backends.location import model_location
from hiremeornot.config import validate_config
from hiremeornot.errors import InputError
from hiremeornot.occupations import select_occupations, shard_titles
from hiremeornot.prompts import check_templates

DOWNLOADS = "results/downloads"


def check_config(config: dict, source: str = "config") -> dict:
    """Validate the config and everything it names that can be checked without a model."""
    validate_config(config, source)
    check_templates(config["prompts"])
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


def check_vllm_job(name: str, settings: dict) -> None:
    """A vllm model runs one job per step, with the GPUs its parallelism needs."""
    if settings["backend"] != "vllm":
        return
    if settings["shard_size"]:
        raise InputError(
            f"models.{name}.shard_size: a vllm model loads its weights once per step and is "
            "never sharded; set shard_size: 0"
        )
    needed = settings.get("tensor_parallel_size", 1) * settings.get("pipeline_parallel_size", 1)
    if settings.get("distributed_executor_backend") != "ray" and settings["gpus"] < needed:
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
# Steps 2 and 3 render the Step-1 questions again to look their answers up.
_STEP1_PROMPTS = ["context", "attribute_question"]
_STATEMENTS = ["attribute_statement", "no_attribute_statement"]
STEP_PROMPTS = {
    "step1": _STEP1_PROMPTS,
    "step2": [*_STEP1_PROMPTS, *_STATEMENTS, "q1"],
    "step3": [*_STEP1_PROMPTS, *_STATEMENTS, "q2", "q3"],
}
STEP_ANSWERS = {
    "step1": ["yes", "no"],
    "step2": ["yes", "no"],
    "step3": ["yes", "no", "both", "neither"],
}


# Model settings that only size the job: changing them re-runs nothing.
JOB_RESOURCE_KEYS = {"threads", "mem_mb", "runtime", "gpus", "gpu_model"}


def step_settings(config: dict, model: str, step: str) -> dict[str, Any]:
    """Exactly what a ``step`` job of ``model`` depends on."""
    settings = config["models"][model]
    return {
        "model": {k: v for k, v in settings.items() if k not in JOB_RESOURCE_KEYS},
        "prompts": {key: config["prompts"][key] for key in STEP_PROMPTS[step]},
        "answers": {key: config["answers"][key] for key in STEP_ANSWERS[step]},
    }
