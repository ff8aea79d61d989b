"""Run one step of the audit for one model and one shard of occupations."""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from hiremeornot.asking import AskSummary, ask
from hiremeornot.backends import Request, Response, load_backend, model_identity
from hiremeornot.occupations import shard_titles
from hiremeornot.prompts import PromptRenderer
from hiremeornot.questions import (
    granted_attributes,
    step1_questions,
    step2_questions,
    step3_questions,
)
from hiremeornot.store import ResponseStore
from hiremeornot.tables_io import read_table, write_table

log = logging.getLogger(__name__)
STEPS = ("step1", "step2", "step3")


def shard_instances(instances: pd.DataFrame, shard: int, shard_size: int) -> pd.DataFrame:
    """The instances whose occupation falls in shard number ``shard``."""
    titles = list(dict.fromkeys(instances["occupation"]))
    return instances[instances["occupation"].isin(shard_titles(titles, shard_size)[shard])]


def attach_answers(questions: pd.DataFrame, responses: Sequence[Response]) -> pd.DataFrame:
    """The question table with the answer, its role (``choice``) and ``logprob_<role>`` columns."""
    table = questions.drop(columns=["choices", "roles"]).copy()
    table["answer"] = [r.answer for r in responses]
    table["choice"] = [
        roles[choices.index(r.answer)]
        for r, choices, roles in zip(
            responses, questions["choices"], questions["roles"], strict=True
        )
    ]
    all_roles = list(dict.fromkeys(role for roles in questions["roles"] for role in roles))
    for role in all_roles:
        table[f"logprob_{role}"] = [
            r.logprobs[roles.index(role)] if role in roles else math.nan
            for r, roles in zip(responses, questions["roles"], strict=True)
        ]
    return table


def build_questions(
    step: str, instances: pd.DataFrame, settings: dict[str, Any], inputs: dict[str, Any]
) -> pd.DataFrame:
    """The question table of ``step`` for these instances."""
    renderer = PromptRenderer(settings["prompts"])
    answers = settings["answers"]
    if step == "step1":
        return step1_questions(instances, inputs["attributes"], renderer, answers)
    granted = granted_attributes(inputs["step1"])
    if step == "step2":
        return step2_questions(instances, granted, renderer, answers)
    return step3_questions(instances, granted, renderer, answers)


def run_step(
    step: str,
    model: str,
    settings: dict[str, Any],
    shard: int,
    instances_path: str | Path,
    output: str | Path,
    store_dir: str | Path,
    attributes_path: str | Path | None = None,
    step1_path: str | Path | None = None,
) -> AskSummary:
    """Ask one shard's questions of ``step`` and write the answers table to ``output``."""
    model_settings = settings["model"]
    instances = shard_instances(read_table(instances_path), shard, model_settings["shard_size"])
    inputs = {
        "attributes": read_table(attributes_path) if attributes_path else None,
        "step1": read_table(step1_path) if step1_path else None,
    }
    questions = build_questions(step, instances, settings, inputs)
    requests = [
        Request(prompt, tuple(choices))
        for prompt, choices in zip(questions["prompt"], questions["choices"], strict=True)
    ]
    store = ResponseStore(Path(store_dir) / f"{model}.sqlite")
    try:
        responses, summary = ask(
            requests,
            store,
            model_identity(model_settings),
            lambda: load_backend(model_settings["backend"], model_settings),
            label=f"{model} {step} shard {shard}",
        )
    finally:
        store.close()
    write_table(attach_answers(questions, responses), output)
    return summary
