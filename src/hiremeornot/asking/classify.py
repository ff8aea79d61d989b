"""A second model reads the free replies (a model's ``free_classifier``): where the parser
(free_replies.py) finds no answer, the classifier's reading stands; where the parser reads one,
the two readings are set side by side, so that the run says how often they agree.

Each reply with any text is put to the classifier as a constrained question: the question the
audited model was asked, its reply, and the question's answer words plus ``refused`` and
``other`` to choose from (CLASSIFIER_PROMPT). Its answers are kept in a store of their own
(``<store_dir>/<model>+classifier/``: store.classifier_store_name), keyed by the classifier's
identity, so a run repeated asks it nothing, and a changed classifier misses only its own
answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from hiremeornot.asking.ask import AskSummary, ask
from hiremeornot.asking.backends import Request, load_backend, model_identity
from hiremeornot.asking.free_replies import CLASSIFIER_RULE, OTHER, REFUSED, UNPARSED
from hiremeornot.asking.store import ResponseStore, batch_journal_dir, classifier_store_name
from hiremeornot.errors import InputError

LABELS = (REFUSED, OTHER)  # what the classifier may answer beside the question's answer words
CLASSIFIER_PROMPT = """\
Someone was asked the question below and gave the reply below. Which answer does the reply give?

Question:
<<<
{question}
>>>

Reply:
<<<
{reply}
>>>

Answer with exactly one of: {choices}. Answer "{refused}" if the reply declines to answer, and \
"{other}" if it gives none of the other answers alone (it hedges, gives several, or gives one \
not listed)."""


def classifier_request(question: str, reply: str, choices: tuple[str, ...]) -> Request:
    """The classifier's question on one reply to a question offering ``choices``."""
    if set(choices) & set(LABELS):
        raise InputError(
            f"an answer word of {list(choices)} is one of the classifier's own {list(LABELS)}: "
            "rename it (answers.*) or remove the model's free_classifier"
        )
    words = (*choices, *LABELS)
    prompt = CLASSIFIER_PROMPT.format(
        question=question.strip(),
        reply=reply.strip(),
        choices=", ".join(f'"{word}"' for word in words),
        refused=REFUSED,
        other=OTHER,
    )
    return Request(prompt, words)


def read_by_classifier(
    table: pd.DataFrame,
    model: str,
    classifier: Mapping[str, Any],
    store_dir: str | Path,
    segment: str,
    label: str,
) -> tuple[pd.DataFrame, AskSummary]:
    """The free answers table (steps.attach_answers) with the classifier's reading of each
    reply with any text (``classified``: a role, ``refused`` or ``other``; None for an empty
    reply) and, where the parser left a reply ``unparsed``, its answer, role and rule taken
    from the classifier (``segment``: the job's name in the store, ``label`` on the
    terminal)."""
    has_text = table["reply"].fillna("").str.strip().astype(bool)
    rows = table[has_text]
    requests = [
        classifier_request(prompt, reply, tuple(choices))
        for prompt, reply, choices in zip(
            rows["prompt"], rows["reply"], rows["choices"], strict=True
        )
    ]
    store = ResponseStore.open(store_dir, classifier_store_name(model), label=segment)
    try:
        responses, summary = ask(
            requests,
            store,
            model_identity(classifier),
            lambda: load_backend(
                classifier["backend"],
                classifier,
                state_dir=batch_journal_dir(store_dir, classifier_store_name(model)),
            ),
            label=f"{label} read by its classifier",
        )
    finally:
        store.close()
    roles = [
        r.answer if r.answer in LABELS else list(row_roles)[list(choices).index(r.answer)]
        for r, choices, row_roles in zip(responses, rows["choices"], rows["roles"], strict=True)
    ]
    table = table.copy()
    answers = pd.Series([r.answer for r in responses], index=rows.index, dtype=object)
    table["classified"] = pd.Series(roles, index=rows.index, dtype=object).reindex(table.index)
    mended = has_text & (table["choice"] == UNPARSED)
    table.loc[mended, "answer"] = answers.reindex(table.index)[mended]
    table.loc[mended, "choice"] = table.loc[mended, "classified"]
    table.loc[mended, "rule"] = CLASSIFIER_RULE
    return table, summary
