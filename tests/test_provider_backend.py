"""The provider backend (inspect_ai's model API) against stand-in servers on loopback: the
OpenAI wire format as Ollama, vLLM, llama.cpp, Azure OpenAI and any compatible server speak it,
Anthropic's Messages API, Google's Gemini API, Mistral's Conversations API and Bedrock's Converse
API, with scripted replies, refusals and faults."""

from __future__ import annotations

import json
import logging
import math
import re
from contextlib import closing

import pytest

from hiremeornot.asking.ask import ask
from hiremeornot.asking.backends import BackendError, Request, load_backend, model_identity
from hiremeornot.asking.backends.base import PartialBatchError
from hiremeornot.asking.store import ResponseStore, request_key
from hiremeornot.checks import check_config
from hiremeornot.config import model_settings, validate_config
from hiremeornot.errors import InputError
from tests.conftest import SHARED_DATA, needs_data
from tests.helpers import fake_bedrock, fake_google, fake_mistral, fake_openai
from tests.helpers.fake_openai import FREE_REPLY, FakeOpenAI, serve

KEY = "sk-test-PROVIDER-0123456789"
REQUESTS = [
    Request(f"Mary and James are neighbors. Question {i}?", ("Yes", "No")) for i in range(3)
]
# inspect's model string, the path of the stand-in's URL the provider is given, the variable
# its key is read from, and the header that carries it (lower case).
OPENAI_FORMAT = {
    "openai-api/standin/fake-model": ("/v1", "STANDIN_API_KEY", "authorization"),
    "ollama/llama3.1": ("/v1", None, None),
    "vllm/fake-model": ("/v1", "VLLM_API_KEY", "authorization"),
    "llama-cpp-python/fake-model": ("/v1", None, None),
    "openai/azure/fake-deployment": ("", "AZUREAI_OPENAI_API_KEY", "api-key"),
}
ANTHROPIC = {"anthropic/claude-sonnet-4-5": ("", "ANTHROPIC_API_KEY", "authorization")}
OTHERS = {
    "google/gemini-2.5-pro": ("", "GOOGLE_API_KEY", "x-goog-api-key"),
    "mistral/mistral-large-2411": ("", "MISTRAL_API_KEY", "authorization"),
    # SigV4: the key id in the signature's credential
    "bedrock/anthropic.claude-3-5-sonnet-20241022-v2:0": ("", "AWS_ACCESS_KEY_ID", "authorization"),
    "bedrock/meta.llama3-1-70b-instruct-v1:0": ("", "AWS_ACCESS_KEY_ID", "authorization"),
}
PROVIDERS = {**OPENAI_FORMAT, **ANTHROPIC, **OTHERS}
WIRE = {"google": fake_google, "mistral": fake_mistral, "bedrock": fake_bedrock}
# Providers whose answers carry no log-probabilities, and those that report the model asked
# for rather than the one that served (Mistral's and Bedrock's replies, as inspect reads them).
NO_LOGPROBS = ("anthropic/", "mistral/", "bedrock/")
ASKED_MODEL_REPORTED = ("mistral/", "bedrock/")


def wire(model: str):
    """The stand-in module that reads this provider's requests."""
    return WIRE.get(model.split("/")[0], fake_openai)


@pytest.fixture()
def fake(monkeypatch):
    for _, variable, _ in PROVIDERS.values():
        if variable:
            monkeypatch.setenv(variable, KEY)
    monkeypatch.setenv("AZUREAI_OPENAI_API_VERSION", "2025-04-01-preview")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    fake = FakeOpenAI(delay_s=3.0)
    fake.alternatives = [-0.2, -1.7]
    with serve(fake) as url:
        fake.url = url.removesuffix("/v1")
        yield fake


def settings(fake, model="openai-api/standin/fake-model", **changes):
    return model_settings(
        {
            "backend": "provider",
            "model": model,
            "base_url": fake.url + PROVIDERS[model][0],
            "max_retries": 2,
            "timeout_s": 10.0,  # inspect makes a client per question: slow on a loaded machine
            **changes,
        }
    )


def run(fake, store_path, requests=REQUESTS, model="openai-api/standin/fake-model", **changes):
    config = settings(fake, model, **changes)
    return ask(
        requests,
        ResponseStore(store_path),
        model_identity(config),
        lambda: load_backend("provider", config),
    )


@pytest.mark.parametrize("model", [m for m in PROVIDERS if "llama3-1" not in m])
def test_each_provider_is_held_to_the_answer_space_and_asked_free_with_its_own_key(
    fake, tmp_path, model
):
    """A constrained question goes with the choices' JSON schema (the OpenAI format's
    response_format, Anthropic's output_format, Google's responseJsonSchema, ...) and its
    answer keeps the log-probabilities the provider gives; a free one goes plain, cut at its
    budget, and its reply is read; the key comes from the provider's own variable."""
    free = [Request(r.prompt, r.choices, free_tokens=24) for r in REQUESTS[:1]]
    responses, summary = run(fake, tmp_path / "s", [*REQUESTS[:1], *free], model)
    assert summary.asked == 2
    held, replied = responses
    asked_for = model.split("/", 1)[1]
    served = (
        asked_for.removeprefix("bedrock/") if model.startswith(ASKED_MODEL_REPORTED) else "fake"
    )
    assert (held.answer, held.served_model) == ("Yes", served)
    if model.startswith(NO_LOGPROBS):
        assert all(math.isnan(value) for value in held.logprobs)
    else:
        assert held.logprobs == pytest.approx((-1.5, -1.7))  # "Yes" spelled in 3 tokens; "N"
    assert (replied.answer, replied.reply) == ("refused", FREE_REPLY)
    bodies = [request["body"] for request in fake.requests]
    constrained, plain = sorted(bodies, key=lambda body: wire(model).offered(body) is None)
    assert wire(model).offered(constrained) == ["Yes", "No"]
    assert wire(model).offered(plain) is None and wire(model).max_tokens(plain) == 24
    header = PROVIDERS[model][2]
    if header:
        assert all(KEY in request["headers"][header] for request in fake.requests)


@pytest.mark.parametrize("model", ["openai-api/standin/fake-model", *ANTHROPIC, *OTHERS])
def test_the_tool_constraint_reads_the_forced_call_and_the_system_prompt_is_sent(
    fake, tmp_path, model
):
    """The stand-ins answer with a tool call only where the request forces one."""
    fake.choose = lambda prompt, offered: offered[1]
    responses, _ = run(
        fake, tmp_path / "s", REQUESTS[:1], model, constraint="tool", system_prompt="Be brief."
    )
    assert responses[0].answer == "No" and all(math.isnan(v) for v in responses[0].logprobs)
    body = fake.requests[0]["body"]
    assert wire(model).offered(body) == ["Yes", "No"]
    assert "Be brief." in json.dumps(body) and "Be brief." not in wire(model).prompt(body)


def test_transient_faults_are_retried_and_lasting_ones_fail_naming_model_and_prompt(fake, tmp_path):
    fake.faults = ["429", "timeout"]  # a rate limit, then a reply later than timeout_s
    responses, summary = run(fake, tmp_path / "s", REQUESTS[:1], timeout_s=1.0)
    assert responses[0].answer == "Yes" and len(fake.requests) == 3
    fake.faults = ["500"] * 9
    message = r"'openai-api/standin/fake-model' at http.*: .*500.*Question 1"
    with pytest.raises(BackendError, match=message):
        run(fake, tmp_path / "s", REQUESTS[1:2], max_retries=0, timeout_s=30)
    # max_retries 0: inspect's one attempt, within which the OpenAI SDK retries twice
    assert len(fake.requests) == 3 + 3
    assert len(ResponseStore(tmp_path / "s")) == 1  # nothing stored for the failed question


@pytest.mark.parametrize(
    ("model", "sent"),
    [
        ("google/gemini-2.5-pro", 1),
        ("mistral/mistral-large-2411", 1),
        ("bedrock/anthropic.claude-3-5-sonnet-20241022-v2:0", 3),
    ],
)
def test_a_lasting_server_error_fails_naming_model_and_prompt_in_every_wire_format(
    fake, tmp_path, model, sent
):
    """max_retries 0: inspect's one attempt, within which botocore retries twice for Bedrock
    and Google's and Mistral's SDKs not at all."""
    fake.faults = ["500"] * 9
    with pytest.raises(BackendError, match=re.escape(f"'{model}' at http") + ".*Question 1"):
        run(fake, tmp_path / "s", REQUESTS[1:2], model, max_retries=0, timeout_s=30)
    assert len(fake.requests) == sent
    assert len(ResponseStore(tmp_path / "s")) == 0


@pytest.mark.parametrize(
    ("fault", "message"),
    [("outside", r"answered 'Maybe', outside \['Yes', 'No'\]"), ("bad_json", "malformed JSON")],
)
def test_an_answer_outside_the_space_is_refused_and_the_others_are_kept(
    fake, tmp_path, fault, message
):
    wrong = {"outside": "Maybe", "bad_json": None}[fault]  # None: a reply that is not JSON
    fake.choose = lambda prompt, offered: wrong if "Question 1" in prompt else offered[0]
    backend = load_backend("provider", settings(fake))
    with closing(backend), pytest.raises(PartialBatchError, match=message) as error:
        backend.answer(REQUESTS)
    assert sorted(error.value.answered) == [0, 2]
    assert KEY not in str(error.value)


def test_a_missing_key_or_unknown_provider_is_one_line_naming_the_model(fake, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    message = r"^model 'anthropic/claude-sonnet-4-5': Unable .* No ANTHROPIC_API_KEY defined"
    with pytest.raises(InputError, match=message):
        load_backend("provider", settings(fake, "anthropic/claude-sonnet-4-5"))
    unknown = {**settings(fake), "model": "nosuchprovider/model"}
    with pytest.raises(InputError, match=r"model 'nosuchprovider/model': ") as error:
        load_backend("provider", unknown)
    assert "\n" not in str(error.value)


def test_the_store_key_holds_provider_model_constraint_and_settings_not_runtime(fake):
    identity = model_identity(settings(fake))
    assert identity["model"] == "openai-api/standin/fake-model"
    assert {
        "backend",
        "base_url",
        "constraint",
        "system_prompt",
        "temperature",
        "top_logprobs",
        "answer_max_tokens",
    } <= set(identity)
    assert not {"concurrency", "max_retries", "timeout_s", "max_cost_usd"} & set(identity)
    other = model_identity(settings(fake, "anthropic/claude-sonnet-4-5"))
    free = Request(REQUESTS[0].prompt, REQUESTS[0].choices, free_tokens=24)
    keys = {request_key(i, r) for i in (identity, other) for r in (REQUESTS[0], free)}
    assert len(keys) == 4


def test_a_second_run_asks_nothing_and_a_cost_cap_stops_a_run_before_it_asks(
    fake, tmp_path, caplog
):
    caplog.set_level(logging.INFO, logger="hiremeornot")
    prices = {"input": 1000.0, "output": 2000.0}
    run(fake, tmp_path / "s", price_per_million_tokens=prices)
    assert "fake-model: 3 requests to send" in caplog.text and "estimated cost $" in caplog.text
    asked = len(fake.requests)
    _, summary = run(fake, tmp_path / "s")
    assert (summary.asked, summary.from_store, len(fake.requests)) == (0, 3, asked)
    with pytest.raises(InputError, match=r"over max_cost_usd \$0\.01; nothing was asked"):
        run(fake, tmp_path / "t", price_per_million_tokens=prices, max_cost_usd=0.01)
    assert len(fake.requests) == asked


def test_a_reasoning_models_answer_budget_is_sent_and_priced(fake, tmp_path, caplog):
    """answer_max_tokens goes as a constrained question's output budget (room for a reasoning
    model's thinking, which counts against it), and the estimate prices each answer at it."""
    caplog.set_level(logging.INFO, logger="hiremeornot")
    model = "google/gemini-2.5-pro"
    run(fake, tmp_path / "s", REQUESTS[:2], model, answer_max_tokens=2048)
    assert {fake_google.max_tokens(request["body"]) for request in fake.requests} == {2048}
    assert "and 4,096 output tokens" in caplog.text


def test_top_logprobs_0_asks_for_none(fake, tmp_path):
    """For an API that refuses log-probabilities (some Gemini models): none asked, NaN kept."""
    responses, _ = run(fake, tmp_path / "s", REQUESTS[:1], "google/gemini-2.5-pro", top_logprobs=0)
    assert responses[0].answer == "Yes" and all(math.isnan(v) for v in responses[0].logprobs)
    assert "responseLogprobs" not in fake.requests[0]["body"]["generationConfig"]


@needs_data
@pytest.mark.parametrize(
    ("model", "key", "value", "message"),
    [
        ("anthropic/claude-sonnet-4-5", "constraint", "grammar", "'grammar' is the openai"),
        ("bedrock/meta.llama3-1-70b-instruct-v1:0", "constraint", "json_schema", "Bedrock holds"),
        ("google/gemini-2.5-pro", "top_logprobs", 21, "21 is more than the 20 alternatives"),
    ],
)
def test_a_setting_the_provider_cannot_honour_is_refused_before_any_job(model, key, value, message):
    """grammar is the openai backend's; inspect drops a JSON schema for Bedrock's models other
    than Claude (their replies would be free text); no API gives over 20 alternatives a token."""
    settings = {"backend": "provider", "model": model, key: value}
    config = validate_config({"local_data": str(SHARED_DATA), "models": {"m": settings}})
    with pytest.raises(InputError, match=rf"^models\.m\.{key}: {message}"):
        check_config(config)
