"""Content-addressed response store: one SQLite file per model, safe for concurrent jobs.

An answer is keyed by a SHA-256 of (model identity and settings, exact prompt, answer space), so
the same question is never asked twice, and a changed prompt misses only its own entries.
Answers are committed batch by batch: a killed job loses at most the batch it was asking.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from hiremeornot.backends.base import Request, Response
from hiremeornot.errors import InputError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (
    key TEXT PRIMARY KEY,
    prompt TEXT NOT NULL,
    choices TEXT NOT NULL,
    answer TEXT NOT NULL,
    logprobs TEXT NOT NULL,
    created REAL NOT NULL
)
"""


def request_key(identity: Mapping[str, Any], request: Request) -> str:
    """The content address of a request asked of one model."""
    payload = json.dumps(
        {"model": identity, "prompt": request.prompt, "choices": list(request.choices)},
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class ResponseStore:
    """Answers already obtained from one model."""

    def __init__(self, path: str | Path, timeout_s: float = 600.0):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = self._open(timeout_s)

    def _open(self, timeout_s: float) -> sqlite3.Connection:
        """The connection, the store's table made; an InputError naming a file it cannot use."""
        db = None
        try:
            db = sqlite3.connect(self.path, timeout=timeout_s, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(_SCHEMA)
            return db
        except sqlite3.DatabaseError as exc:
            if db is not None:
                db.close()
            if isinstance(exc, sqlite3.OperationalError):  # a folder, not writable, locked, ...
                raise InputError(f"{self.path}: cannot open the response store ({exc})") from None
            raise InputError(  # not SQLite, or damaged
                f"{self.path}: not a readable response store ({exc}); move it away to ask again"
            ) from None

    def get(self, keys: Iterable[str]) -> dict[str, Response]:
        """The stored responses among ``keys``."""
        keys = list(keys)
        found: dict[str, Response] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                f"SELECT key, answer, logprobs FROM answers WHERE key IN ({marks})", chunk
            )
            for key, answer, logprobs in rows:
                found[key] = Response(answer, tuple(json.loads(logprobs)))
        return found

    def put(self, entries: Iterable[tuple[str, Request, Response]]) -> None:
        """Store responses atomically; a response outside its answer space is refused."""
        rows = []
        for key, request, response in entries:
            if response.answer not in request.choices:
                raise ValueError(f"refusing to store {response.answer!r}: not in {request.choices}")
            if len(response.logprobs) != len(request.choices):
                raise ValueError("one log-probability per choice is required")
            rows.append(
                (
                    key,
                    request.prompt,
                    json.dumps(list(request.choices)),
                    response.answer,
                    json.dumps(list(response.logprobs)),
                    time.time(),
                )
            )
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany("INSERT OR IGNORE INTO answers VALUES (?, ?, ?, ?, ?, ?)", rows)

    def __len__(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM answers").fetchone()[0]

    def close(self) -> None:
        self._db.close()
