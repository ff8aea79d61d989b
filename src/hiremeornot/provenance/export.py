"""Every answer as an open dataset: one JSON Lines file per model and step, and a datasheet.

``results/export/<model>/<step>.jsonl`` holds one JSON object per question asked, from the step
tables ``results/<model>/<step>/<wording>/shard-<i>.parquet``, joined with the instances (names,
genders, order) and, for Step 1, with the occupations that share each question. Every file of a
run has the same fields (``fields``; ``null`` where a field does not apply to a step), plus any
further column of the step tables as it is (``wording``, the prompt wording's id), and
loads with ``datasets.load_dataset("json", data_files=...)`` or ``pandas.read_json(...,
lines=True)``. ``results/export/README.md`` is the datasheet (writing/provenance.py), written
from the run manifest.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from hiremeornot.analysis.metrics import answer_probabilities
from hiremeornot.atomic import atomic_output
from hiremeornot.design.contrasts import Sides
from hiremeornot.design.questions import STEP1_KEY, step1_rows
from hiremeornot.errors import InputError
from hiremeornot.tables_io import read_table, sha256_file, step_table_parts


def fields(sides: Sides) -> list[tuple[str, str]]:
    """Every field of an exported row, in order, with what it holds (the datasheet lists
    them); the pair's fields are named after the contrast's sides (female, male, gender1)."""
    a, b, what = sides.a, sides.b, sides.attribute
    pair = f"{_capital(sides.a_words)}-{_capital(sides.b_words)}"
    return [
        ("model", "the model's name in the config"),
        ("step", "step1 (does the subject have the attribute?), step2 (Q1) or step3 (Q2, Q3)"),
        ("question", "attribute (Step 1), q1, q2 or q3"),
        (
            "question_id",
            "the question's key: name1|name2|subject|element_id (Step 1), instance_id|subject "
            "(Step 2), instance_id|question (Step 3); preceded by wording| where the run has "
            "wordings",
        ),
        ("shard", "the step table (shard-<i>.parquet) the row comes from"),
        ("prompt", "the exact text sent to the model"),
        ("choices", "the answer space: the answer words, in the order offered"),
        ("roles", f"what each choice means: yes/no, or {a}/{b}/both/neither"),
        (
            "answer",
            "the model's answer (one of choices); asked free, what the parser read in the "
            "reply: one of choices, refused, other or unparsed",
        ),
        ("choice", "the answer's role"),
        (
            "logprobs",
            "the log-probability of each choice (natural log, in choice order; null where the "
            "backend could not score a choice; docs/outputs.md says what each backend measures)",
        ),
        (
            "probabilities",
            "softmax of logprobs over the answer space, in choice order (null where any choice "
            "has no log-probability)",
        ),
        ("occupation", "the occupation (Steps 2-3; null in Step 1)"),
        ("soc_code", "its O*NET-SOC code (Steps 2-3; null in Step 1)"),
        (
            "occupations",
            "the occupations whose instances share this question (a Step-1 question does not "
            "depend on the occupation: each is asked once), in plan order; [occupation] in "
            "Steps 2-3",
        ),
        ("instance_id", f"occupation|{pair}|order (Steps 2-3; null in Step 1)"),
        ("pair_id", f"the name pair, {pair}"),
        (a, f"the pair's {sides.a_words} name"),
        (b, f"the pair's {sides.b_words} name"),
        ("order", f"{a}_first or {b}_first: who is listed first in the prompt"),
        ("name1", "the name listed first"),
        ("name2", "the name listed second"),
        (f"{what}1", f"the {what} of name1's list"),
        (f"{what}2", f"the {what} of name2's list"),
        ("subject", "whom the question is about (Steps 1-2; null in Step 3)"),
        (what, f"the {what} of the subject's list (Steps 1-2; null in Step 3)"),
        ("element_id", "the O*NET element of the attribute (Step 1; null otherwise)"),
        ("attribute", "the attribute's name (Step 1; null otherwise)"),
        ("attribute_type", "skill, knowledge or ability (Step 1; null otherwise)"),
    ]


def _capital(words: str) -> str:
    return words[:1].upper() + words[1:]


def field_names(sides: Sides) -> list[str]:
    return [name for name, _ in fields(sides)]


# Further columns of the step tables: exported as they are, with these meanings.
OPTIONAL_FIELDS: dict[str, str] = {
    "wording": "the id of the prompt wording (`paper`: the paper's templates; another id: that "
    "entry of the config's prompts.wordings); question_id starts with it",
    "answer_mass": "the probability the model put on the answer space before the constraint "
    "held it there (null where the backend does not see it, or the answer came from a store "
    "written before it was recorded; docs/outputs.md)",
    "granted": "Q1 (Step 2): how many attributes Step 1 granted the subject, f_A(s), which the "
    "prompt states",
    "free_tokens": "a question asked free (answers_mode free): the most tokens its reply could "
    "take (docs/method.md#free-answers)",
    "reply": "a question asked free: the model's reply, whole; answer and choice are what the "
    "parser read in it",
    "rule": "a question asked free: the parser's rule that read the reply (free_replies.py), or "
    "classifier where the parser found no answer and the model's free_classifier read it",
    "classified": "a question asked free, with a free_classifier: what the classifier read in "
    "the reply (a role, refused or other; null for a reply with no text)",
    "constrained": "a question asked free: the role its constrained twin was answered with, "
    "where the model's store held one (null otherwise)",
}
# Step-table columns folded into other fields (logprob_<role> become logprobs, probabilities).
_FOLDED = ("logprob_",)


def _plain(value: Any) -> Any:
    """A JSON value: numpy scalars and arrays as Python ones, NaN and missing values as null."""
    if isinstance(value, np.ndarray | list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    return value


def probabilities(logprobs: Sequence[float]) -> list[float] | None:
    """Softmax of one question's log-probabilities; None if any is missing (NaN)."""
    values = answer_probabilities(logprobs)
    if not len(values) or np.isnan(values).any():
        return None
    return [float(p) for p in values]


def question_id(step: str, row: Mapping[str, Any]) -> str:
    """The question's key within its model and step (its wording first, where it has one)."""
    if step == "step1":
        key = "|".join(str(row[name]) for name in STEP1_KEY)
    else:
        key = f"{row['instance_id']}|{row['subject' if step == 'step2' else 'question']}"
    return f"{row['wording']}|{key}" if row.get("wording") is not None else key


def step1_context(instances: pd.DataFrame, attributes: pd.DataFrame, sides: Sides) -> pd.DataFrame:
    """Per Step-1 question key: the occupations that share it, and the pair's columns."""
    rows = step1_rows(instances, attributes, sides)
    occupations = (
        rows.groupby(STEP1_KEY, sort=False)["occupation"]
        .agg(lambda titles: list(dict.fromkeys(titles)))
        .rename("occupations")
        .reset_index()
    )
    what = sides.attribute
    pair_columns = ["name1", "name2", "pair_id", *sides.labels, "order", f"{what}1", f"{what}2"]
    pairs = instances[[c for c in pair_columns if c in instances.columns]].drop_duplicates(
        ["name1", "name2"]
    )
    return occupations.merge(pairs, on=["name1", "name2"], how="left", validate="m:1")


def export_rows(
    model: str,
    step: str,
    shard: int,
    table: pd.DataFrame,
    instances: pd.DataFrame,
    sides: Sides,
    context: pd.DataFrame | None = None,
) -> Iterator[dict[str, Any]]:
    """The exported rows of one step table (see ``fields``); Step 1 needs ``context``
    (step1_context of the run's instances and attributes)."""
    names = field_names(sides)
    if step == "step1":
        if context is None:
            raise ValueError("Step 1 rows need the step1_context of the run")
        extra = [c for c in context.columns if c not in table.columns or c in STEP1_KEY]
        joined = table.merge(context[extra], on=STEP1_KEY, how="left", validate="m:1")
    else:
        extra = [c for c in instances.columns if c not in table.columns or c == "instance_id"]
        joined = table.merge(instances[extra], on="instance_id", how="left", validate="m:1")
        joined["occupations"] = [[title] for title in joined["occupation"]]
    if len(joined) != len(table):
        raise InputError(f"{model} {step} shard {shard}: the join changed the number of rows")
    others = [
        column
        for column in joined.columns
        if column not in names and not column.startswith(_FOLDED)
    ]
    for record in joined.to_dict("records"):
        roles = [str(role) for role in record["roles"]]
        logprobs = [_plain(record.get(f"logprob_{role}", math.nan)) for role in roles]
        row: dict[str, Any] = {name: None for name in names}
        row.update({key: _plain(record[key]) for key in names if key in record})
        row.update(
            model=model,
            step=step,
            shard=shard,
            question=record.get("question", "attribute" if step == "step1" else "q1"),
            question_id=question_id(step, record),
            roles=roles,
            logprobs=logprobs,
            probabilities=probabilities([math.nan if v is None else v for v in logprobs]),
        )
        row.update({key: _plain(record[key]) for key in others})
        yield row


def write_jsonl(rows: Iterator[dict[str, Any]], path: str | Path) -> int:
    """Write rows as JSON Lines (UTF-8, no NaN); the number of rows."""
    count = 0
    with atomic_output(path) as partial, partial.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n")
            count += 1
    return count


def export_tables(
    tables: Sequence[str | Path],
    instances: pd.DataFrame,
    attributes: pd.DataFrame,
    out_dir: str | Path,
    sides: Sides,
) -> list[dict[str, Any]]:
    """Write ``<out_dir>/<model>/<step>.jsonl`` from the step tables (named
    ``<model>/<step>/<wording>/shard-<i>.parquet``); per file: model, step, path, rows, sha256
    and the fields it holds."""
    grouped: dict[tuple[str, str], list[tuple[int, Path]]] = {}
    for path in tables:
        model, step, _, shard = step_table_parts(path)
        grouped.setdefault((model, step), []).append((shard, Path(path)))
    context = (
        step1_context(instances, attributes, sides)
        if any(s == "step1" for _, s in grouped)
        else None
    )
    written = []
    for (model, step), shards in sorted(grouped.items()):
        target = Path(out_dir) / model / f"{step}.jsonl"

        fields: list[str] = []  # the file's fields, as its first line has them

        def rows(model=model, step=step, shards=shards, fields=fields) -> Iterator[dict]:
            for shard, path in sorted(shards):
                table = read_table(path)
                for row in export_rows(model, step, shard, table, instances, sides, context):
                    if not fields:
                        fields.extend(row)
                    yield row

        count = write_jsonl(rows(), target)
        written.append(
            {
                "model": model,
                "step": step,
                "path": f"{model}/{step}.jsonl",
                "rows": count,
                "sha256": sha256_file(target),
                "fields": fields,
            }
        )
    return written


def extra_columns(files: Sequence[Mapping[str, Any]], sides: Sides) -> list[str]:
    """Fields of the exported files beyond ``fields`` (further step-table columns)."""
    names = field_names(sides)
    found: dict[str, None] = {}
    for entry in files:
        found.update(dict.fromkeys(k for k in entry["fields"] if k not in names))
    return list(found)
