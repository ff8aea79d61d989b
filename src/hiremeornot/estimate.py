"""Before a run: the questions each model and step will ask, their tokens and their cost.

Step 1's questions are known exactly, and those already in the response store are counted as
such. Steps 2 and 3 are known in number, but their prompts carry the attributes Step 1 grants:
their tokens and cost are bracketed between no attribute granted and every one granted.
Tokens are estimated as the OpenAI backend does (backends/openai_cost); the cost needs the
model's ``price_per_million_tokens``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from hiremeornot.backends import Request, model_identity
from hiremeornot.backends.openai_cost import cost_estimate
from hiremeornot.prompts import PromptRenderer
from hiremeornot.questions import step1_questions
from hiremeornot.report import markdown_table
from hiremeornot.steps import STEPS, build_questions
from hiremeornot.store import ResponseStore, request_key

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


def assumed_step1(instances: pd.DataFrame, attributes: pd.DataFrame, settings: dict, role: str):
    """Step-1 answers as if the model answered ``role`` (yes or no) to every question."""
    renderer = PromptRenderer(settings["prompts"])
    questions = step1_questions(instances, attributes, renderer, settings["answers"])
    return questions[["prompt"]].assign(choice=role, logprob_yes=math.nan, logprob_no=math.nan)


def step_requests(step: str, settings: dict, inputs: dict, granted: str) -> list[Request]:
    """Every question of ``step`` (all shards), Step 1 assumed to answer ``granted``."""
    whole = {**settings, "model": {**settings["model"], "shard_size": 0}}
    if step != "step1":
        step1 = assumed_step1(inputs["instances"], inputs["attributes"], settings, granted)
        inputs = {**inputs, "step1": step1}
    table = build_questions(step, 0, whole, inputs)
    return [Request(p, tuple(c)) for p, c in zip(table["prompt"], table["choices"], strict=True)]


def not_in_store(requests: list[Request], model_settings: dict, store_path: Path) -> list[Request]:
    """The requests the model's store does not answer yet (all of them without a store)."""
    if not store_path.is_file():
        return requests
    identity = model_identity(model_settings)
    keys = [request_key(identity, r) for r in requests]
    store = ResponseStore(store_path)
    try:
        known = store.get(keys)
    finally:
        store.close()
    return [r for r, key in zip(requests, keys, strict=True) if key not in known]


def estimate_row(model: str, step: str, settings: dict, inputs: dict, store_dir: Path) -> dict:
    """One model and step: question count, store hits (Step 1), token and cost brackets."""
    low = step_requests(step, settings, inputs, "no")
    total, known = len(low), math.nan
    if step == "step1":
        low = high = not_in_store(low, settings["model"], store_dir / f"{model}.sqlite")
        known = total - len(low)
    else:
        high = step_requests(step, settings, inputs, "yes")
    least = cost_estimate(low, settings["model"])
    most = cost_estimate(high, settings["model"])
    return {
        "model": model,
        "step": step,
        "questions": total,
        "in_store": known,
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
) -> pd.DataFrame:
    """The estimate table; ``settings`` maps model -> step -> that step's job settings."""
    inputs = {"instances": instances, "attributes": attributes}
    rows = [
        estimate_row(model, step, by_step[step], inputs, Path(store_dir))
        for model, by_step in settings.items()
        for step in STEPS
    ]
    return pd.DataFrame(rows, columns=COLUMNS).astype({"in_store": "Int64"})


def markdown(table: pd.DataFrame) -> str:
    """The estimate as Markdown: the table, then each model's total cost."""
    lines = [
        "# What the run will ask\n",
        "Steps 2 and 3 are bracketed between no attribute granted in Step 1 (low) and every "
        "attribute granted (high); `in_store` counts Step-1 questions already answered. Tokens "
        "are approximate; costs use each model's `price_per_million_tokens`.\n",
        markdown_table(table.astype(object).where(table.notna(), ""), digits=2),
    ]
    for model, rows in table.groupby("model", sort=False):
        if rows["usd_high"].notna().all():
            low, high = rows["usd_low"].sum(), rows["usd_high"].sum()
            lines.append(f"- {model}: about ${low:,.2f} to ${high:,.2f} in all")
        else:
            lines.append(f"- {model}: no prices configured")
    return "\n".join(lines) + "\n"
