"""The OpenAI backend against a fault-injecting OpenAI-compatible server on loopback."""

from __future__ import annotations

import pytest

from hiremeornot.asking import ask
from hiremeornot.backends import BackendError, Request, load_backend, model_identity
from hiremeornot.store import ResponseStore, request_key
from tests.fake_openai import FakeOpenAI, serve

KEY = "sk-test-HIREMEORNOT-0123456789"
REQUESTS = [
    Request(f"Mary and James are neighbors. Question {i}?", ("Yes", "No")) for i in range(3)
]


@pytest.fixture()
def fake(monkeypatch):
    monkeypatch.setenv("HIREMEORNOT_TEST_KEY", KEY)
    fake = FakeOpenAI(delay_s=2.0)
    with serve(fake) as url:
        fake.url = url
        yield fake


def settings(fake, **changes):
    return {
        "backend": "openai",
        "model": "fake-model",
        "base_url": fake.url,
        "api_key_env": "HIREMEORNOT_TEST_KEY",
        "max_retries": 3,
        "timeout_s": 1.0,
        "concurrency": 1,
        **changes,
    }


def stored_keys(fake):
    return [request_key(model_identity(settings(fake)), r) for r in REQUESTS]


def run(fake, store_path, **changes):
    config = settings(fake, **changes)
    store = ResponseStore(store_path)
    return ask(REQUESTS, store, model_identity(config), lambda: load_backend("openai", config))


@pytest.mark.parametrize(
    "faults",
    [["429", "429"], ["500", "500", "500"], ["timeout"], ["reset", "reset"], ["malformed"]],
)
def test_transient_faults_are_retried_and_answered(fake, tmp_path, faults):
    fake.faults = list(faults)
    responses, summary = run(fake, tmp_path / "s.sqlite")
    assert [r.answer for r in responses] == ["Yes"] * 3 and summary.asked == 3
    assert len(fake.requests) == 3 + len(faults)
    assert responses[0].logprobs[0] == pytest.approx(-0.5 * 3)  # the three tokens of "Yes"
    assert all(r["authorization"] == f"Bearer {KEY}" for r in fake.requests)
    assert all(r["body"]["response_format"]["json_schema"]["strict"] for r in fake.requests)


@pytest.mark.parametrize(
    ("faults", "message"),
    [
        (["500"] * 4, "InternalServerError"),
        (["429"] * 4, "RateLimitError"),
        (["outside"], "answered 'Maybe', outside \\['Yes', 'No'\\]"),
        (["bad_json"], "malformed JSON answer 'not json'"),
        (["malformed"] * 4, "malformed reply after 4 attempts"),
    ],
)
def test_lasting_faults_fail_clearly_store_nothing_invalid_and_a_later_run_resumes(
    fake, tmp_path, faults, message
):
    fake.faults = list(faults)
    store_path = tmp_path / "s.sqlite"
    with pytest.raises(BackendError, match=message) as error:
        run(fake, store_path)
    assert "fake-model" in str(error.value) and "Question 0" in str(error.value)
    assert KEY not in str(error.value)
    # only the failing request is missing: the two valid answers are kept, nothing invalid
    stored = ResponseStore(store_path)
    assert len(stored) == 2
    assert {r.answer for r in stored.get(stored_keys(fake)).values()} == {"Yes"}
    responses, summary = run(fake, store_path)  # the server is healthy again
    assert (summary.asked, summary.from_store) == (1, 2)
    assert [r.answer for r in responses] == ["Yes"] * 3


def test_missing_key_is_named(fake, monkeypatch):
    monkeypatch.delenv("HIREMEORNOT_TEST_KEY")
    with pytest.raises(Exception, match=r"set the API key in \$HIREMEORNOT_TEST_KEY"):
        load_backend("openai", settings(fake))


def test_structured_outputs_constraint_for_vllm_serve(fake, tmp_path):
    config = settings(fake, constraint="structured_outputs")
    backend = load_backend("openai", config)
    arguments = backend._arguments(REQUESTS[0])
    assert arguments["extra_body"] == {"structured_outputs": {"choice": ["Yes", "No"]}}
    assert "response_format" not in arguments and "guided_choice" not in str(arguments)


def test_answers_obtained_before_a_lasting_fault_are_kept(fake, tmp_path):
    fake.faults = ["ok", "outside"]  # the first request is answered, the second fails
    store_path = tmp_path / "s.sqlite"
    with pytest.raises(BackendError, match="outside"):
        run(fake, store_path)
    assert len(ResponseStore(store_path)) == 2  # the answers obtained are stored, not re-bought
    asked_before = len(fake.requests)
    _, summary = run(fake, store_path)
    assert (summary.asked, summary.from_store) == (1, 2)
    assert len(fake.requests) == asked_before + 1
