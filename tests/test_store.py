import pytest

from hiremeornot.asking import ask
from hiremeornot.backends.base import Request, Response
from hiremeornot.errors import InputError
from hiremeornot.store import ResponseStore, request_key
from tests.doubles import CountingBackend

IDENTITY = {"backend": "transformers", "model": "m"}


def requests(n):
    return [Request(f"Question {i}?", ("Yes", "No")) for i in range(n)]


def test_second_run_asks_the_model_nothing(tmp_path):
    store = ResponseStore(tmp_path / "m.sqlite")
    backend = CountingBackend()
    first, summary = ask(requests(10), store, IDENTITY, lambda: backend)
    assert (summary.asked, summary.from_store) == (10, 0)
    assert len(backend.asked) == 10

    def never():
        raise AssertionError("the backend must not be loaded")

    again, summary = ask(requests(10), ResponseStore(tmp_path / "m.sqlite"), IDENTITY, never)
    assert (summary.asked, summary.from_store) == (0, 10)
    assert again == first


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
    with pytest.raises(RuntimeError):
        ask(requests(12), store, IDENTITY, lambda: Crashing(batch_size=4))
    assert len(store) == 8
    backend = CountingBackend()
    _, summary = ask(requests(12), store, IDENTITY, lambda: backend)
    assert len(backend.asked) == 4 and summary.from_store == 8


def test_a_corrupt_store_file_is_named_in_one_line(tmp_path):
    path = tmp_path / "store" / "m.sqlite"
    path.parent.mkdir()
    path.write_bytes(b"not a database, just bytes " * 200)
    with pytest.raises(InputError) as error:
        ResponseStore(path)
    message = str(error.value)
    assert message == (
        f"{path}: not a readable response store (file is not a database); move it away to ask again"
    )
    path.unlink()  # moved away: a new store
    assert len(ResponseStore(path)) == 0


def test_a_folder_in_the_stores_place_is_named(tmp_path):
    with pytest.raises(InputError, match=rf"{tmp_path}: cannot open the response store"):
        ResponseStore(tmp_path)
