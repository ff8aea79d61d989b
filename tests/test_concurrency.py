"""Eight processes answering overlapping questions into one store at once."""

from __future__ import annotations

import multiprocessing
import sqlite3

from hiremeornot.asking import ask
from hiremeornot.backends.base import Request
from hiremeornot.store import ResponseStore
from tests.doubles import CountingBackend

IDENTITY = {"backend": "transformers", "model": "m"}
WORKERS = 8


def worker(path: str, index: int) -> int:
    """Answer questions 0-299 shifted by the worker's index (most overlap with the others)."""
    requests = [Request(f"Question {(i + index * 25) % 400}?", ("Yes", "No")) for i in range(300)]
    backend = CountingBackend(batch_size=7)
    responses, _ = ask(requests, ResponseStore(path), IDENTITY, lambda: backend)
    assert [r.answer for r in responses] == [r.answer for r in backend.answer(requests)]
    return len(responses)


def test_eight_processes_lose_and_duplicate_nothing(tmp_path):
    path = str(tmp_path / "store.sqlite")
    context = multiprocessing.get_context("spawn")
    with context.Pool(WORKERS) as pool:
        counts = pool.starmap(worker, [(path, i) for i in range(WORKERS)])
    assert counts == [300] * WORKERS
    rows = sqlite3.connect(path).execute("SELECT prompt, COUNT(*) FROM answers GROUP BY prompt")
    per_prompt = dict(rows.fetchall())
    expected = {f"Question {(i + w * 25) % 400}?" for w in range(WORKERS) for i in range(300)}
    assert set(per_prompt) == expected
    assert set(per_prompt.values()) == {1}
