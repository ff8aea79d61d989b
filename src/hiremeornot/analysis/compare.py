"""Compare two runs: two models of one config, or two runs (result folders) of one model.

Questions are matched by what was asked, never by row order:

- Step 1 by its prompt and answer space (and wording): the same text asked of both runs;
- Steps 2 and 3 by instance and subject (Q1) or question (Q2, Q3), and wording. Their prompts
  state each run's own Step-1 answers (f_A), so two models that granted different attributes
  were asked different texts: such a question is *changed through Step 1*, never counted as a
  flip. A Step-2/3 prompt that differs although Step 1 granted the same attributes in both runs
  means other templates: the runs are refused, as are runs whose questions or answer spaces
  differ.

A *flip* is an identical question (same prompt and answer space) answered differently. Per
occupation, the change B - A of Confirmation, Consistency and the difference is tested on the
per-instance paired differences with the crossed name bootstrap (paired.py: instances sharing
a name are not independent), BH-corrected across occupations per metric. See docs/compare.md.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from hiremeornot.analysis.paired import paired_changes, paired_outcomes
from hiremeornot.design.contrasts import Sides
from hiremeornot.design.questions import STEP1_KEY
from hiremeornot.errors import InputError, one_line
from hiremeornot.tables_io import model_step_tables, read_table, step_table_parts

QUESTIONS = (("step1", "attribute"), ("step2", "q1"), ("step3", "q2"), ("step3", "q3"))
SLOT = ["step", "question", "slot"]
QUESTION_COLUMNS = [*SLOT, "wording", "instance_id", "occupation", "prompt", "space"]
QUESTION_COLUMNS += ["answer", "choice", "step1"]


FLIP_COLUMNS = [
    "step",
    "question",
    "questions",
    "identical",
    "flipped",
    "flipped_share",
    "transitions",
    "through_step1",
    "changed_through_step1",
]


@dataclass(frozen=True)
class Run:
    """One run of one model: its questions (one row per question slot) and its outcomes."""

    label: str
    questions: pd.DataFrame  # QUESTION_COLUMNS
    outcomes: pd.DataFrame  # results/<model>/outcomes.tsv, with a wording column
    sides: Sides  # the contrast's sides (runs A and B are not its sides A and B)


@dataclass(frozen=True)
class Comparison:
    """What changed from run A to run B."""

    a: str
    b: str
    matched: pd.DataFrame  # every matched question, A's and B's answers side by side
    flips: pd.DataFrame  # FLIP_COLUMNS, per step and question, then "all"
    changes: pd.DataFrame  # paired.change_columns, per occupation and metric
    reading: str
    alpha: float
    confidence: float
    sides: Sides

    @property
    def smallest_p(self) -> float:
        """The smallest p-value any change's test can reach (1 where nothing was tested)."""
        return float(self.changes["smallest_p"].min()) if len(self.changes) else 1.0

    @property
    def reachable(self) -> bool:
        """Whether a change can be significant at all: the floor on p lies below alpha."""
        return self.smallest_p < self.alpha


def _wording(table: pd.DataFrame) -> pd.Series:
    """The table's wording ids as text (a TSV reader reads an id such as ``2`` as a number)."""
    return table["wording"].astype(str)


def _space(choices: Any) -> str:
    return json.dumps([str(choice) for choice in choices], ensure_ascii=False)


def granted_signatures(granted: pd.DataFrame, sides: Sides) -> dict[tuple[str, str, str], str]:
    """Per (wording, instance, side): the attributes Step 1 granted, as one string."""
    key = ["wording", "instance_id", sides.attribute]
    yes = granted.assign(wording=_wording(granted))
    yes = yes[yes["choice"] == "yes"]
    joined = yes.groupby(key)["element_id"].agg(lambda ids: ",".join(sorted(ids)))
    keys = granted.assign(wording=_wording(granted))[key]
    return {
        key: joined.get(key, "")
        for key in keys.drop_duplicates().itertuples(index=False, name=None)
    }


def without_preamble(prompts: pd.Series, preamble: str) -> pd.Series:
    """The prompts less an intervention's preamble (the sentence before each one's context);
    InputError where one does not start with it."""
    if not preamble:
        return prompts
    head = preamble.strip() + " "
    lacking = prompts[~prompts.str.startswith(head)]
    if len(lacking):
        raise InputError(
            f"{len(lacking)} prompt(s) do not start with the intervention's preamble "
            f"{one_line(preamble, 60)!r} (e.g. {one_line(lacking.iloc[0], 60)!r}): tables of "
            "another arm or an earlier text? Run the workflow again"
        )
    return prompts.str.slice(len(head))


def question_table(
    tables: Sequence[Path],
    outcomes: pd.DataFrame,
    granted: pd.DataFrame,
    sides: Sides,
    preamble: str = "",
) -> pd.DataFrame:
    """One row per question slot of a run (QUESTION_COLUMNS).

    Only the questions of the run's current plan count: Step 1 those whose key (and wording)
    ``granted`` joins, Steps 2-3 those of the instances (and wordings) in ``outcomes``, so that
    tables left over from an earlier design are ignored. A slot found twice must read and be
    answered the same. The prompts are read less ``preamble`` (an intervention arm's), so that
    an arm's questions match the baseline's.
    """
    granted = granted.assign(wording=_wording(granted))
    plan1 = granted[["wording", *STEP1_KEY]].drop_duplicates()
    plan23 = outcomes.assign(wording=_wording(outcomes))[["wording", "instance_id"]]
    signatures = granted_signatures(granted, sides)
    side = sides.attribute
    parts = []
    for path in tables:
        step = step_table_parts(path)[1]
        table = read_table(path)
        table = table.assign(
            wording=_wording(table), prompt=without_preamble(table["prompt"], preamble)
        )
        if step == "step1":
            table = table.merge(plan1, on=["wording", *STEP1_KEY])
            question, slot = "attribute", table["prompt"]
            instance, occupation, step1 = "", "", ""
        else:
            table = table.merge(plan23, on=["wording", "instance_id"])
            instance, occupation = table["instance_id"], table["occupation"]
            if step == "step2":
                question, slot = "q1", table["instance_id"] + "|" + table[side]
                step1 = [
                    signatures.get((w, i, g), "")
                    for w, i, g in zip(table["wording"], instance, table[side], strict=True)
                ]
            else:
                question, slot = table["question"], table["instance_id"]
                step1 = [
                    "/".join(signatures.get((w, i, label), "") for label in sides.labels)
                    for w, i in zip(table["wording"], instance, strict=True)
                ]
        parts.append(
            pd.DataFrame(
                {
                    "step": step,
                    "question": question,
                    "slot": slot,
                    "wording": table["wording"],
                    "instance_id": instance,
                    "occupation": occupation,
                    "prompt": table["prompt"],
                    "space": [_space(choices) for choices in table["choices"]],
                    "answer": table["answer"],
                    "choice": table["choice"],
                    "step1": step1,
                },
                index=table.index,
            )
        )
    if not parts:
        raise InputError("no step tables to compare")
    questions = pd.concat(parts, ignore_index=True)[QUESTION_COLUMNS]
    questions["slot"] = questions["wording"] + "|" + questions["slot"]
    conflicting = questions.groupby(SLOT, sort=False)[["prompt", "space", "answer"]].nunique()
    conflicting = conflicting[(conflicting > 1).any(axis=1)]
    if len(conflicting):
        step, _, slot = conflicting.index[0]
        raise InputError(
            f"{len(conflicting)} question(s) appear twice with different prompts or answers "
            f"(e.g. {step} {one_line(slot)!r}): a step table left over from an earlier run? "
            "Remove it, or run the workflow again"
        )
    return questions.drop_duplicates(SLOT, ignore_index=True)


def load_run(
    folder: str | Path,
    label: str,
    sides: Sides,
    tables: Sequence[str | Path] | None = None,
    preamble: str = "",
) -> Run:
    """A model's run from its result folder ``results/<model>``: the step tables (``tables``,
    or every one under the folder), ``outcomes.tsv`` and ``granted.parquet``; ``preamble``: an
    intervention arm's, left out of its prompts (question_table)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: no such result folder (run the audit of that model first)")
    needed = {name: folder / name for name in ("outcomes.tsv", "granted.parquet")}
    for path in needed.values():
        if not path.is_file():
            raise InputError(f"{path}: not found (run the audit of that model to the end first)")
    paths = [Path(p) for p in tables] if tables else model_step_tables(folder)
    if not paths:
        raise InputError(f"{folder}: no step tables (<step>/<wording>/shard-<i>.parquet)")
    outcomes = read_table(needed["outcomes.tsv"])
    outcomes = outcomes.assign(wording=_wording(outcomes))
    granted = read_table(needed["granted.parquet"])
    questions = question_table(paths, outcomes, granted, sides, preamble)
    return Run(label, questions, outcomes, sides)


def match_questions(a: Run, b: Run) -> pd.DataFrame:
    """A's and B's answers to every question, side by side; InputError unless both runs asked
    the same questions (the same slots and answer spaces, and the same templates)."""
    merged = a.questions.merge(
        b.questions, on=SLOT, how="outer", suffixes=("_a", "_b"), indicator=True
    )
    only_a = merged[merged["_merge"] == "left_only"]
    only_b = merged[merged["_merge"] == "right_only"]
    if len(only_a) or len(only_b):
        first = only_a.iloc[0] if len(only_a) else only_b.iloc[0]
        prompt = first["prompt_a"] if len(only_a) else first["prompt_b"]
        raise InputError(
            f"{a.label} and {b.label} did not ask the same questions: {len(only_a)} of "
            f"{a.label}'s {len(a.questions)} are not in {b.label}, {len(only_b)} of "
            f"{b.label}'s {len(b.questions)} not in {a.label} (e.g. {first['step']} "
            f"{one_line(prompt)!r}); compare runs of one design (the same config's plan, "
            "templates and answer words)"
        )
    both = merged.drop(columns="_merge")
    spaces = both[both["space_a"] != both["space_b"]]
    if len(spaces):
        first = spaces.iloc[0]
        raise InputError(
            f"{len(spaces)} question(s) offer other answers in {a.label} than in {b.label} "
            f"(e.g. {first['step']} {one_line(first['prompt_a'], 60)!r}: {first['space_a']} vs "
            f"{first['space_b']}); compare runs with the same answer words and names"
        )
    same_prompt = both["prompt_a"] == both["prompt_b"]
    template = both[~same_prompt & (both["step1_a"] == both["step1_b"])]
    if len(template):
        first = template.iloc[0]
        raise InputError(
            f"{len(template)} question(s) read differently in {a.label} and {b.label} although "
            f"Step 1 granted the same attributes (e.g. {first['step']} "
            f"{one_line(first['prompt_a'], 60)!r} vs {one_line(first['prompt_b'], 60)!r}): "
            "the runs used other templates; compare runs of one design"
        )
    both["identical"] = same_prompt
    both["changed"] = both["answer_a"] != both["answer_b"]
    both["flipped"] = both["identical"] & both["changed"]
    return both.rename(
        columns={
            "instance_id_a": "instance_id",
            "occupation_a": "occupation",
            "wording_a": "wording",
        }
    )


def _transitions(rows: pd.DataFrame) -> str:
    counts = (rows["choice_a"] + "->" + rows["choice_b"]).value_counts()
    return ", ".join(f"{change} {count}" for change, count in sorted(counts.items()))


def flip_counts(matched: pd.DataFrame) -> pd.DataFrame:
    """Per step and question, then for all: the questions, how many were identical in both runs
    and how many of those flipped (and how: role -> role), how many differed through Step 1
    and how many of those were answered otherwise."""
    groups = [
        (step, question, matched[(matched["step"] == step) & (matched["question"] == question)])
        for step, question in QUESTIONS
    ]
    groups.append(("all", "all", matched))
    rows = []
    for step, question, rows_of in groups:
        identical = int(rows_of["identical"].sum())
        flipped = rows_of[rows_of["flipped"]]
        through = rows_of[~rows_of["identical"]]
        rows.append(
            {
                "step": step,
                "question": question,
                "questions": len(rows_of),
                "identical": identical,
                "flipped": len(flipped),
                "flipped_share": len(flipped) / identical if identical else float("nan"),
                "transitions": _transitions(flipped) if step != "all" else "",
                "through_step1": len(through),
                "changed_through_step1": int(through["changed"].sum()),
            }
        )
    return pd.DataFrame(rows, columns=FLIP_COLUMNS)


def paired_values(a: Run, b: Run, reading: str) -> pd.DataFrame:
    """Per instance (and wording) of both runs: its occupation, names, wording and each metric's
    per-instance value in A and in B (confirmed, consistent, the ``reading`` of the difference)."""
    return paired_outcomes(a.outcomes, b.outcomes, reading, a.sides, (a.label, b.label))


def compare(a: Run, b: Run, settings: Mapping[str, Any]) -> Comparison:
    """Match the two runs' questions (or refuse), count the flips, test the changes."""
    if a.sides != b.sides:
        raise InputError(f"{a.label} and {b.label} audit different contrasts")
    matched = match_questions(a, b)
    values = paired_values(a, b, settings["difference"])
    return Comparison(
        a=a.label,
        b=b.label,
        matched=matched,
        flips=flip_counts(matched),
        changes=paired_changes(values, settings, a.sides),
        reading=settings["difference"],
        alpha=settings["alpha"],
        confidence=settings["confidence"],
        sides=a.sides,
    )


def changed_questions(comparison: Comparison) -> pd.DataFrame:
    """Every matched question answered otherwise in B than in A, flips first."""
    rows = comparison.matched[comparison.matched["changed"]]
    columns = ["step", "question", "wording", "occupation", "instance_id", "identical"]
    columns += ["choice_a", "choice_b", "answer_a", "answer_b", "prompt_a", "prompt_b"]
    return rows.sort_values(["identical", "step", "question"], ascending=[False, True, True])[
        columns
    ].reset_index(drop=True)
