"""Time one full lookup of a paper-size Step 1 (186,000 answers) in the response store.

Prints the lookup time over ~20 segments (one per job) and over the old single-file layout
(one WAL file, chunked key lookups), side by side, with their ratio.
Run: .venv/bin/python benchmarks/store_lookup.py [answers] [segments]
"""

from __future__ import annotations

import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from hiremeornot.asking.backends.base import Request, Response
from hiremeornot.asking.store import ResponseStore, request_key

IDENTITY = {"backend": "transformers", "model": "m"}


def old_lookup(path: Path, keys: list[str]) -> int:
    """The lookup of the old single-file store: key IN (...) chunks of 500."""
    db = sqlite3.connect(path)
    found = 0
    for start in range(0, len(keys), 500):
        chunk = keys[start : start + 500]
        marks = ",".join("?" * len(chunk))
        query = f"SELECT key, answer, logprobs FROM answers WHERE key IN ({marks})"
        for _, _, logprobs in db.execute(query, chunk):
            json.loads(logprobs)
            found += 1
    return found


def main(answers: int = 186_000, parts: int = 20) -> None:
    requests = [
        Request(f"Mary and James apply. Does Mary have skill {i}? Answer Yes or No.", ("Yes", "No"))
        for i in range(answers)
    ]
    keys = [request_key(IDENTITY, r) for r in requests]
    entries = [(k, r, Response("Yes", (-0.1, -2.3))) for k, r in zip(keys, requests, strict=True)]
    with tempfile.TemporaryDirectory() as folder:
        size = -(-answers // parts)
        for part in range(parts):
            store = ResponseStore.open(folder, "m", label=f"step1-shard{part}")
            store.put(entries[part * size : (part + 1) * size])
            store.close()
        old = ResponseStore.open(folder, "old", label="all")  # the same rows in one file...
        old.put(entries)
        old.close()
        single = Path(folder) / "old.sqlite"  # ... moved where the old layout kept it
        old.segment.rename(single)
        sqlite3.connect(single).execute("PRAGMA journal_mode=WAL").close()

        start = time.perf_counter()
        found = len(ResponseStore.open(folder, "m").get(keys))
        segmented = time.perf_counter() - start
        start = time.perf_counter()
        found_old = old_lookup(single, keys)
        single_file = time.perf_counter() - start
    assert found == found_old == answers
    print(f"{answers} answers, {parts} segments: {segmented:.2f} s")
    print(f"{answers} answers, old single file: {single_file:.2f} s")
    print(f"ratio segments / single file: {segmented / single_file:.2f}")


if __name__ == "__main__":
    main(*map(int, sys.argv[1:]))
