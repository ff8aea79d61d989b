"""Content-addressed response store: per model, a folder of SQLite segments, one per writing job.

An answer is keyed by a SHA-256 of (model identity and settings, exact prompt, answer space), so
the same question is never asked twice, and a changed prompt misses only its own entries.
Each job writes only its own segment (rollback journal: no WAL, no shared memory), committed batch
by batch: a killed job loses at most the batch it was asking, and no file is ever written by two
processes, so writers on several hosts of a shared file system need no working locks. Readers take
the union of every segment; a segment that cannot be read costs only its answers (one warning
naming it), and one compacted away while being read is found again in the merged file.
See docs/store.md.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import re
import secrets
import socket
import sqlite3
import time
import urllib.parse
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from hiremeornot.asking.backends.base import CONSTRAINED_ONLY, Request, Response
from hiremeornot.asking.free_replies import NON_ANSWERS
from hiremeornot.errors import InputError, first_line

log = logging.getLogger(__name__)

# Every segment has these; segments written before the served model was recorded have no more.
REQUIRED_COLUMNS = ("key", "prompt", "choices", "answer", "logprobs", "created")
# What an API reported serving each answer (NULL for backends that report nothing, and in
# older segments, which lack the columns and read as NULL).
IDENTITY_COLUMNS = ("served_model", "system_fingerprint")
# The probability the model put on the answer space before the constraint (NULL where the
# backend does not see it, and in segments written before it was recorded).
MASS_COLUMNS = ("answer_mass",)
# A free question's raw reply (NULL for a constrained one, and in older segments).
REPLY_COLUMNS = ("reply",)
COLUMNS = REQUIRED_COLUMNS + IDENTITY_COLUMNS + MASS_COLUMNS + REPLY_COLUMNS
# The column layouts of the segments of each release: every one reads with NULL for the rest.
LAYOUTS = (
    REQUIRED_COLUMNS,
    REQUIRED_COLUMNS + IDENTITY_COLUMNS,
    REQUIRED_COLUMNS + IDENTITY_COLUMNS + MASS_COLUMNS,
    COLUMNS,
)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (
    key TEXT PRIMARY KEY,
    prompt TEXT NOT NULL,
    choices TEXT NOT NULL,
    answer TEXT NOT NULL,
    logprobs TEXT NOT NULL,
    created REAL NOT NULL,
    served_model TEXT,
    system_fingerprint TEXT,
    answer_mass REAL,
    reply TEXT
)
"""
_RESPONSE_COLUMNS = ("key", "answer", "logprobs", *IDENTITY_COLUMNS, *MASS_COLUMNS, "reply")
_ATTEMPTS = 3  # a segment being committed by its writer is read again after a short pause


def request_key(identity: Mapping[str, Any], request: Request) -> str:
    """The content address of a request asked of one model (a constrained one's as before free
    questions existed; a free one's with its token budget, less the model's settings only a
    constrained question reads, CONSTRAINED_ONLY)."""
    asked = {"model": identity, "prompt": request.prompt, "choices": list(request.choices)}
    if request.free_tokens is not None:
        asked["free_tokens"] = request.free_tokens
        asked["model"] = {k: v for k, v in identity.items() if k not in CONSTRAINED_ONLY}
    payload = json.dumps(asked, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def legacy_file(folder: Path) -> Path:
    """The single-file store of the old layout, ``<store_dir>/<model>.sqlite``."""
    return folder.with_name(folder.name + ".sqlite")


def segments(folder: Path) -> list[Path]:
    """The segment files of a model's store folder, an old single-file store (if any) last."""
    found = sorted(folder.glob("*.sqlite")) if folder.is_dir() else []
    legacy = legacy_file(folder)
    return found + ([legacy] if legacy.is_file() else [])


def new_segment_name(label: str) -> str:
    """``<label>@<host>-<pid>-<random>.sqlite``: a name no other process, on any host, picks."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", label)
    return f"{safe}@{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(4)}.sqlite"


def uri(path: Path, mode: str = "ro") -> str:
    return f"file:{urllib.parse.quote(str(path.absolute()))}?mode={mode}"


def create_segment(path: Path) -> sqlite3.Connection:
    """A new segment at ``path``, its table made before it appears under that name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    db = sqlite3.connect(uri(partial, "rwc"), uri=True, isolation_level=None)
    db.execute("PRAGMA journal_mode=DELETE")
    db.execute(_SCHEMA)
    db.close()
    os.replace(partial, path)
    db = sqlite3.connect(uri(path, "rw"), uri=True, isolation_level=None)
    db.execute("PRAGMA journal_mode=DELETE")
    return db


def _writer_died_here(path: Path) -> bool:
    """Whether the segment's writer was a process of this host that no longer runs."""
    try:
        host, pid, _ = path.stem.rpartition("@")[2].rsplit("-", 2)
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return host == socket.gethostname()
    except (ValueError, OSError):  # not a segment name, or a process of another user
        return False
    return False


def _roll_back(path: Path) -> None:
    """Undo the half-done commit of a dead writer (SQLite does it on the first read-write open)."""
    db = sqlite3.connect(path)
    try:
        db.execute("SELECT COUNT(*) FROM answers").fetchone()
    finally:
        db.close()


def read_segment(db: sqlite3.Connection, path: Path, read: Callable[[], None]) -> bool:
    """Attach ``path`` read-only to ``db`` as ``seg`` and call ``read`` (which must be safe to
    repeat); False, with one warning naming the file, if it stays unreadable, and False without
    a warning if it vanished.

    A segment left mid-commit by a dead writer of this host is rolled back first.
    """
    error: sqlite3.DatabaseError | None = None
    for attempt in range(_ATTEMPTS):
        if not path.exists():
            return False
        rejected = error is not None and error.sqlite_errorname == "SQLITE_READONLY_ROLLBACK"
        if rejected and _writer_died_here(path):
            _roll_back(path)
        try:
            db.execute("ATTACH DATABASE ? AS seg", (uri(path),))
        except sqlite3.DatabaseError as exc:
            error = exc
        else:
            try:
                read()
                return True
            except sqlite3.DatabaseError as exc:
                error = exc
            finally:
                db.execute("DETACH DATABASE seg")
        if not isinstance(error, sqlite3.OperationalError):
            break  # damaged: reading again will not help
        time.sleep(0.1 * (attempt + 1))
    if path.exists():
        log.warning(
            "%s: skipped, not a readable store segment (%s); its answers are asked again",
            path,
            first_line(error) if error else "unknown error",
        )
    return False


def visit_segments(db: sqlite3.Connection, folder: Path, read: Callable[[], None]) -> list[Path]:
    """Call ``read`` with each segment of ``folder`` attached as ``seg``; the segments read.

    A segment that vanishes before it is read was compacted away: the folder is listed again,
    and the merged file (renamed in before its sources are removed) is read instead.
    """
    seen: set[Path] = set()
    done: list[Path] = []
    while True:
        fresh = [path for path in segments(folder) if path not in seen]
        seen.update(fresh)
        vanished = False
        for path in fresh:
            if read_segment(db, path, read):
                done.append(path)
            else:
                vanished = vanished or not path.exists()
        if not vanished:
            return done


def segment_columns(db: sqlite3.Connection, columns: Iterable[str] = COLUMNS) -> str:
    """The SELECT list of ``columns`` from the attached segment ``seg``: NULL for the columns
    of a segment written before they existed."""
    present = {row[1] for row in db.execute("PRAGMA seg.table_info(answers)")}
    return ", ".join(c if c in present else f"NULL AS {c}" for c in columns)


def scratch_connection() -> sqlite3.Connection:
    """An in-memory database that segments can be attached to."""
    return sqlite3.connect("file::memory:", uri=True, isolation_level=None, timeout=2.0)


def classifier_store_name(model: str) -> str:
    """The name of the store of ``model``'s free_classifier ("+" is in no model's name)."""
    return f"{model}+classifier"


def batch_journal_dir(store_dir: str | Path, model: str) -> Path:
    """Where a model's Batch API journal lives: beside its store, so that a re-run resumes the
    batches it submitted (every job that asks the model uses this one)."""
    return Path(store_dir) / f"{model}-batches"


class ResponseStore:
    """Answers already obtained from one model: read from every segment of its folder, written
    only to this store's own segment (made at the first answer)."""

    def __init__(self, folder: str | Path, label: str = "job"):
        self.folder = Path(folder)
        if self.folder.exists() and not self.folder.is_dir():
            raise InputError(f"{self.folder}: a file where the store's folder of segments belongs")
        if legacy_file(self.folder).is_file():
            log.info(
                "%s: a single-file store of the old layout, read as one more segment "
                "(hiremeornot store compact moves it into %s)",
                legacy_file(self.folder),
                self.folder,
            )
        self.segment = self.folder / new_segment_name(label)
        self._writer: sqlite3.Connection | None = None
        self._reader = scratch_connection()

    @classmethod
    def open(cls, store_dir: str | Path, model: str, label: str = "job") -> ResponseStore:
        """The store of ``model``: the folder ``<store_dir>/<model>/``."""
        return cls(Path(store_dir) / model, label)

    def get(self, keys: Iterable[str]) -> dict[str, Response]:
        """The stored responses among ``keys``."""
        with self._reader:  # one transaction, keys in order: a fast index to join with
            self._reader.execute("BEGIN")
            self._reader.execute("DROP TABLE IF EXISTS wanted")
            self._reader.execute("CREATE TABLE wanted (key TEXT PRIMARY KEY) WITHOUT ROWID")
            self._reader.executemany(
                "INSERT INTO wanted VALUES (?)", ((k,) for k in sorted(set(keys)))
            )
        found: dict[str, Response] = {}

        def read() -> None:
            rows = self._reader.execute(
                f"SELECT {segment_columns(self._reader, _RESPONSE_COLUMNS)} FROM seg.answers "
                "CROSS JOIN wanted USING (key)"
            ).fetchall()
            for key, answer, logprobs, served_model, fingerprint, mass, reply in rows:
                found.setdefault(
                    key,
                    Response(
                        answer,
                        tuple(json.loads(logprobs)),
                        served_model,
                        fingerprint,
                        math.nan if mass is None else mass,
                        reply,
                    ),
                )

        visit_segments(self._reader, self.folder, read)
        return found

    def put(self, entries: Iterable[tuple[str, Request, Response]]) -> None:
        """Store responses atomically; a response outside its answer space is refused (a free
        reply's reading may also be a non-answer)."""
        rows = []
        for key, request, response in entries:
            allowed = request.choices + (NON_ANSWERS if response.reply is not None else ())
            if response.answer not in allowed:
                raise ValueError(f"refusing to store {response.answer!r}: not in {allowed}")
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
                    response.served_model,
                    response.system_fingerprint,
                    None if math.isnan(response.answer_mass) else response.answer_mass,
                    response.reply,
                )
            )
        if not rows:
            return
        writer = self.writer()
        with writer:
            writer.execute("BEGIN IMMEDIATE")
            writer.executemany(
                f"INSERT OR IGNORE INTO answers ({', '.join(COLUMNS)}) "
                f"VALUES ({', '.join('?' * len(COLUMNS))})",
                rows,
            )

    def writer(self) -> sqlite3.Connection:
        """This store's own segment, made at the first call: InputError naming it where it
        cannot be written (call it before paying for answers)."""
        if self._writer is None:
            try:
                self._writer = create_segment(self.segment)
            except (OSError, sqlite3.DatabaseError) as exc:
                raise InputError(
                    f"{self.segment}: cannot write the response store ({exc})"
                ) from None
        return self._writer

    def __len__(self) -> int:
        keys: set[str] = set()

        def read() -> None:
            rows = self._reader.execute("SELECT key FROM seg.answers").fetchall()
            keys.update(key for (key,) in rows)

        visit_segments(self._reader, self.folder, read)
        return len(keys)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._reader.close()
