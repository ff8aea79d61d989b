"""Name validity (names.validate): what group each model reads in each name of the list.

Each name is asked about once per model, with a constrained answer, and the answer is kept in
the response store like every other: its gender (the words of names.validity.female and .male)
and, for a list with races, its race/ethnicity (the list's races). Per name: the group the model
reads (the answer), the probability it gives the name's labelled group (the softmax of the
per-choice log-probabilities over the answer space), whether it reads as its label, and how many
tokens the name takes for the model (where the backend can tokenize), so that a user can check
that the groups are not confounded by name length. A name the model reads as another group than
its label is evidence about the model's reading, not about anyone's identity.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from hiremeornot.analysis.metrics import answer_probabilities
from hiremeornot.asking.ask import AskSummary, ask
from hiremeornot.asking.backends import (
    Backend,
    Request,
    load_backend,
    load_tokenizer,
    model_identity,
)
from hiremeornot.asking.backends.base import token_count
from hiremeornot.asking.store import ResponseStore, batch_journal_dir
from hiremeornot.inputs.names import GENDERS

log = logging.getLogger(__name__)
COLUMNS = [
    "name",
    "gender",
    "race",
    "source",
    "tokens",
    "perceived_gender",
    "p_gender",
    "perceived_race",
    "p_race",
    "reads_as_label",
]


def questions(names: pd.DataFrame, settings: Mapping[str, Any], races: list[str]) -> pd.DataFrame:
    """One row per name and question (gender; race where the list has races): ``name``,
    ``question``, ``prompt``, ``choices`` (the answer words), ``roles`` (what each means) and
    ``about`` (for Request.about: the question, the name, its labelled group and the roles)."""
    asked = {"gender": (tuple(settings[g] for g in GENDERS), GENDERS)}
    if races:
        asked["race"] = (tuple(races), tuple(races))
    rows = [
        (
            name.name,
            question,
            settings[f"{question}_question"].format(name=name.name),
            choices,
            roles,
            {
                "question": question,
                "name": name.name,
                "group": {"gender": name.gender, "race": name.race},
                "roles": roles,
            },
        )
        for question, (choices, roles) in asked.items()
        for name in names.itertuples()
    ]
    return pd.DataFrame(rows, columns=["name", "question", "prompt", "choices", "roles", "about"])


def perceived(
    names: pd.DataFrame,
    asked: pd.DataFrame,
    answers: list[str],
    logprobs: list[tuple[float, ...]],
    tokens: Mapping[str, int | None],
) -> pd.DataFrame:
    """The COLUMNS of each name: the role of each answer, the probability of the name's
    label (NaN where a choice has no log-probability), and whether every answer is the label."""
    table = names.assign(tokens=[tokens[name] for name in names["name"]])
    table["tokens"] = table["tokens"].astype("Int64")
    answered = asked.assign(answer=answers, logprobs=logprobs)
    for question in ("gender", "race"):
        rows = answered[answered["question"] == question].set_index("name")
        if rows.empty:
            table[f"perceived_{question}"], table[f"p_{question}"] = "", np.nan
            continue
        rows = rows.loc[table["name"]]  # in the names' order
        table[f"perceived_{question}"] = [
            roles[choices.index(answer)]
            for choices, roles, answer in zip(
                rows["choices"], rows["roles"], rows["answer"], strict=True
            )
        ]
        table[f"p_{question}"] = [
            float(answer_probabilities(values)[list(roles).index(label)])
            for values, roles, label in zip(
                rows["logprobs"], rows["roles"], table[question], strict=True
            )
        ]
    reads_gender = table["perceived_gender"] == table["gender"]
    reads_race = (table["race"] == "") | (table["perceived_race"] == table["race"])
    table["reads_as_label"] = reads_gender & reads_race
    return table[COLUMNS].reset_index(drop=True)


def validate_names(
    model: str,
    model_settings: Mapping[str, Any],
    names: pd.DataFrame,
    settings: Mapping[str, Any],
    races: list[str],
    store_dir: str | Path,
) -> tuple[pd.DataFrame, AskSummary]:
    """Ask ``model`` (unless its store knows) what it reads in every name; the COLUMNS table.
    ``settings`` is the config's names.validity."""
    asked = questions(names, settings, races)
    requests = [
        Request(p, tuple(c), a)
        for p, c, a in zip(asked["prompt"], asked["choices"], asked["about"], strict=True)
    ]
    loaded: list[Backend] = []

    def backend() -> Backend:
        if not loaded:
            loaded.append(
                load_backend(
                    model_settings["backend"],
                    model_settings,
                    state_dir=batch_journal_dir(store_dir, model),
                )
            )
        return loaded[0]

    store = ResponseStore.open(store_dir, model, label="names")
    try:
        responses, summary = ask(
            requests, store, model_identity(model_settings), backend, label=f"{model} names"
        )
    finally:
        store.close()
    # the loaded model's tokenizer, or (every answer from the store) the tokenizer alone
    tokenizer = (
        getattr(loaded[0], "tokenizer", None)
        if loaded
        else load_tokenizer(model_settings["backend"], model_settings)
    )
    tokens = {name: token_count(tokenizer, f" {name}") for name in names["name"]}
    if not loaded:
        log.info("%s: every answer from the store, tokens counted without loading the model", model)
    answers = [r.answer for r in responses]
    table = perceived(names, asked, answers, [r.logprobs for r in responses], tokens)
    return table, summary
