"""The OpenAI backend against a fault-injecting OpenAI-compatible server on loopback."""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
import sys
from types import SimpleNamespace

import pytest

from hiremeornot.asking.ask import ask
from hiremeornot.asking.backends import BackendError, Request, load_backend, model_identity
from hiremeornot.asking.backends.openai import batch as openai_batch
from hiremeornot.asking.backends.openai import constraints as openai_constraints
from hiremeornot.asking.backends.openai.cost import cost_estimate
from hiremeornot.asking.store import ResponseStore, request_key
from hiremeornot.config import model_settings
from hiremeornot.errors import InputError
from tests.conftest import REPO
from tests.helpers.fake_openai import FakeOpenAI, serve

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
    return model_settings(
        {
            "backend": "openai",
            "model": "fake-model",
            "base_url": fake.url,
            "api_key_env": "HIREMEORNOT_TEST_KEY",
            "max_retries": 3,
            "timeout_s": 1.0,
            "concurrency": 1,
            **changes,
        }
    )


def stored_keys(fake):
    return [request_key(model_identity(settings(fake)), r) for r in REQUESTS]


def run(fake, store_path, state_dir=None, progress=None, **changes):
    config = settings(fake, **changes)
    store = ResponseStore(store_path)
    return ask(
        REQUESTS,
        store,
        model_identity(config),
        lambda: load_backend("openai", config, state_dir=state_dir),
        progress=progress,
    )


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
    arguments = backend.api.arguments(REQUESTS[0])
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


def test_grammar_constraint_for_llama_cpp(fake, tmp_path):
    responses, _ = run(fake, tmp_path / "s.sqlite", constraint="grammar")
    assert [r.answer for r in responses] == ["Yes"] * 3
    assert fake.requests[0]["body"]["grammar"] == 'root ::= "Yes" | "No"'
    assert responses[0].logprobs[0] == pytest.approx(-1.5)


def test_tool_constraint_answers_through_a_strict_enum_function(fake, tmp_path):
    responses, _ = run(fake, tmp_path / "s.sqlite", constraint="tool")
    assert [r.answer for r in responses] == ["Yes"] * 3
    tool = fake.requests[0]["body"]["tools"][0]["function"]
    assert tool["strict"] and tool["parameters"]["properties"]["answer"]["enum"] == ["Yes", "No"]
    assert all(math.isnan(value) for value in responses[0].logprobs)  # none for tool calls
    fake.faults = ["bad_json"]
    with pytest.raises(BackendError, match="malformed JSON answer 'not json'"):
        run(fake, tmp_path / "t.sqlite", constraint="tool")


TOY_TOKENS = {"Yes": [9], "No": [7], "Mary": [5, 1], "Mark": [5, 2]}


@pytest.fixture()
def toy_tokenizer(fake, monkeypatch):
    """A tokenizer of four words, for constraint logit_bias."""
    monkeypatch.setattr(
        openai_constraints,
        "load_tokenizer",
        lambda name: (TOY_TOKENS.__getitem__, {9: "Yes", 7: "No", 5: "Mar"}.__getitem__),
    )
    fake.token_texts = {"9": "Yes", "7": "No", "5": "Mar"}


def test_logit_bias_constraint_picks_a_first_token_and_renormalises(fake, tmp_path, toy_tokenizer):
    responses, _ = run(fake, tmp_path / "s.sqlite", constraint="logit_bias", tokenizer="toy")
    body = fake.requests[0]["body"]
    assert body["max_tokens"] == 1 and body["logit_bias"] == {"9": 100, "7": 100}
    assert [r.answer for r in responses] == ["Yes"] * 3
    yes, no = responses[0].logprobs  # the server gave -1 and -2; renormalised over the choices
    assert yes - no == pytest.approx(1.0) and math.exp(yes) + math.exp(no) == pytest.approx(1.0)


def test_logit_bias_refuses_choices_it_cannot_tell_apart(fake, tmp_path, toy_tokenizer):
    config = settings(fake, constraint="logit_bias", tokenizer="toy")
    backend = load_backend("openai", config)
    with pytest.raises(BackendError, match="do not all start with different tokens.*tool"):
        backend.answer([Request("Who?", ("Mary", "Mark"))])
    fake.faults = ["outside"]
    with pytest.raises(BackendError, match="answered 'Maybe'"):
        backend.answer(REQUESTS[:1])
    with pytest.raises(InputError, match="logit_bias needs a tokenizer"):
        load_backend("openai", settings(fake, constraint="logit_bias"))


def test_the_run_size_and_cost_are_printed_and_a_cost_cap_stops_it(fake, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="hiremeornot")
    prices = {"input": 1000.0, "output": 2000.0}
    shown = tmp_path / "progress.json"
    run(fake, tmp_path / "s.sqlite", progress=shown, price_per_million_tokens=prices)
    # the estimate the terminal's progress line spends from
    expected = cost_estimate(REQUESTS, settings(fake, price_per_million_tokens=prices)).usd
    assert json.loads(shown.read_text())["usd"] == pytest.approx(expected) and expected > 0
    line = caplog.text
    assert re.search(r"fake-model: 3 requests to send, about \d+ input and \d+ output tokens", line)
    assert re.search(r"estimated cost \$\d+\.\d\d", line)
    asked = len(fake.requests)
    with pytest.raises(InputError, match=r"over max_cost_usd \$0\.01; nothing was asked"):
        run(fake, tmp_path / "t.sqlite", price_per_million_tokens=prices, max_cost_usd=0.01)
    assert len(fake.requests) == asked


def batch_settings(fake, tmp_path):
    return {"mode": "batch", "batch_poll_s": 0, "state_dir": tmp_path / "batches"}


def test_batch_mode_answers_through_one_batch(fake, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="hiremeornot")
    responses, summary = run(fake, tmp_path / "s.sqlite", **batch_settings(fake, tmp_path))
    assert [r.answer for r in responses] == ["Yes"] * 3 and summary.asked == 3
    assert len(fake.batches) == 1 and len(fake.requests) == 3
    assert list((tmp_path / "batches").iterdir()) == []  # the journal is gone once collected
    assert "submitted batch batch-1: 3 requests" in caplog.text
    assert "batch batch-1: completed" in caplog.text


def test_an_unreadable_batch_journal_is_named(fake, tmp_path):
    backend = load_backend("openai", settings(fake, mode="batch"), state_dir=tmp_path)
    payload = backend.request_file(REQUESTS)
    journal = tmp_path / f"{hashlib.sha256(payload).hexdigest()}.json"
    journal.write_text("{not json")
    with pytest.raises(InputError, match=rf"{journal}: not a readable batch journal"):
        backend.answer(REQUESTS)
    assert not fake.batches  # nothing submitted


def test_the_modules_import_one_another_in_one_direction():
    order = ["settings", "constraints", "cost", "api", "sync", "batch"]
    folder = REPO / "src" / "hiremeornot" / "asking" / "backends" / "openai"
    for position, name in enumerate(order):
        text = (folder / f"{name}.py").read_text()
        imported = set(re.findall(r"hiremeornot\.backends\.openai\.(\w+)", text))
        assert imported <= set(order[:position]), f"{name}.py imports {imported}"


def test_a_killed_batch_run_resumes_the_same_batch(fake, tmp_path, monkeypatch):
    fake.batch_polls = 1000  # still in progress when the job is killed

    def killed(seconds):
        raise KeyboardInterrupt

    with monkeypatch.context() as patch, pytest.raises(KeyboardInterrupt):
        patch.setattr(openai_batch.time, "sleep", killed)
        run(fake, tmp_path / "s.sqlite", **batch_settings(fake, tmp_path))
    assert len(list((tmp_path / "batches").iterdir())) == 1
    fake.batch_polls = 2
    responses, summary = run(fake, tmp_path / "s.sqlite", **batch_settings(fake, tmp_path))
    assert len(fake.batches) == 1 and summary.asked == 3  # the same batch, paid once
    assert [r.answer for r in responses] == ["Yes"] * 3


def test_failed_batch_lines_are_reported_and_only_they_are_sent_again(fake, tmp_path):
    fake.faults = ["ok", "500", "outside"]
    store_path = tmp_path / "s.sqlite"
    with pytest.raises(BackendError, match=r"batch batch-1: HTTP 500.*\(and 1 more failed"):
        run(fake, store_path, **batch_settings(fake, tmp_path))
    assert len(ResponseStore(store_path)) == 1
    _, summary = run(fake, store_path, **batch_settings(fake, tmp_path))
    assert (summary.asked, summary.from_store, len(fake.batches)) == (2, 1, 2)


def test_logit_bias_log_probs_are_nan_when_a_choice_is_not_listed(toy_tokenizer):
    only_yes = SimpleNamespace(token="Yes", logprob=-0.1)
    token = SimpleNamespace(token="Yes", logprob=-0.1, top_logprobs=[only_yes])
    reply = SimpleNamespace(logprobs=SimpleNamespace(content=[token]))
    answer, logprobs = openai_constraints.LogitBias("toy").parse(reply, ("Yes", "No"))
    assert answer == "Yes" and all(math.isnan(value) for value in logprobs)


def test_a_rejected_batch_is_reported_and_the_next_run_submits_anew(fake, tmp_path):
    fake.batch_error = "line 1: unknown model"
    store_path = tmp_path / "s.sqlite"
    with pytest.raises(BackendError, match="batch batch-1 failed: line 1: unknown model"):
        run(fake, store_path, **batch_settings(fake, tmp_path))
    assert list((tmp_path / "batches").iterdir()) == []
    responses, summary = run(fake, store_path, **batch_settings(fake, tmp_path))
    assert len(fake.batches) == 2 and summary.asked == 3


def test_the_batch_journal_folder_is_an_argument_not_a_setting(fake, tmp_path):
    config = settings(fake, mode="batch")
    assert load_backend("openai", config, state_dir=tmp_path).journal_dir == tmp_path
    with pytest.raises(TypeError, match="state_dir"):
        load_backend("openai", config)


def test_a_missing_sdk_says_how_to_install_it(fake, monkeypatch):
    monkeypatch.setitem(sys.modules, "openai", None)  # import openai raises ImportError
    with pytest.raises(InputError, match=r"needs the openai package.*'hiremeornot\[openai\]'"):
        load_backend("openai", settings(fake))


@pytest.mark.parametrize("mode", ["sync", "batch"])
def test_a_free_question_is_sent_without_constraint_and_its_reply_kept_and_read(
    fake, tmp_path, mode
):
    """No response_format, no log-probabilities, the budget as max_tokens; the reply is stored
    whole and read into an answer or a non-answer; a transient fault is retried (sync); a
    second run asks nothing."""
    replies = {"0": "Yes, she is.", "1": "I'm sorry, but I can't judge that.", "2": ""}
    fake.free_reply = lambda prompt: replies[prompt[-2]]
    fake.faults = ["429"] if mode == "sync" else []
    free = [Request(r.prompt, r.choices, free_tokens=32) for r in REQUESTS]
    config = settings(fake, mode=mode, batch_poll_s=0)
    store_path = tmp_path / "s"

    def run_free():
        return ask(
            free,
            ResponseStore(store_path),
            model_identity(config),
            lambda: load_backend("openai", config, state_dir=tmp_path / "batches"),
        )

    responses, summary = run_free()
    assert [r.answer for r in responses] == ["Yes", "refused", "unparsed"]
    assert [r.reply for r in responses] == [replies[str(i)] for i in range(3)]
    assert all(math.isnan(v) for r in responses for v in r.logprobs)
    bodies = [r["body"] for r in fake.requests]
    assert all(b["max_tokens"] == 32 and "logprobs" not in b for b in bodies)
    assert not any(key in b for b in bodies for key in ("response_format", "tools"))
    again, summary = run_free()
    assert summary.asked == 0 and [r.reply for r in again] == [r.reply for r in responses]
    priced = settings(fake, price_per_million_tokens={"input": 0.0, "output": 1e6})
    assert cost_estimate(free, priced).usd == pytest.approx(3 * 32)
