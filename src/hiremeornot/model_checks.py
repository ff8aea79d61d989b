"""One model's settings checked before any job (``checks.check_config`` runs them for every
model): the keys and values its backend reads, where its weights are, its job's shape and its
answers mode."""

from __future__ import annotations

from hiremeornot.asking.backends import FREE_BACKENDS
from hiremeornot.asking.backends.location import model_location
from hiremeornot.asking.backends.providers import check_constraint, check_top_logprobs
from hiremeornot.config import FREE, answers_mode, backend_of
from hiremeornot.design.prompts import check_options_sentence, check_plain_text
from hiremeornot.errors import InputError
from hiremeornot.tables_io import STEPS


def check_model(name: str, settings: dict) -> None:
    """Every check of ``models.<name>`` that needs no other part of the config."""
    check_backend_keys(name, settings)
    try:
        model_location(settings)
    except InputError as exc:
        raise InputError(f"models.{name}: {exc}") from exc
    check_vllm_job(name, settings)
    check_answers_mode(name, settings)
    check_free_classifier(name, settings)
    if settings.get("system_prompt"):
        check_plain_text(settings["system_prompt"], f"models.{name}.system_prompt")
    if settings["backend"] == "extractive_qa":
        check_options_sentence(settings["options_sentence"], f"models.{name}.options_sentence")


def check_backend_keys(name: str, settings: dict) -> None:
    """A model sets only keys of its own backend and values its backend reads (another
    backend's key would do nothing, and one marked answers would still enter the store's key)."""
    for key in settings:
        marked = backend_of(key)
        if marked is not None and settings["backend"] not in marked:
            raise InputError(
                f"models.{name}.{key}: a setting of the {' and '.join(marked)} backend; "
                f"models.{name} uses {settings['backend']}, where it would do nothing: remove it"
            )
    if settings["backend"] == "provider":
        check_constraint(settings["model"], settings["constraint"], f"models.{name}.constraint")
        check_top_logprobs(settings["top_logprobs"], f"models.{name}.top_logprobs")
    if settings.get("tokenizer") and settings["constraint"] != "logit_bias":
        raise InputError(
            f"models.{name}.tokenizer: only constraint logit_bias reads it, and this model's "
            f"is {settings['constraint']}; remove it (it would still enter the store's key)"
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


def check_answers_mode(name: str, settings: dict) -> None:
    """Free questions go only to a backend that asks them."""
    free = any(answers_mode(settings, step) == FREE for step in STEPS)
    if free and settings["backend"] not in FREE_BACKENDS:
        raise InputError(
            f"models.{name}.answers_mode: the {settings['backend']} backend asks only "
            f"constrained questions; free needs one of {', '.join(FREE_BACKENDS)}"
        )


# The backends that cannot read a reply: the simulated respondent answers from the design, and
# extractive QA picks a span of its context.
NOT_READERS = ("simulated", "extractive_qa")


def check_free_classifier(name: str, settings: dict) -> None:
    """A model's ``free_classifier`` is a model that reads replies: every check of a model, a
    backend that reads text, its own questions constrained, and no classifier of its own."""
    classifier = settings.get("free_classifier")
    if classifier is None:
        return
    where = f"{name}.free_classifier"
    if classifier["free_classifier"] is not None:
        raise InputError(f"models.{where}.free_classifier: a classifier has none; remove it")
    check_model(where, classifier)
    if classifier["backend"] in NOT_READERS:
        raise InputError(
            f"models.{where}.backend: the {classifier['backend']} backend does not read a reply; "
            "a classifier needs a language model (transformers, vllm, openai or provider)"
        )
    if any(answers_mode(classifier, step) == FREE for step in STEPS):
        raise InputError(
            f"models.{where}.answers_mode: a classifier answers constrained, from the answer "
            "words; remove answers_mode"
        )
