"""The estimate in words: what the run will ask and cost, and what its design can detect."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from hiremeornot.analysis.power import POWER, DesignPower
from hiremeornot.asking.store import classifier_store_name
from hiremeornot.design.contrasts import Sides
from hiremeornot.writing.markdown import markdown_table

CLASSIFIER_ROWS = classifier_store_name("")  # the suffix of a classifier's rows


def estimate_markdown(table: pd.DataFrame) -> str:
    """The estimate as Markdown: the table, then each model's total cost."""
    lines = [
        "# What the run will ask\n",
        "Steps 2 and 3 are bracketed between no attribute granted in Step 1 (low) and every "
        "attribute granted (high); `in_store` counts Step-1 questions already answered. Tokens "
        "(approximate) and costs are given for openai models, costs where "
        "`price_per_million_tokens` is set.\n",
        markdown_table(table.astype(object).where(table.notna(), ""), digits=2),
    ]
    if table["model"].str.endswith(CLASSIFIER_ROWS).any():
        lines.insert(
            2,
            f"A `<model>{CLASSIFIER_ROWS}` row is the model's `free_classifier`: a question per "
            "free reply, each reply at its whole budget (the most it may cost).\n",
        )
    for model, rows in table.groupby("model", sort=False):
        if rows["usd_high"].notna().all():
            low, high = rows["usd_low"].sum(), rows["usd_high"].sum()
            lines.append(f"- {model}: about ${low:,.2f} to ${high:,.2f} in all")
        elif rows["input_tokens_high"].notna().all():
            lines.append(f"- {model}: no prices configured")
    return "\n".join(lines) + "\n"


def run_estimate_markdown(texts: Mapping[str, str]) -> str:
    """The whole run's estimate from each contrast's Markdown (by contrast label): one section
    per contrast, its headings one level down."""
    sections = ["# What the whole run will ask\n", f"{len(texts)} contrasts, each below.\n"]
    for label, text in texts.items():
        lines = ("#" + line if line.startswith("#") else line for line in text.splitlines())
        sections += [f"## {label}\n", "\n".join(lines) + "\n"]
    return "\n".join(sections)


def _format(value: float) -> str:
    return "none (the test cannot reject)" if value == math.inf else f"{min(value, 1.0):.3f}"


def power_markdown(
    power: DesignPower,
    models: list[str],
    sides: Sides,
    capacity: Mapping[str, Any],
) -> str:
    """The power section of the estimate (``power``: power.design_power of the design),
    ``capacity`` what the name list offers (the dataset job's ``capacity.json``: see
    ``contrasts.list_capacity``)."""
    names = min(power.a_names, power.b_names)
    limit = (
        f"{power.wordings} wordings pooled as a random factor"
        if power.wordings_limit
        else f"{names} independent names on the smaller side"
    )
    lines = [
        "## Power\n",
        f"The design is the same for every model ({', '.join(models)}): {power.a_names} "
        f"{sides.a_words} and {power.b_names} {sides.b_words} names, {power.pairs} pairs, "
        f"{power.orders} listing order(s), {power.per_occupation:.0f} instances per occupation, "
        f"{power.wordings} wording(s). Two-sided tests at alpha = {power.alpha}, {POWER:.0%} "
        "power, per occupation and before the Benjamini-Hochberg correction across occupations "
        "(which asks for more).\n",
        f"- The test's floor on p: {power.floor:.3g} (the exact sign test's smallest p with "
        f"{limit}; a choice of the test, not the smallest p the design allows)."
        + (
            f" With Benjamini-Hochberg across {power.occupations} occupations, "
            f"{power.flaggable} must sit at that floor before any can be flagged."
            if power.reachable
            else " **It is not below alpha: no occupation can be significant, whatever the model "
            "does.**"
        ),
        "- Minimum detectable difference: "
        f"{_format(power.best)} if names and wordings add no variance of their own, "
        f"{_format(power.worst)} if all variance lies between them. These bound it only when "
        "the per-instance values vary independently (not when the orders of a pair are "
        "negatively correlated, or most values are zero): the calibration's simulated power is "
        "the design's own (below).",
    ]
    if power.orders == 1:
        lines.append(
            f"- With one listing order, position and {sides.attribute} are confounded: no "
            f"difference is a {sides.attribute} finding, whatever its p-value."
        )
    table = power.needed.rename(
        columns={
            "pairs": f"pairs needed ({names} names per side, no name variance)",
            "names": "names per side needed (all variance between names)",
        }
    )
    table = table.astype(object).replace(math.inf, "unreachable")
    note = (
        f"\n{_capacity_sentence(power.a_names, power.b_names, power.pairs, capacity, sides)}\n\n"
        "These are closed-form bounds. For the power of this very design, with its tests, "
        "corrections and verdicts, plant the effect you care about in a simulated model "
        "(backend: simulated) and ask for `results/calibration/<model>.md`: it runs hundreds of "
        "simulated audits of the design and reports how often each planted difference is found "
        "(docs/calibration.md).\n"
    )
    return "\n".join(lines) + "\n\n" + markdown_table(table, digits=2) + note


def _capacity_sentence(
    female: int, male: int, pairs: int, capacity: Mapping[str, Any], sides: Sides
) -> str:
    """How many names and pairs this design uses, beside what its name list offers."""
    if capacity["list"] is None:
        return f"The control's design is its one pair, {sides.a_words} and {sides.b_words}."
    used = (
        f"This design uses {female} {sides.a_words} and {male} {sides.b_words} names in {pairs} "
        "pairs"
    )
    listed_a, listed_b = (capacity["names"][label] for label in sides.labels)
    misread = (
        f" (after the {capacity['misread']} names some model misreads are dropped)"
        if capacity["misread"]
        else ""
    )
    offered = (
        f"the list `{capacity['list']}` has {listed_a} {sides.a_words} and {listed_b} "
        f"{sides.b_words} names{misread}, which make {capacity['pairs']} pairs"
    )
    if pairs >= capacity["pairs"]:
        return f"{used}: {offered}, all of them in this design; a longer list makes more."
    return f"{used}; {offered} (`names.pairs` higher, or `all`, uses more)."
