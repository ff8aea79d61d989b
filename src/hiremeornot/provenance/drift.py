"""Drift checks: ask a seeded sample of a model's stored questions again, and compare.

An API model behind a fixed name can change without notice (a new snapshot behind an alias, a
new serving stack). The store keeps every answer with the model id and system fingerprint the
server reported (store.py); this module re-asks a sample of the questions stored under the
config's current settings of the model, **bypassing the store and writing nothing to it**, and
reports how many answers agree, how each choice's probability (normalised over the answer
space) moved, and whether the server now reports another model id or fingerprint.

It works for every backend: for a local model it checks that the same weights, libraries and
hardware still give the same answers (such backends report no model id or fingerprint).
See docs/compare.md.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from hiremeornot.analysis.metrics import answer_probabilities
from hiremeornot.analysis.truth import poisson_binomial
from hiremeornot.asking.backends import Backend, Request, Response, model_identity
from hiremeornot.asking.backends.base import PartialBatchError
from hiremeornot.asking.store import request_key
from hiremeornot.asking.store_maintenance import stored_answers
from hiremeornot.errors import InputError

log = logging.getLogger(__name__)
ALPHA = 0.05  # the level of the test of agreement against sampling alone

DRIFT_COLUMNS = [
    "key",
    "prompt",
    "choice",
    "stored_answer",
    "answer",
    "agree",
    "stored_logprob",
    "logprob",
    "stored_p",
    "p",
    "change_p",
    "stored_served_model",
    "served_model",
    "stored_fingerprint",
    "system_fingerprint",
]


@dataclass(frozen=True)
class Drift:
    """A drift check's sample and its answers then and now."""

    model: str
    backend: str
    stored: int  # answers in the model's store
    current: int  # of those, stored under the config's current settings
    seed: int
    table: pd.DataFrame  # DRIFT_COLUMNS, one row per sampled question and choice
    settings: Mapping[str, Any]

    @property
    def questions(self) -> pd.DataFrame:
        """One row per sampled question."""
        return self.table.drop_duplicates("key")


def current_answers(
    store_dir: str | Path, model: str, settings: Mapping[str, Any]
) -> tuple[int, pd.DataFrame]:
    """(answers in the store, those stored under the current settings), sorted by key."""
    table = stored_answers(store_dir, model)
    if table.empty:
        raise InputError(f"{Path(store_dir) / model}: no stored answers (run the audit first)")
    identity = model_identity(settings)
    keys = [
        request_key(identity, Request(prompt, choices))
        for prompt, choices in zip(table["prompt"], table["choices"], strict=True)
    ]
    current = table[table["key"] == pd.Series(keys, index=table.index)]
    if current.empty:
        raise InputError(
            f"{Path(store_dir) / model}: none of its {len(table)} stored answers was asked with "
            f"the config's current settings of {model!r} (the store keys them by the settings "
            "that can change an answer); run the audit with these settings first"
        )
    return len(table), current.sort_values("key", ignore_index=True)


def sample(current: pd.DataFrame, *, size: int, seed: int) -> pd.DataFrame:
    """A seeded sample of ``size`` stored answers (all, if fewer), in key order."""
    if size < 1:
        raise InputError(f"--sample: {size}; ask at least one question")
    if size >= len(current):
        return current
    chosen = np.random.default_rng(seed).choice(len(current), size=size, replace=False)
    return current.iloc[np.sort(chosen)].reset_index(drop=True)


def ask_again(requests: Sequence[Request], backend: Backend) -> list[Response]:
    """The backend's answers to ``requests``, in order, in its batches (no store involved)."""
    backend.preflight(requests)
    responses: list[Response] = []
    for begin in range(0, len(requests), backend.batch_size):
        batch = requests[begin : begin + backend.batch_size]
        try:
            responses += backend.answer(batch)
        except PartialBatchError as error:
            raise InputError(
                f"the drift check stopped: {len(error.answered)} of a batch of {len(batch)} "
                f"answered, then {error}"
            ) from None
        log.info("asked %d of %d", len(responses), len(requests))
    return responses


def drift_table(chosen: pd.DataFrame, responses: Sequence[Response]) -> pd.DataFrame:
    """One row per sampled question and choice: the stored and the new answer, log-probability
    and probability of the choice, and the served model and fingerprint then and now."""
    rows = []
    for stored, now in zip(chosen.itertuples(index=False), responses, strict=True):
        before = answer_probabilities(stored.logprobs)
        after = answer_probabilities(now.logprobs)
        for i, choice in enumerate(stored.choices):
            rows.append(
                (
                    stored.key,
                    stored.prompt,
                    choice,
                    stored.answer,
                    now.answer,
                    stored.answer == now.answer,
                    stored.logprobs[i],
                    now.logprobs[i],
                    before[i],
                    after[i],
                    after[i] - before[i],
                    None if pd.isna(stored.served_model) else stored.served_model,
                    now.served_model,
                    None if pd.isna(stored.system_fingerprint) else stored.system_fingerprint,
                    now.system_fingerprint,
                )
            )
    return pd.DataFrame(rows, columns=DRIFT_COLUMNS)


def check_drift(
    store_dir: str | Path,
    model: str,
    settings: Mapping[str, Any],
    *,
    size: int,
    seed: int,
    load: Callable[[], Backend],
) -> Drift:
    """Re-ask a seeded sample of ``model``'s stored questions (``settings``: its validated
    settings) of the backend ``load`` builds; the store is only read."""
    stored, current = current_answers(store_dir, model, settings)
    chosen = sample(current, size=size, seed=seed)
    requests = [Request(p, c) for p, c in zip(chosen["prompt"], chosen["choices"], strict=True)]
    log.info("%s: asking %d of %d stored questions again", model, len(requests), len(current))
    backend = load()
    try:
        responses = ask_again(requests, backend)
    finally:
        backend.close()
    return Drift(
        model=model,
        backend=settings["backend"],
        stored=stored,
        current=len(current),
        seed=seed,
        table=drift_table(chosen, responses),
        settings=settings,
    )


def _changed(questions: pd.DataFrame, stored: str, now: str) -> int:
    """Questions whose stored value was recorded and differs from today's."""
    before, after = questions[stored], questions[now]
    return int((before.notna() & (before != after)).sum())


def sampling_agreement(drift: Drift) -> tuple[float, float] | None:
    """At temperature T > 0, what sampling alone gives an unchanged model: (expected number of
    agreeing answers, P(as few agree as observed)). Each question's two answers are independent
    draws from the stored probabilities over its answer space sharpened by T (p^(1/T),
    renormalised), so it agrees with probability sum_c p_c^2, and the count of agreements is
    Poisson-binomial. None at temperature 0 or unset, or where a stored probability is unknown."""
    temperature = drift.settings.get("temperature")
    if not temperature:
        return None
    stored = drift.table.groupby("key", sort=False)["stored_logprob"].agg(list)
    if stored.map(lambda values: np.isnan(values).any()).any():
        return None
    chance = np.array(
        [(answer_probabilities(np.array(v) / temperature) ** 2).sum() for v in stored]
    )
    pmf = poisson_binomial(chance[None, :])[0]
    agree = int(drift.questions["agree"].sum())
    return float(chance.sum()), float(min(1.0, pmf[: agree + 1].sum()))


def findings(drift: Drift) -> dict[str, Any]:
    """The verdict and the numbers it rests on: ``verdict`` is ``drift detected``, ``not
    tested`` or ``no drift``, ``drifted_by`` what showed drift (``answers`` changed at
    temperature 0, fewer agreeing than ``sampling`` alone gives, the served ``model id``, the
    ``fingerprint``)."""
    from scipy.stats import binomtest  # scipy.stats where it runs (analysis/distributions.py)

    questions = drift.questions
    n = len(questions)
    agree = int(questions["agree"].sum())
    sampling = sampling_agreement(drift)
    interval = binomtest(agree, n).proportion_ci(0.95)
    known = drift.table.dropna(subset=["change_p"])
    largest = known.loc[known["change_p"].abs().idxmax()] if len(known) else None
    changed = {
        "model id": _changed(questions, "stored_served_model", "served_model"),
        "fingerprint": _changed(questions, "stored_fingerprint", "system_fingerprint"),
    }
    drifted_by = _drifted_by(agree < n, sampling, drift.settings.get("temperature"), changed)
    if drifted_by:
        verdict = "drift detected"
    elif agree < n and sampling is None:
        verdict = "not tested"  # sampling alone may change answers, by how much is not known
    else:
        verdict = "no drift"
    return {
        "verdict": verdict,
        "drifted_by": drifted_by,
        "n": n,
        "agree": agree,
        "rate": agree / n,
        "low": interval.low,
        "high": interval.high,
        "known": known["key"].nunique(),
        "mean_change": known["change_p"].abs().mean() if len(known) else float("nan"),
        "max_change": abs(largest["change_p"]) if largest is not None else float("nan"),
        "largest": largest,
        "model_changed": changed["model id"],
        "fingerprint_changed": changed["fingerprint"],
        "unrecorded": int(questions["stored_served_model"].isna().sum()),
        "reported": int(questions["served_model"].notna().sum()),
        "expected_agree": sampling[0] if sampling else None,
        "sampling_p": sampling[1] if sampling else None,
    }


def _drifted_by(
    changed_answers: bool,
    sampling: tuple[float, float] | None,
    temperature: float | None,
    identities: dict[str, int],
) -> list[str]:
    """What shows drift: at temperature > 0, fewer answers agreeing than sampling alone gives
    (``sampling``: its expected agreement and the chance of as few); at temperature 0, any
    changed answer; and a changed model id or fingerprint."""
    reasons = []
    if changed_answers and sampling is not None:
        if sampling[1] < ALPHA:
            reasons.append("sampling")
    elif changed_answers and not temperature:
        reasons.append("answers")
    return reasons + [what for what, count in identities.items() if count]
