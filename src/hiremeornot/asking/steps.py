"""Run one step of the audit for one model and one shard.

Steps 2 and 3 are sharded by occupation. Step 1 is planned once per model: its questions depend
on who is listed first and second, the subject and the attribute but not on the occupation, so
the distinct questions of the whole plan are split into the model's ``step1_shards`` (by a hash
of the prompt) and each is asked once. Their answers are joined back to every instance by that
key (questions.STEP1_KEY): by each Step-2/3 job for its own instances, to find f_A, and by
``write_granted`` once per model for the attribute gaps.

One job asks every wording it is given (the model loads once) and writes one table per wording.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from hiremeornot.asking.ask import AskSummary, ask
from hiremeornot.asking.backends import Request, Response, load_backend, model_identity
from hiremeornot.asking.classify import read_by_classifier
from hiremeornot.asking.free_replies import read_reply
from hiremeornot.asking.store import ResponseStore, batch_journal_dir, request_key
from hiremeornot.config import CONSTRAINED, answers_mode
from hiremeornot.design.contrasts import Contrast, Sides
from hiremeornot.design.prompts import PromptRenderer
from hiremeornot.design.questions import (
    ABOUT,
    granted_attributes,
    join_step1,
    step1_questions,
    step1_rows,
    step2_questions,
    step3_questions,
)
from hiremeornot.errors import InputError
from hiremeornot.inputs.occupations import shard_titles
from hiremeornot.tables_io import read_table, read_tables, write_table


def occupation_shards(instances: pd.DataFrame, shard_size: int) -> list[list[str]]:
    """The occupations of each shard, in the instances' order."""
    return shard_titles(list(dict.fromkeys(instances["occupation"])), shard_size)


def prompt_bucket(prompt: str, buckets: int) -> int:
    """A stable shard number for a prompt."""
    return int.from_bytes(hashlib.sha256(prompt.encode("utf-8")).digest()[:8], "big") % buckets


def attach_answers(
    questions: pd.DataFrame, responses: Sequence[Response], free: int | None = None
) -> pd.DataFrame:
    """The question table (with its ``choices`` and ``roles``, from which ``store rebuild``
    recovers each request; less ``about``) and the answer, its role (``choice``),
    ``logprob_<role>`` columns and the probability of the answer space (``answer_mass``: NaN
    where the backend does not see it).

    A free reply is read again here (free_replies.read_reply, so a mended parser needs no
    question asked again): the table of questions asked free (``free``: their token budget)
    gains ``free_tokens``, the ``reply`` and the ``rule`` that read it, and a non-answer's
    ``answer`` and ``choice`` are its kind (refused, other, unparsed)."""
    table = questions.drop(columns=ABOUT, errors="ignore")
    readings = [
        None if r.reply is None else read_reply(r.reply, choices, roles)
        for r, choices, roles in zip(
            responses, questions["choices"], questions["roles"], strict=True
        )
    ]
    table["answer"] = [
        r.answer if reading is None else reading.answer
        for r, reading in zip(responses, readings, strict=True)
    ]
    table["choice"] = [
        roles[choices.index(answer)] if answer in choices else answer
        for answer, choices, roles in zip(
            table["answer"], questions["choices"], questions["roles"], strict=True
        )
    ]
    all_roles = list(dict.fromkeys(role for roles in questions["roles"] for role in roles))
    for role in all_roles:
        table[f"logprob_{role}"] = [
            r.logprobs[roles.index(role)] if role in roles else math.nan
            for r, roles in zip(responses, questions["roles"], strict=True)
        ]
    table["answer_mass"] = [r.answer_mass for r in responses]
    if free is not None:
        table["free_tokens"] = free
        table["reply"] = [r.reply for r in responses]
        table["rule"] = [None if reading is None else reading.rule for reading in readings]
    return table


def renderers(settings: dict, wordings: Sequence[str]) -> dict[str, PromptRenderer]:
    """A prompt renderer per wording id, from the step settings' templates of every wording
    (with the preamble of an intervention arm's model)."""
    unknown = [wording for wording in wordings if wording not in settings["prompts"]]
    if unknown:
        raise InputError(f"unknown wording(s) {unknown}; known: {list(settings['prompts'])}")
    preamble = settings["model"].get("intervention", {}).get("preamble", "")
    return {wording: PromptRenderer(settings["prompts"][wording], preamble) for wording in wordings}


def step1_shard_questions(
    instances: pd.DataFrame,
    attributes: pd.DataFrame,
    settings: dict,
    shard: int,
    wordings: Sequence[str],
    sides: Sides,
) -> pd.DataFrame:
    """The distinct Step-1 questions of the whole plan, in each wording, that fall in this
    shard (of the model's ``step1_shards``)."""
    rows = step1_rows(instances, attributes, sides)
    questions = step1_questions(rows, renderers(settings, wordings), settings["answers"], sides)
    buckets = settings["model"]["step1_shards"]
    mine = questions[[prompt_bucket(p, buckets) == shard for p in questions["prompt"]]]
    return mine.reset_index(drop=True)


def build_questions(
    step: str,
    shard: int,
    settings: dict,
    inputs: dict,
    wordings: Sequence[str],
    sides: Sides,
) -> pd.DataFrame:
    """The question table of ``step`` for one shard, in each of ``wordings``.

    ``inputs`` holds ``instances`` and ``attributes`` and, for Steps 2 and 3, ``step1`` (the
    model's Step-1 answers in every one of ``wordings``).
    """
    instances, attributes = inputs["instances"], inputs["attributes"]
    if step == "step1":
        return step1_shard_questions(instances, attributes, settings, shard, wordings, sides)
    shards = occupation_shards(instances, settings["model"]["shard_size"])
    mine = instances[instances["occupation"].isin(shards[shard])]
    granted = granted_attributes(join_step1(step1_rows(mine, attributes, sides), inputs["step1"]))
    build = step2_questions if step == "step2" else step3_questions
    return build(mine, granted, renderers(settings, wordings), settings["answers"], sides)


def write_granted(
    *,
    instances: str | Path,
    attributes: str | Path,
    step1: Sequence[str | Path],
    out: str | Path,
    sides: Sides,
) -> None:
    """The model's Step-1 answer to every (instance, subject, attribute), joined by key, for
    the attribute gaps."""
    rows = step1_rows(read_table(instances), read_table(attributes), sides)
    write_table(join_step1(rows, read_tables(step1)), out)


def free_tokens(model_settings: Mapping[str, Any], step: str) -> int | None:
    """The reply's token budget where ``step`` is asked free; None where it is constrained."""
    if answers_mode(model_settings, step) == CONSTRAINED:
        return None
    return model_settings["free_max_tokens"]


def requests_of(
    questions: pd.DataFrame, contrast: Contrast, free: int | None = None
) -> list[Request]:
    """The requests of a question table, each ``about`` naming the groups of its people (the
    contrast's groups of their sides) and the roles of its choices; ``free``: their token
    budget where they are asked free."""
    groups = contrast.groups

    def grouped(person: Mapping[str, Any]) -> dict[str, Any]:
        return {**person, "group": groups[person["side"]]}

    def about(asked: Mapping[str, Any]) -> dict[str, Any]:
        if "people" in asked:
            return {**asked, "people": [grouped(person) for person in asked["people"]]}
        return grouped(asked)

    return [
        Request(prompt, tuple(choices), {**about(asked), "roles": tuple(roles)}, free)
        for prompt, choices, roles, asked in zip(
            questions["prompt"],
            questions["choices"],
            questions["roles"],
            questions[ABOUT],
            strict=True,
        )
    ]


def constrained_twins(
    requests: Sequence[Request], store: ResponseStore, model_settings: Mapping[str, Any]
) -> list[str | None]:
    """Per free request, the role its constrained twin (the same question, asked with the
    constraint) was answered with, where the model's store holds it (None where it does not):
    the two modes compared without asking anything."""
    identity = model_identity(model_settings)
    keys = [request_key(identity, replace(r, free_tokens=None)) for r in requests]
    known = store.get(keys)
    return [
        r.about["roles"][r.choices.index(known[key].answer)] if key in known else None
        for r, key in zip(requests, keys, strict=True)
    ]


def run_step(
    step: str,
    model: str,
    settings: dict[str, Any],
    shard: int,
    paths: dict[str, Any],
    outputs: Mapping[str, str | Path],
    store_dir: str | Path,
    contrast: Contrast,
    progress: str | None = None,
) -> tuple[AskSummary, AskSummary | None]:
    """Ask one shard's questions of ``step`` in each wording of ``outputs`` (wording id -> path)
    and write each wording's answers table to its path (``progress``: a file the run's
    terminal line reads, progress.ProgressFile). Returns what the model was asked, and what
    its ``free_classifier`` was (None where it read no reply).

    ``paths`` holds ``instances`` and ``attributes`` and, for Steps 2 and 3, ``step1``: the
    paths of the model's Step-1 tables in those wordings.
    """
    inputs = {
        key: read_tables(path) if key == "step1" else read_table(path)
        for key, path in paths.items()
    }
    questions = build_questions(step, shard, settings, inputs, list(outputs), contrast.sides)
    model_settings = settings["model"]
    free = free_tokens(model_settings, step)
    requests = requests_of(questions, contrast, free)
    store = ResponseStore.open(store_dir, model, label=f"{step}-shard{shard}")
    try:
        responses, summary = ask(
            requests,
            store,
            model_identity(model_settings),
            lambda: load_backend(
                model_settings["backend"],
                model_settings,
                state_dir=batch_journal_dir(store_dir, model),
            ),
            label=f"{model} {step} shard {shard}",
            progress=progress,
        )
        twins = None if free is None else constrained_twins(requests, store, model_settings)
    finally:
        store.close()
    answered = attach_answers(questions, responses, free)
    if twins is not None:
        answered["constrained"] = twins
    classifier, read = model_settings.get("free_classifier"), None
    if free is not None and classifier is not None:
        answered, read = read_by_classifier(
            answered,
            model,
            classifier,
            store_dir,
            segment=f"{step}-shard{shard}",
            label=f"{model} {step} shard {shard}",
        )
    for wording, path in outputs.items():
        write_table(answered[answered["wording"] == wording].reset_index(drop=True), path)
    return summary, read
