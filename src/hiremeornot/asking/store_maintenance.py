"""Keep a response store healthy: check its segments, compact them, rebuild it from the results.

Each command works on the store folders of store.py; none changes an answer: ``compact`` writes
the merged segment before it removes the merged ones, ``rebuild`` only adds what the step
tables record, under the keys the step jobs used.
"""

from __future__ import annotations

import json
import logging
import math
import os
import sqlite3
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from hiremeornot.asking.backends import Request, Response, model_identity
from hiremeornot.asking.free_replies import CLASSIFIER_RULE, NON_ANSWERS, UNPARSED
from hiremeornot.asking.store import (
    COLUMNS,
    LAYOUTS,
    ResponseStore,
    create_segment,
    legacy_file,
    new_segment_name,
    read_segment,
    request_key,
    scratch_connection,
    segment_columns,
    segments,
    uri,
    visit_segments,
)
from hiremeornot.design.questions import YES_NO
from hiremeornot.errors import InputError, first_line
from hiremeornot.tables_io import STEPS, model_step_tables, read_job_record, read_table

log = logging.getLogger(__name__)


def segment_problems(path: Path) -> list[str]:
    """What is wrong with one segment: damage, a foreign schema, rows outside their answer space."""
    try:
        db = sqlite3.connect(uri(path), uri=True)
    except sqlite3.DatabaseError as exc:
        return [first_line(exc)]
    try:
        integrity = [row[0] for row in db.execute("PRAGMA integrity_check")]
        if integrity != ["ok"]:
            return [f"integrity_check: {integrity[0]}"]
        columns = tuple(row[1] for row in db.execute("PRAGMA table_info(answers)"))
        if columns not in LAYOUTS:  # older segments lack the later columns
            return [f"table answers has columns {list(columns)}, not {list(COLUMNS)}"]
        bad = 0
        replies = "reply" if "reply" in columns else "NULL"
        for choices, answer, logprobs, reply in db.execute(
            f"SELECT choices, answer, logprobs, {replies} FROM answers"
        ):
            words, values = json.loads(choices), json.loads(logprobs)
            readable = words + list(NON_ANSWERS if reply is not None else ())
            bad += answer not in readable or len(values) != len(words)
        if bad:
            return [
                f"{bad} row(s) with an answer outside its choices or not one log-probability "
                "per choice"
            ]
        return []
    except (sqlite3.DatabaseError, ValueError) as exc:
        return [first_line(exc)]
    finally:
        db.close()


def check(store_dir: str | Path, model: str | None = None) -> list[str]:
    """One line per bad segment (``path: problem``) of ``model``'s store, or of every store;
    InputError where there is nothing to check (a check that found nothing has not passed)."""
    store_dir = Path(store_dir)
    if not store_dir.is_dir():
        raise InputError(f"--store-dir {store_dir}: no such folder, so no store to check")
    if model is not None:
        paths = segments(store_dir / model)
    else:
        paths = sorted(store_dir.glob("*/*.sqlite")) + sorted(store_dir.glob("*.sqlite"))
    if not paths:
        stores = sorted(path.name for path in store_dir.iterdir() if path.is_dir())
        where = f"model {model!r}" if model is not None else "any model"
        raise InputError(
            f"{store_dir}: no segment of {where} to check (the stores here: {stores or 'none'})"
        )
    log.info("%s: checking %d segment(s)", store_dir, len(paths))
    return [f"{path}: {problem}" for path in paths for problem in segment_problems(path)]


def compact(folder: Path, min_age_s: float) -> Path | None:
    """Merge the segments of ``folder`` unchanged for ``min_age_s`` (and an old single-file
    store) into one new segment; None when there is nothing to merge.

    The merged segment is written under a hidden name and renamed in before its sources are
    removed, so that a reader never misses an answer. Unreadable segments stay (see check).
    """
    legacy = legacy_file(folder)
    now = time.time()
    sources = [path for path in segments(folder) if now - path.stat().st_mtime >= min_age_s]
    if len(sources) < 2 and legacy not in sources:
        log.info("%s: nothing to merge (%d segment(s) old enough)", folder, len(sources))
        return None
    target = folder / new_segment_name("compact")
    merging = folder / f".{target.name}.merging"
    db = create_segment(merging)

    def merge() -> None:
        db.execute(
            f"INSERT OR IGNORE INTO main.answers ({', '.join(COLUMNS)}) "
            f"SELECT {segment_columns(db)} FROM seg.answers"
        )

    merged = [path for path in sources if read_segment(db, path, merge)]
    count = db.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
    db.close()
    os.replace(merging, target)
    for path in merged:
        for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            leftover.unlink(missing_ok=True)
    log.info("%s: %d segment(s) merged into %s (%d answers)", folder, len(merged), target, count)
    return target


def recorded_answers(
    table: pd.DataFrame, path: Path, answers: Mapping[str, str]
) -> Iterator[tuple[Request, Response]]:
    """The requests and responses a step table records.

    Tables written before the ``answer_mass`` column give NaN (not seen). A free reply the
    model's free_classifier read (rule classifier) is stored as the parser read it: unparsed
    (the classifier's answers have a store of their own, which this does not rebuild).
    Tables written before the ``choices`` and ``roles`` columns (and before wordings, so in
    ``<step>/shard-<i>.parquet``) are read for Steps 1 and 2 with the config's yes/no words;
    Step 3 needs those columns.
    """
    if "choices" in table:
        choices, roles = list(table["choices"]), list(table["roles"])
    elif path.parent.name in ("step1", "step2"):
        choices = [(answers["yes"], answers["no"])] * len(table)
        roles = [YES_NO] * len(table)
    else:
        raise InputError(f"{path}: no choices column (an older table); run the step again")
    logprobs = {
        column.removeprefix("logprob_"): table[column].to_numpy()
        for column in table.columns
        if column.startswith("logprob_")
    }
    masses = table["answer_mass"] if "answer_mass" in table else [math.nan] * len(table)
    free = table["free_tokens"] if "free_tokens" in table else [None] * len(table)
    replies = table["reply"] if "reply" in table else [None] * len(table)
    # the model's own answer: a reply its free_classifier read was one the parser could not
    answered = table["answer"]
    if "rule" in table:
        answered = answered.mask(table["rule"] == CLASSIFIER_RULE, UNPARSED)
    rows = zip(table["prompt"], answered, masses, free, replies, strict=True)
    for row, (prompt, answer, mass, tokens, reply) in enumerate(rows):
        yield (
            Request(
                prompt,
                tuple(str(word) for word in choices[row]),
                free_tokens=None if tokens is None else int(tokens),
            ),
            Response(
                answer,
                tuple(float(logprobs[role][row]) for role in roles[row]),
                answer_mass=float(mass),
                reply=reply,
            ),
        )


def check_recorded_settings(path: Path, identity: Mapping[str, Any], unrecorded: bool) -> None:
    """Refuse a step table asked with other settings than ``identity`` (its job record says
    which), naming the keys that differ; one written before records held them only with
    ``unrecorded``."""
    record = read_job_record(path)
    asked = None if record is None else record.get("identity")
    if asked is None:
        if unrecorded:
            return
        raise InputError(
            f"{path}: written before step tables recorded the settings they were asked with, "
            "so its answers cannot be checked against the config's; pass --unrecorded to "
            "trust that they were asked with these settings"
        )
    differing = sorted(key for key in {*asked, *identity} if asked.get(key) != identity.get(key))
    if differing:
        shown = ", ".join(
            f"{key}: {asked.get(key)!r} there, {identity.get(key)!r} in the config"
            for key in differing
        )
        raise InputError(
            f"{path}: asked with other settings than the config's ({shown}); its answers "
            "would be stored under the wrong key. Rebuild with the config it was run with"
        )


def rebuild(
    store_dir: str | Path,
    model: str,
    *,
    results: str | Path,
    config: dict[str, Any],
    unrecorded: bool = False,
) -> int:
    """Add to ``model``'s store every answer its step tables in ``results`` record, keyed as the
    step jobs keyed them (``config`` gives the model's settings), once every table's recorded
    settings are the config's (check_recorded_settings); the number of tables read."""
    if model not in config["models"]:
        raise InputError(
            f"--model: unknown model {model!r}; the config has {sorted(config['models'])}"
        )
    identity = model_identity(config["models"][model])
    folder = Path(results, model)
    # tables written before wordings (<step>/shard-<i>.parquet) rebuild the store too: their
    # answers may have cost money; nothing else reads that layout
    older = (path for step in STEPS for path in (folder / step).glob("shard-*.parquet"))
    tables = model_step_tables(folder) + sorted(older)
    if not tables:
        raise InputError(
            f"{Path(results, model)}: no step tables (step1/<wording>/shard-*.parquet, ...)"
        )
    for path in tables:  # every table before any answer is stored
        check_recorded_settings(path, identity, unrecorded)
    store = ResponseStore.open(store_dir, model, label="rebuild")
    try:
        for path in tables:
            pairs = recorded_answers(read_table(path), path, config["answers"])
            store.put(
                (request_key(identity, request), request, response) for request, response in pairs
            )
    finally:
        store.close()
    log.info("%s: rebuilt from %d step table(s) into %s", model, len(tables), store.segment)
    return len(tables)


def stored_answers(store_dir: str | Path, model: str) -> pd.DataFrame:
    """Every answer in ``model``'s store, one row per key (the first segment's, as a lookup
    reads it): the COLUMNS, ``choices`` and ``logprobs`` parsed into tuples."""
    rows: list[tuple] = []
    db = scratch_connection()
    try:
        visit_segments(
            db,
            Path(store_dir) / model,
            lambda: rows.extend(db.execute(f"SELECT {segment_columns(db)} FROM seg.answers")),
        )
    finally:
        db.close()
    table = pd.DataFrame(rows, columns=list(COLUMNS)).drop_duplicates("key", ignore_index=True)
    table["choices"] = [tuple(json.loads(text)) for text in table["choices"]]
    table["logprobs"] = [tuple(float(v) for v in json.loads(text)) for text in table["logprobs"]]
    return table


def served_identities(store_dir: str | Path, model: str) -> list[dict[str, Any]]:
    """What served ``model``'s stored answers: each distinct (served_model, system_fingerprint)
    an API reported, with its number of answers, most answers first (then by name). Answers
    with neither (backends that report none, answers stored before they were recorded) are
    left out: a local model's list is empty."""
    table = stored_answers(store_dir, model)
    table = table.dropna(subset=["served_model", "system_fingerprint"], how="all")
    counts: dict[tuple[Any, Any], int] = {}
    for served, fingerprint in zip(table["served_model"], table["system_fingerprint"], strict=True):
        key = (None if pd.isna(served) else served, None if pd.isna(fingerprint) else fingerprint)
        counts[key] = counts.get(key, 0) + 1
    ordered = sorted(counts.items(), key=lambda item: (-item[1], str(item[0])))
    return [
        {"served_model": served, "system_fingerprint": fingerprint, "answers": answers}
        for (served, fingerprint), answers in ordered
    ]
