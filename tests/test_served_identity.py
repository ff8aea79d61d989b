"""The store records, per answer, the model id and system fingerprint an API reported; older
segments without those columns still read, check and compact."""

from __future__ import annotations

import dataclasses
import math
import sqlite3

import pytest

from hiremeornot.asking.ask import ask
from hiremeornot.asking.backends import Response, load_backend, model_identity
from hiremeornot.asking.store import REQUIRED_COLUMNS, ResponseStore, request_key, segments
from hiremeornot.asking.store_maintenance import check, compact, served_identities, stored_answers
from tests.helpers.doubles import CountingBackend
from tests.test_openai_backend import settings
from tests.test_store import requests

IDENTITY = {"backend": "transformers", "model": "m"}


def api_settings(fake, **changes):
    return settings(fake, model="gpt-test", max_retries=0, batch_poll_s=0, **changes)


@pytest.mark.parametrize("mode", ["sync", "batch"])
def test_an_api_answer_records_the_served_model_and_fingerprint(fake, tmp_path, mode):
    fake.served_model, fake.system_fingerprint = "gpt-test-2024-08-06", "fp_1a2b"
    settings = api_settings(fake, mode=mode)
    store = ResponseStore.open(tmp_path, "api")
    backend = load_backend("openai", settings, state_dir=tmp_path / "batches")
    fresh, _ = ask(requests(3), store, model_identity(settings), lambda: backend)
    store.close()
    assert {(r.served_model, r.system_fingerprint) for r in fresh} == {
        ("gpt-test-2024-08-06", "fp_1a2b")
    }
    again, summary = ask(
        requests(3), ResponseStore.open(tmp_path, "api"), model_identity(settings), None
    )
    assert summary.from_store == 3  # read back from the store as answered (NaN logprobs aside)
    assert [(r.answer, r.served_model, r.system_fingerprint) for r in again] == [
        (r.answer, r.served_model, r.system_fingerprint) for r in fresh
    ]
    assert served_identities(tmp_path, "api") == [
        {"served_model": "gpt-test-2024-08-06", "system_fingerprint": "fp_1a2b", "answers": 3}
    ]


def test_a_server_without_a_fingerprint_records_none(fake, tmp_path):
    settings = api_settings(fake)
    responses, _ = ask(
        requests(2),
        ResponseStore.open(tmp_path, "api"),
        model_identity(settings),
        lambda: load_backend("openai", settings),
    )
    assert {(r.served_model, r.system_fingerprint) for r in responses} == {("fake", None)}
    assert served_identities(tmp_path, "api") == [
        {"served_model": "fake", "system_fingerprint": None, "answers": 2}
    ]


def old_segment(folder, questions):
    """A segment as written before the identity columns existed (six columns)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "step1-shard0@oldhost-1-00000000.sqlite"
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE answers (key TEXT PRIMARY KEY, prompt TEXT NOT NULL, choices TEXT NOT NULL,"
        " answer TEXT NOT NULL, logprobs TEXT NOT NULL, created REAL NOT NULL)"
    )
    answers = CountingBackend().answer(questions)
    db.executemany(
        'INSERT INTO answers VALUES (?, ?, \'["Yes", "No"]\', ?, ?, 0)',
        [
            (request_key(IDENTITY, q), q.prompt, r.answer, str(list(r.logprobs)))
            for q, r in zip(questions, answers, strict=True)
        ],
    )
    db.commit()
    db.close()
    # what the segment holds: no answer-space mass either (math.nan, as the store reads NULL)
    return path, [dataclasses.replace(r, answer_mass=math.nan) for r in answers]


def test_old_segments_without_the_columns_read_check_and_compact(tmp_path):
    old, paid = old_segment(tmp_path / "m", requests(4))
    assert tuple(r[1] for r in sqlite3.connect(old).execute("PRAGMA table_info(answers)")) == (
        REQUIRED_COLUMNS
    )
    new = ResponseStore.open(tmp_path, "m", label="step2-shard0")
    extra = requests(2, start=4)
    new.put(
        (request_key(IDENTITY, q), q, Response("No", (-2.0, -1.0), "served-x", "fp_9"))
        for q in extra
    )
    new.close()
    keys = [request_key(IDENTITY, q) for q in requests(6)]

    def everything():
        return ResponseStore.open(tmp_path, "m").get(keys)

    before = everything()
    assert [before[k] for k in keys[:4]] == paid  # no identity: None, None
    assert {(r.served_model, r.system_fingerprint) for r in paid} == {(None, None)}
    assert before[keys[4]] == Response("No", (-2.0, -1.0), "served-x", "fp_9")
    assert check(tmp_path, "m") == []
    # answers without an identity (old segments, local backends) are left out
    expected = [{"served_model": "served-x", "system_fingerprint": "fp_9", "answers": 2}]
    assert served_identities(tmp_path, "m") == expected
    merged = compact(tmp_path / "m", min_age_s=0)
    assert segments(tmp_path / "m") == [merged]
    assert everything() == before and check(tmp_path, "m") == []
    assert served_identities(tmp_path, "m") == expected
    table = stored_answers(tmp_path, "m")
    assert len(table) == 6 and table["choices"].map(len).eq(2).all()


def test_a_local_model_or_no_store_has_no_identities(tmp_path):
    ask(requests(3), ResponseStore.open(tmp_path, "m"), IDENTITY, lambda: CountingBackend())
    assert len(stored_answers(tmp_path, "m")) == 3
    assert served_identities(tmp_path, "m") == []  # a local backend reports nothing
    assert served_identities(tmp_path, "nothing") == []
