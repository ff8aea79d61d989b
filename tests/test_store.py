import logging
import math
import sqlite3

import pytest

from hiremeornot.asking.ask import ask
from hiremeornot.asking.backends.base import Request, Response
from hiremeornot.asking.store import ResponseStore, request_key, segments
from hiremeornot.errors import InputError
from tests.helpers.doubles import CountingBackend

IDENTITY = {"backend": "transformers", "model": "m"}


def requests(n, start=0):
    return [Request(f"Question {i}?", ("Yes", "No")) for i in range(start, start + n)]


def never():
    raise AssertionError("the backend must not be loaded")


def test_second_run_asks_the_model_nothing(tmp_path):
    store = ResponseStore.open(tmp_path, "m", label="step1-shard0")
    backend = CountingBackend()
    first, summary = ask(requests(10), store, IDENTITY, lambda: backend)
    assert (summary.asked, summary.from_store) == (10, 0)
    assert len(backend.asked) == 10 and backend.closed == 1
    store.close()
    again, summary = ask(requests(10), ResponseStore.open(tmp_path, "m"), IDENTITY, never)
    assert (summary.asked, summary.from_store) == (0, 10)
    assert again == first


def test_each_store_writes_its_own_segment_and_reads_them_all(tmp_path):
    one, two = ResponseStore.open(tmp_path, "m", "step1-shard0"), ResponseStore.open(tmp_path, "m")
    ask(requests(4), one, IDENTITY, lambda: CountingBackend())
    ask(requests(4, start=4), two, IDENTITY, lambda: CountingBackend())
    assert segments(tmp_path / "m") == sorted([one.segment, two.segment])
    assert one.segment.name.startswith("step1-shard0@")
    assert len(one) == len(two) == 8
    _, summary = ask(requests(8), ResponseStore.open(tmp_path, "m"), IDENTITY, never)
    assert summary.from_store == 8
    mode = sqlite3.connect(one.segment).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "delete"  # no WAL, no shared memory


def test_a_store_answered_entirely_from_segments_writes_no_file(tmp_path):
    ask(requests(3), ResponseStore.open(tmp_path, "m"), IDENTITY, lambda: CountingBackend())
    ask(requests(3), ResponseStore.open(tmp_path, "m"), IDENTITY, never)
    assert len(segments(tmp_path / "m")) == 1


def test_duplicate_questions_are_asked_once_and_fanned_out(tmp_path):
    backend = CountingBackend()
    batch = requests(3) * 4
    responses, summary = ask(batch, ResponseStore(tmp_path / "s"), IDENTITY, lambda: backend)
    assert len(backend.asked) == 3 and summary.questions == 3
    assert responses[:3] == responses[3:6] == responses[9:]


def test_a_changed_prompt_reasks_only_itself(tmp_path):
    store = ResponseStore(tmp_path / "s")
    ask(requests(5), store, IDENTITY, lambda: CountingBackend())
    changed = requests(5)
    changed[2] = Request("Question 2, reworded?", ("Yes", "No"))
    backend = CountingBackend()
    _, summary = ask(changed, store, IDENTITY, lambda: backend)
    assert backend.asked == [changed[2]] and summary.from_store == 4


def test_key_depends_on_model_prompt_and_answer_space():
    request = Request("Q?", ("Yes", "No"))
    key = request_key(IDENTITY, request)
    assert key == request_key(dict(reversed(IDENTITY.items())), request)
    assert key != request_key({**IDENTITY, "system_prompt": "x"}, request)
    assert key != request_key(IDENTITY, Request("Q? ", ("Yes", "No")))
    assert key != request_key(IDENTITY, Request("Q?", ("No", "Yes")))


def test_invalid_answers_are_never_stored(tmp_path):
    store = ResponseStore(tmp_path / "s")
    request = Request("Q?", ("Yes", "No"))
    with pytest.raises(ValueError, match="Maybe"):
        store.put([(request_key(IDENTITY, request), request, Response("Maybe", (-1.0, -2.0)))])
    assert len(store) == 0


def test_answers_of_earlier_batches_survive_a_crash(tmp_path):
    class Crashing(CountingBackend):
        def answer(self, batch):
            if len(self.asked) >= 8:
                raise RuntimeError("killed")
            return super().answer(batch)

    store = ResponseStore(tmp_path / "s")
    crashing = Crashing(batch_size=4)
    with pytest.raises(RuntimeError):
        ask(requests(12), store, IDENTITY, lambda: crashing)
    assert len(store) == 8 and crashing.closed == 1  # closed all the same
    backend = CountingBackend()
    _, summary = ask(requests(12), ResponseStore(tmp_path / "s"), IDENTITY, lambda: backend)
    assert len(backend.asked) == 4 and summary.from_store == 8


def test_a_corrupt_segment_costs_only_its_answers(tmp_path, caplog):
    ask(requests(6), ResponseStore.open(tmp_path, "m"), IDENTITY, lambda: CountingBackend())
    lost = ResponseStore.open(tmp_path, "m")
    ask(requests(4, start=6), lost, IDENTITY, lambda: CountingBackend())
    lost.segment.write_bytes(b"not a database, just bytes " * 200)
    backend = CountingBackend()
    with caplog.at_level(logging.WARNING, logger="hiremeornot.asking.store"):
        _, summary = ask(requests(10), ResponseStore.open(tmp_path, "m"), IDENTITY, lambda: backend)
    assert backend.asked == requests(4, start=6) and summary.from_store == 6
    assert [r.getMessage() for r in caplog.records] == [
        f"{lost.segment}: skipped, not a readable store segment (file is not a database); "
        "its answers are asked again"
    ]


def test_a_truncated_segment_costs_only_its_answers(tmp_path):
    ask(requests(6), ResponseStore.open(tmp_path, "m"), IDENTITY, lambda: CountingBackend())
    lost = ResponseStore.open(tmp_path, "m")
    ask(requests(400, start=6), lost, IDENTITY, lambda: CountingBackend(batch_size=400))
    lost.segment.write_bytes(lost.segment.read_bytes()[:5000])
    store = ResponseStore.open(tmp_path, "m")
    found = store.get(request_key(IDENTITY, r) for r in requests(406))
    assert {request_key(IDENTITY, r) for r in requests(6)} <= set(found)


def write_old_store(store_dir, n):
    """Today's <store_dir>/m.sqlite (WAL, answers still in the -wal file) holding ``n`` answers;
    the connection, still open as a running job of the old layout would hold it."""
    db = sqlite3.connect(store_dir / "m.sqlite", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute(
        "CREATE TABLE answers (key TEXT PRIMARY KEY, prompt TEXT NOT NULL, choices TEXT NOT NULL,"
        " answer TEXT NOT NULL, logprobs TEXT NOT NULL, created REAL NOT NULL)"
    )
    paid = CountingBackend().answer(requests(n))
    db.executemany(
        "INSERT INTO answers VALUES (?, ?, ?, ?, ?, 0)",
        [
            (request_key(IDENTITY, q), q.prompt, '["Yes", "No"]', r.answer, str(list(r.logprobs)))
            for q, r in zip(requests(n), paid, strict=True)
        ],
    )
    return db, paid


def test_an_old_single_file_store_is_read_as_a_segment(tmp_path, caplog):
    """Nothing paid for in the old layout is lost: it answers as one more segment."""
    db, paid = write_old_store(tmp_path, 5)
    with caplog.at_level(logging.INFO, logger="hiremeornot.asking.store"):
        store = ResponseStore.open(tmp_path, "m")
    assert "single-file store of the old layout" in caplog.text
    responses, summary = ask(requests(7), store, IDENTITY, lambda: CountingBackend())
    assert (summary.from_store, summary.asked) == (5, 2)
    assert [(r.answer, r.logprobs) for r in responses[:5]] == [(r.answer, r.logprobs) for r in paid]
    # written before the answer space's mass was recorded: not seen, never made up
    assert all(math.isnan(r.answer_mass) for r in responses[:5])
    assert not math.isnan(responses[5].answer_mass)
    assert segments(tmp_path / "m") == [store.segment, tmp_path / "m.sqlite"]
    db.close()


def test_every_field_of_a_response_comes_back_from_the_store(tmp_path):
    backend = CountingBackend()
    paid, _ = ask(requests(6), ResponseStore.open(tmp_path, "m"), IDENTITY, lambda: backend)
    again, summary = ask(requests(6), ResponseStore.open(tmp_path, "m"), IDENTITY, never)
    assert summary.from_store == 6 and again == paid
    assert len({r.answer_mass for r in again}) > 1


def test_a_store_that_cannot_be_written_fails_before_anything_is_asked(tmp_path):
    (tmp_path / "file").write_text("x")
    store = ResponseStore(tmp_path / "file" / "m")  # its folder would sit under a file
    with pytest.raises(InputError, match=r"file/m/.*: cannot write the response store"):
        ask(requests(3), store, IDENTITY, never)  # the backend is never loaded


def test_a_file_in_the_folders_place_is_named(tmp_path):
    (tmp_path / "m").write_text("x")
    with pytest.raises(InputError, match=rf"^{tmp_path}/m: a file where the store's folder"):
        ResponseStore.open(tmp_path, "m")
