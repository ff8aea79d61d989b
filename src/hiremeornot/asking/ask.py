"""Answer requests from the store when possible and from the model otherwise."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from hiremeornot.asking.backends.base import Backend, PartialBatchError, Request, Response
from hiremeornot.asking.progress import ProgressFile
from hiremeornot.asking.store import ResponseStore, request_key


@dataclass
class AskSummary:
    """What one job asked: distinct questions, how many went to the model, how long it took,
    and for a priced API model the estimated cost of those asked (``usd``; None: not priced)."""

    questions: int
    asked: int
    from_store: int
    seconds: float
    usd: float | None = None

    def line(self, label: str) -> str:
        return (
            f"{label}: {self.questions} distinct questions, {self.asked} asked of the model, "
            f"{self.from_store} answered from the store, {self.seconds:.1f} s"
        )


def ask(
    requests: Sequence[Request],
    store: ResponseStore,
    identity: dict,
    load_backend: Callable[[], Backend],
    label: str = "questions",
    progress: str | Path | None = None,
) -> tuple[list[Response], AskSummary]:
    """Responses for ``requests`` (in order); the backend is loaded only if the store misses.
    ``progress``: a file that follows the questions answered (progress.ProgressFile)."""
    start = time.monotonic()
    unique = list(dict.fromkeys(requests))
    keys = {request: request_key(identity, request) for request in unique}
    known = store.get(keys.values())
    # sorted by prompt, so that a batch shares long prefixes and similar lengths
    missing = sorted((r for r in unique if keys[r] not in known), key=lambda r: r.prompt)
    answered = {request: known[keys[request]] for request in unique if keys[request] in known}
    usd = None
    if missing:
        store.writer()  # a store that cannot keep the answers fails before any is asked
        backend = load_backend()
        try:
            usd, asked = ask_model(backend, missing, keys, store, label, progress)
        finally:
            backend.close()
        answered.update(asked)
    summary = AskSummary(
        questions=len(unique),
        asked=len(missing),
        from_store=len(unique) - len(missing),
        seconds=time.monotonic() - start,
        usd=usd,
    )
    return [answered[request] for request in requests], summary


def ask_model(
    backend: Backend,
    missing: Sequence[Request],
    keys: dict[Request, str],
    store: ResponseStore,
    label: str,
    progress: str | Path | None,
) -> tuple[float | None, dict[Request, Response]]:
    """The backend's estimated cost and answers to ``missing``, asked in its batches, each batch
    stored as it comes (a PartialBatchError stores the answers it holds, then stops the job)."""
    usd = backend.preflight(missing)
    answered: dict[Request, Response] = {}
    bar = tqdm(total=len(missing), desc=label, unit="q", mininterval=2.0)
    shown = ProgressFile(progress, label, len(missing), usd) if progress else None
    for begin in range(0, len(missing), backend.batch_size):
        batch = missing[begin : begin + backend.batch_size]
        try:
            responses = backend.answer(batch)
        except PartialBatchError as error:  # keep what was obtained, then fail
            store.put((keys[batch[i]], batch[i], r) for i, r in error.answered.items())
            raise
        store.put((keys[r], r, response) for r, response in zip(batch, responses, strict=True))
        answered.update(zip(batch, responses, strict=True))
        bar.update(len(batch))
        if shown:
            shown.update(len(batch))
    bar.close()
    if shown:
        shown.close()
    return usd, answered
