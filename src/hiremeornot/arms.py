"""The intervention arms of a config: the instructions it runs beside the baseline, checked,
and each model's arm under each of them (``<model>+<id>``), as the workflow and the commands
that look a model up by name read them."""

from __future__ import annotations

import copy
from pathlib import Path

from hiremeornot.config import load_config
from hiremeornot.design.prompts import check_plain_text
from hiremeornot.errors import InputError
from hiremeornot.sameness import refuse_twins

# The baseline arm of the interventions: the models as the config gives them, no instruction.
BASELINE = "none"
ARM = "+"  # <model>+<id>: an arm's model (model names cannot hold it)
INTERVENTION_TEXTS = ("system", "preamble")


def arm_model(model: str, intervention: str) -> str:
    """The name of ``model``'s arm under ``intervention``, as results/ and the store know it."""
    return f"{model}{ARM}{intervention}"


def intervention_arms(config: dict) -> list[str]:
    """The interventions run beside the baseline, in the order of interventions.run."""
    return [arm for arm in config["interventions"]["run"] if arm != BASELINE]


def check_interventions(config: dict) -> None:
    """interventions.run names each defined instruction once; every instruction has a text,
    none blank; a system text only for models with a system message; no model sets its own
    intervention; a simulated respondent plants effects only for defined instructions."""
    section = config["interventions"]
    defined = section["instructions"]
    refuse_twins((f"interventions.run.{index}", arm) for index, arm in enumerate(section["run"]))
    for arm in section["run"]:
        if arm != BASELINE and arm not in defined:
            raise InputError(
                f"interventions.run: unknown intervention {arm!r}; known: "
                f"{[BASELINE, *defined]} (add it under interventions.instructions, e.g. from "
                "config/interventions.yaml)"
            )
    for arm, texts in defined.items():
        where = f"interventions.instructions.{arm}"
        if not any(key in texts for key in INTERVENTION_TEXTS):
            raise InputError(f"{where}: no text: give a system text, a preamble or both")
        for key in INTERVENTION_TEXTS:
            if key in texts and not texts[key].strip():
                raise InputError(f"{where}.{key}: empty text")
            if key in texts:
                check_plain_text(texts[key], f"{where}.{key}")
    system_run = [arm for arm in intervention_arms(config) if "system" in defined[arm]]
    for name, settings in config["models"].items():
        if "intervention" in settings:
            raise InputError(
                f"models.{name}.intervention: set by the workflow for an intervention arm; "
                "list the instruction under interventions.run instead"
            )
        if system_run and settings["backend"] == "extractive_qa":
            raise InputError(
                f"interventions.instructions.{system_run[0]}.system: models.{name} (backend "
                "extractive_qa) has no system message; give the instruction as a preamble"
            )
        if settings["backend"] == "simulated":
            for arm in settings["respondent"]["interventions"]:
                if arm not in defined:
                    raise InputError(
                        f"models.{name}.respondent.interventions.{arm}: not an intervention "
                        f"of interventions.instructions (known: {list(defined)})"
                    )


def with_arms(config: dict) -> dict[str, dict]:
    """The models the workflow runs: the config's, then each one's arm under every intervention
    of interventions.run (``<model>+<id>``), whose settings carry the instruction
    (``intervention``) and its system text joined to the model's system message."""
    models = dict(config["models"])
    instructions = config["interventions"]["instructions"]
    for arm in intervention_arms(config):
        texts = instructions[arm]
        for name, settings in config["models"].items():
            armed = copy.deepcopy(settings)
            armed["intervention"] = {
                "id": arm,
                **{key: texts[key] for key in INTERVENTION_TEXTS if key in texts},
            }
            if "system" in texts and "system_prompt" in settings:
                head = settings["system_prompt"]
                armed["system_prompt"] = "\n".join(filter(None, [head, texts["system"]]))
            models[arm_model(name, arm)] = armed
    return models


def load_with_arms(path: str | Path) -> dict:
    """A config file, validated, with its intervention arms among its models (with_arms): what
    the commands that look a model up by name outside the workflow read."""
    config = load_config(path)
    check_interventions(config)
    config["models"] = with_arms(config)
    return config
