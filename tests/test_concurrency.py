"""Eight processes, on two simulated hosts, answering overlapping questions into one model's
store at once, while another process reads it."""

from __future__ import annotations

import multiprocessing
import socket

from hiremeornot.asking.ask import ask
from hiremeornot.asking.backends.base import Request
from hiremeornot.asking.store import (
    ResponseStore,
    request_key,
    scratch_connection,
    segments,
    visit_segments,
)
from tests.helpers.doubles import CountingBackend

IDENTITY = {"backend": "transformers", "model": "m"}
WORKERS = 8
EVERY = [Request(f"Question {i}?", ("Yes", "No")) for i in range(400)]


def worker(store_dir: str, index: int, host: str, start) -> int:
    """Answer questions 0-299 shifted by the worker's index (most overlap with the others), as a
    job of ``host``: its own process, connection and segment, no lock shared with the others."""
    socket.gethostname = lambda: host  # this process only (spawned)
    requests = [EVERY[(i + index * 25) % 400] for i in range(300)]
    backend = CountingBackend(batch_size=7)
    store = ResponseStore.open(store_dir, "m", label=f"step1-shard{index}")
    start.wait()  # all at once
    responses, _ = ask(requests, store, IDENTITY, lambda: backend)
    assert [r.answer for r in responses] == [r.answer for r in backend.answer(requests)]
    return len(responses)


def reader(store_dir: str, stop) -> list[int]:
    """Read the whole store again and again until told to stop: every answer read is right."""
    answers = CountingBackend().answer(EVERY)
    expected = {request_key(IDENTITY, r): a for r, a in zip(EVERY, answers, strict=True)}
    counts = []
    while not stop.is_set() or not counts:
        found = ResponseStore.open(store_dir, "m").get(expected)
        assert all(expected[key].answer == found[key].answer for key in found)
        counts.append(len(found))
    return counts


def test_writers_on_two_hosts_and_a_reader_lose_and_corrupt_nothing(tmp_path):
    context = multiprocessing.get_context("spawn")
    manager = context.Manager()
    stop, start = manager.Event(), manager.Barrier(WORKERS)
    with context.Pool(WORKERS + 1) as pool:
        reading = pool.apply_async(reader, (str(tmp_path), stop))
        hosts = [("node-a" if i % 2 else "node-b.cluster") for i in range(WORKERS)]
        jobs = [(str(tmp_path), i, hosts[i], start) for i in range(WORKERS)]
        counts = pool.starmap(worker, jobs, chunksize=1)
        stop.set()
        reads = reading.get(timeout=120)
    assert counts == [300] * WORKERS
    assert reads == sorted(reads)  # a reader never loses an answer it saw before
    files = segments(tmp_path / "m")
    assert 2 <= len(files) <= WORKERS  # each job its own segment (if it had to ask)
    assert {f.name.split("@")[1].rsplit("-", 2)[0] for f in files} == {"node-a", "node-b.cluster"}
    assert not list((tmp_path / "m").glob("*-wal")) and not list((tmp_path / "m").glob("*-shm"))
    expected = {EVERY[(i + w * 25) % 400].prompt for w in range(WORKERS) for i in range(300)}
    db = scratch_connection()
    prompts: list[str] = []
    visit_segments(
        db,
        tmp_path / "m",
        lambda: prompts.extend(p for (p,) in db.execute("SELECT prompt FROM seg.answers")),
    )
    assert set(prompts) == expected  # every question stored, none lost
    final = ResponseStore.open(tmp_path, "m").get(request_key(IDENTITY, r) for r in EVERY)
    assert len(final) == len(expected)
