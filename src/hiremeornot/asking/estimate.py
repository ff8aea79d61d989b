"""Before a run: the questions each model and step will ask, their tokens and their cost.

Step 1's questions are known exactly, and those already in the response store are counted as
such. Steps 2 and 3 are known in number, but their prompts carry the attributes Step 1 grants:
their tokens and cost are bracketed between no attribute granted and every one granted.
Tokens are estimated as the openai and provider backends do (backends/openai/cost.py); the cost
needs the model's ``price_per_million_tokens``. A model's ``free_classifier`` has rows of its own
(``<model>+classifier``): a question per free reply.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from hiremeornot.asking.backends import API_BACKENDS, Request, model_identity
from hiremeornot.asking.backends.openai.cost import cost_estimate
from hiremeornot.asking.classify import classifier_request
from hiremeornot.asking.steps import build_questions, free_tokens
from hiremeornot.asking.store import ResponseStore, classifier_store_name, request_key
from hiremeornot.design.contrasts import Sides
from hiremeornot.design.questions import STEP1_KEY, step1_rows
from hiremeornot.tables_io import STEPS

COLUMNS = [
    "model",
    "step",
    "questions",
    "in_store",
    "input_tokens_low",
    "input_tokens_high",
    "output_tokens",
    "usd_low",
    "usd_high",
]


def assumed_step1(
    instances: pd.DataFrame,
    attributes: pd.DataFrame,
    role: str,
    wordings: list[str],
    sides: Sides,
) -> pd.DataFrame:
    """A Step-1 table in each wording as if the model answered ``role`` (yes or no) to every
    question."""
    keys = step1_rows(instances, attributes, sides)[STEP1_KEY].drop_duplicates()
    keys = keys.assign(choice=role, logprob_yes=math.nan, logprob_no=math.nan)
    return pd.concat([keys.assign(wording=wording) for wording in wordings], ignore_index=True)


def step_requests(
    step: str,
    settings: dict,
    inputs: dict,
    granted: str,
    wordings: list[str],
    sides: Sides,
) -> list[Request]:
    """Every question of ``step`` (all shards) in each wording, Step 1 assumed to answer
    ``granted``."""
    whole = {**settings, "model": {**settings["model"], "shard_size": 0, "step1_shards": 1}}
    if step != "step1":
        assumed = assumed_step1(inputs["instances"], inputs["attributes"], granted, wordings, sides)
        inputs = {**inputs, "step1": assumed}
    table = build_questions(step, 0, whole, inputs, wordings, sides)
    return [Request(p, tuple(c)) for p, c in zip(table["prompt"], table["choices"], strict=True)]


def not_in_store(
    requests: list[Request], model_settings: dict, store_dir: Path, model: str
) -> list[Request]:
    """The requests the model's store does not answer yet (all of them without a store)."""
    identity = model_identity(model_settings)
    keys = [request_key(identity, r) for r in requests]
    store = ResponseStore.open(store_dir, model)
    try:
        known = store.get(keys)
    finally:
        store.close()
    return [r for r, key in zip(requests, keys, strict=True) if key not in known]


class QuestionPlan:
    """The questions of each step, built once for all models that share prompts and answers."""

    def __init__(
        self,
        instances: pd.DataFrame,
        attributes: pd.DataFrame,
        wordings: list[str],
        sides: Sides,
    ):
        self.inputs = {"instances": instances, "attributes": attributes}
        self.wordings = wordings
        self.sides = sides
        self._built: dict[str, list[Request]] = {}

    def requests(self, step: str, settings: dict, granted: str) -> list[Request]:
        key = json.dumps([step, settings["prompts"], settings["answers"], granted], sort_keys=True)
        if key not in self._built:
            self._built[key] = step_requests(
                step, settings, self.inputs, granted, self.wordings, self.sides
            )
        return self._built[key]


def estimate_row(model: str, step: str, settings: dict, plan: QuestionPlan, store_dir: Path):
    """One model and step: question count, store hits (Step 1), and for a paid API the token
    and cost brackets (a step asked free priced at its replies' whole budget)."""
    free = free_tokens(settings["model"], step)

    def asked(granted: str) -> list[Request]:  # as the step asks them: free, or constrained
        built = plan.requests(step, settings, granted)
        return built if free is None else [replace(r, free_tokens=free) for r in built]

    low = asked("no")
    row = {"model": model, "step": step, "questions": len(low)}
    if step == "step1":
        low = high = not_in_store(low, settings["model"], store_dir, model)
        row["in_store"] = row["questions"] - len(low)
    else:
        high = asked("yes")
    return _priced(row, low, high, settings["model"])


def classifier_row(model: str, step: str, settings: dict, plan: QuestionPlan) -> dict | None:
    """The questions a model's ``free_classifier`` may be asked in ``step`` (None where it reads
    none): one per free reply, each reply at its whole budget, the most it may cost."""
    classifier = settings["model"].get("free_classifier")  # not in a constrained step's
    free = free_tokens(settings["model"], step)
    if classifier is None or free is None:
        return None
    reply = " ".join(["word"] * free)  # about one token a word

    def read(granted: str) -> list[Request]:
        asked = plan.requests(step, settings, granted)
        return [classifier_request(r.prompt, reply, r.choices) for r in asked]

    low = read("no")
    row = {"model": classifier_store_name(model), "step": step, "questions": len(low)}
    return _priced(row, low, low if step == "step1" else read("yes"), classifier)


def _priced(row: dict, low: list[Request], high: list[Request], model_settings: dict) -> dict:
    """The row with the token and cost brackets of ``low`` to ``high``, where the model is a
    paid API's."""
    if model_settings["backend"] not in API_BACKENDS:
        return row
    least, most = cost_estimate(low, model_settings), cost_estimate(high, model_settings)
    return row | {
        "input_tokens_low": least.input_tokens,
        "input_tokens_high": most.input_tokens,
        "output_tokens": most.output_tokens,
        "usd_low": least.usd,
        "usd_high": most.usd,
    }


def estimate(
    settings: dict[str, dict[str, dict[str, Any]]],
    instances: pd.DataFrame,
    attributes: pd.DataFrame,
    store_dir: str | Path,
    wordings: list[str],
    sides: Sides,
) -> pd.DataFrame:
    """The estimate table; ``settings`` maps model -> step -> that step's job settings, and
    ``wordings`` are the ids run (prompts.variants)."""
    plan = QuestionPlan(instances, attributes, wordings, sides)
    rows = [
        estimate_row(model, step, by_step[step], plan, Path(store_dir))
        for model, by_step in settings.items()
        for step in STEPS
    ]
    rows += [
        row
        for model, by_step in settings.items()
        for step in STEPS
        if (row := classifier_row(model, step, by_step[step], plan)) is not None
    ]
    integers = {c: "Int64" for c in COLUMNS if c not in ("model", "step", "usd_low", "usd_high")}
    return pd.DataFrame(rows, columns=COLUMNS).astype(integers)


def run_estimate(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """The whole run's estimate: each contrast's table (by label), one after the other, with a
    ``contrast`` column."""
    return pd.concat([t.assign(contrast=label) for label, t in tables.items()], ignore_index=True)
