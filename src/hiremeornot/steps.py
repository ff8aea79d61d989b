"""Run one step of the audit for one model and one shard.

Steps 2 and 3 are sharded by occupation. Step 1 is planned once per model: its questions depend
on the name pair, the subject and the attribute but not on the occupation, so the distinct
questions of the whole plan are split into as many shards (by a hash of the prompt) and each is
asked once; Steps 2 and 3 look their f_A up in all Step-1 shards.
"""

from __future__ import annotations

import hashlib
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
from hiremeornot.tables_io import read_table, read_tables, write_table

STEPS = ("step1", "step2", "step3")
STEP1_COLUMNS = ["subject", "gender", "element_id", "attribute", "attribute_type", "prompt"]


def occupation_shards(instances: pd.DataFrame, shard_size: int) -> list[list[str]]:
    """The occupations of each shard, in the instances' order."""
    return shard_titles(list(dict.fromkeys(instances["occupation"])), shard_size)


def prompt_bucket(prompt: str, buckets: int) -> int:
    """A stable shard number for a prompt."""
    return int.from_bytes(hashlib.sha256(prompt.encode("utf-8")).digest()[:8], "big") % buckets


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


def step1_shard_questions(
    instances: pd.DataFrame, attributes: pd.DataFrame, settings: dict, shard: int, shards: int
) -> pd.DataFrame:
    """The distinct Step-1 questions of the whole plan that fall in this shard."""
    renderer = PromptRenderer(settings["prompts"])
    questions = step1_questions(instances, attributes, renderer, settings["answers"])
    distinct = questions.drop_duplicates("prompt")
    mine = distinct[[prompt_bucket(p, shards) == shard for p in distinct["prompt"]]]
    return mine[[*STEP1_COLUMNS, "choices", "roles"]].reset_index(drop=True)


def step1_by_instance(
    instances: pd.DataFrame, attributes: pd.DataFrame, settings: dict, step1: pd.DataFrame
) -> pd.DataFrame:
    """Every (instance, subject, attribute) with its Step-1 answer, looked up by prompt."""
    renderer = PromptRenderer(settings["prompts"])
    questions = step1_questions(instances, attributes, renderer, settings["answers"])
    answers = step1[["prompt", "choice", "logprob_yes", "logprob_no"]].drop_duplicates("prompt")
    answered = questions.merge(answers, on="prompt", how="left")
    missing = answered["choice"].isna().sum()
    if missing:
        raise ValueError(f"{missing} Step-1 questions of this shard have no answer in Step 1")
    return answered.drop(columns=["choices", "roles"])


def granted_from_step1(
    instances: pd.DataFrame, attributes: pd.DataFrame, settings: dict, step1: pd.DataFrame
) -> dict[tuple[str, str], list[str]]:
    """f_A(s) of each (instance, subject), looked up by prompt in the Step-1 answers."""
    return granted_attributes(step1_by_instance(instances, attributes, settings, step1))


def build_questions(step: str, shard: int, settings: dict, inputs: dict) -> pd.DataFrame:
    """The question table of ``step`` for one shard."""
    instances, attributes = inputs["instances"], inputs["attributes"]
    shards = occupation_shards(instances, settings["model"]["shard_size"])
    if step == "step1":
        return step1_shard_questions(instances, attributes, settings, shard, len(shards))
    mine = instances[instances["occupation"].isin(shards[shard])]
    granted = granted_from_step1(mine, attributes, settings, inputs["step1"])
    renderer = PromptRenderer(settings["prompts"])
    build = step2_questions if step == "step2" else step3_questions
    return build(mine, granted, renderer, settings["answers"])


def run_step(
    step: str,
    model: str,
    settings: dict[str, Any],
    shard: int,
    paths: dict[str, Any],
    output: str | Path,
    store_dir: str | Path,
) -> AskSummary:
    """Ask one shard's questions of ``step`` and write the answers table to ``output``.

    ``paths`` holds ``instances``, ``attributes`` and, for Steps 2 and 3, the list ``step1``.
    """
    inputs = {
        "instances": read_table(paths["instances"]),
        "attributes": read_table(paths["attributes"]),
    }
    if step != "step1":
        inputs["step1"] = read_tables(paths["step1"])
    questions = build_questions(step, shard, settings, inputs)
    requests = [
        Request(prompt, tuple(choices))
        for prompt, choices in zip(questions["prompt"], questions["choices"], strict=True)
    ]
    model_settings = settings["model"]
    store = ResponseStore(Path(store_dir) / f"{model}.sqlite")
    try:
        responses, summary = ask(
            requests,
            store,
            model_identity(model_settings),
            lambda: load_backend(
                model_settings["backend"],
                {**model_settings, "state_dir": str(Path(store_dir) / f"{model}-batches")},
            ),
            label=f"{model} {step} shard {shard}",
        )
    finally:
        store.close()
    write_table(attach_answers(questions, responses), output)
    return summary
