"""The OpenAI backend against a real OpenAI-compatible server: llama-cpp-python on loopback.

The server (tests/helpers/servers.py) serves the embedded SmolLM2 GGUF file with llama.cpp. The
reference is the transformers backend on the same file: greedy constrained decoding, the paper's
method, with exact per-choice log-probabilities. Both see the same prompt tokens (the model's own
chat template, checked below) and at each step take the best token that keeps the text a prefix
of a choice, so they should give the same answers.

Why the log-probabilities differ a little: transformers dequantizes the Q4_1 weights to fp32,
while llama.cpp computes with them quantized, rounding the activations to 8 bits for its dot
products. On these prompts that moves a token's log-probability by up to 0.27 nats; the same
weights converted to F32 inside llama.cpp agree with transformers within 0.005 nats, so nothing
else differs. TOLERANCE_NATS leaves room for that noise, and still catches a real mismatch (another
template, system prompt or BOS token moves log-probabilities by whole nats). The noise can flip a
near tie: two of the 48 prompts have a margin under 0.3 nats between Yes and No, hence at most
two disagreements (all 48 agreed when measured).

Why a second server beside vLLM's (tests/test_vllm_cpu.py), though llama-cpp-python builds from
source (6 to 9 minutes on 2 cores, once per machine, from its pip cache after): vLLM's server
tests the `structured_outputs` and `json_schema` constraints; only this one tests the `grammar`
constraint (llama.cpp's GBNF), `logit_bias` against a real server (the gpt-3.5-turbo path, with
the model's own tokenizer), and what a server that lacks a constraint answers (a clear error,
never an answer outside the answer space).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any, NamedTuple

import pytest
import torch
from scipy.special import log_softmax

from hiremeornot.asking.backends import Backend, BackendError, Request, Response, load_backend
from hiremeornot.asking.backends.choice_engine import token_strings
from hiremeornot.asking.backends.transformers_backend import TransformersBackend
from hiremeornot.config import model_settings
from tests.conftest import needs_data
from tests.helpers.servers import ALIAS, MODEL, llama_server
from tests.test_transformers_backend import fixed_prompt_set

pytest.importorskip(
    "llama_cpp", reason="llama-cpp-python[server] is not installed (the test extra installs it)"
)

pytestmark = [pytest.mark.slow, needs_data]
KEY_ENV = "HIREMEORNOT_LLAMA_SERVER_KEY"
TOLERANCE_NATS = 0.5  # measured at most 0.27 (llama.cpp's Q4_1 arithmetic against fp32)
MIN_AGREEMENT = 46 / 48  # two near ties (margin under 0.3 nats) may flip


class Reference(NamedTuple):
    """The transformers backend and its answers to the prompts."""

    backend: TransformersBackend
    responses: list[Response]


@pytest.fixture(scope="module")
def prompts() -> list[Request]:
    """Step 1 attribute questions, Q1, Q2 and Q3 of the real templates (48)."""
    return fixed_prompt_set()


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    with llama_server(tmp_path_factory.mktemp("llama-server") / "server.log") as base_url:
        yield base_url


@pytest.fixture(scope="module")
def reference(prompts) -> Reference:
    settings = {"backend": "transformers", "model": MODEL, "decoding": "greedy"}
    backend = load_backend("transformers", model_settings(settings))
    responses = [r for i in range(0, len(prompts), 16) for r in backend.answer(prompts[i : i + 16])]
    return Reference(backend, responses)


def server_backend(base_url: str, monkeypatch, **changes) -> Backend:
    monkeypatch.setenv(KEY_ENV, "sk-test-unused-by-llama-cpp")
    settings = {
        "backend": "openai",
        "model": ALIAS,
        "base_url": base_url,
        "api_key_env": KEY_ENV,
        "max_retries": 0,
        **changes,
    }
    return load_backend("openai", model_settings(settings))


def record_replies(backend: Backend, monkeypatch) -> dict[str, Any]:
    """Every reply the backend receives, by its prompt (the user's turn)."""
    completions = backend.api.client.chat.completions
    create = completions.create
    replies: dict[str, Any] = {}

    def recording(**arguments):
        reply = create(**arguments)
        replies[arguments["messages"][-1]["content"]] = reply
        return reply

    monkeypatch.setattr(completions, "create", recording)
    return replies


def token_ids(reference: Reference, text: str) -> list[int]:
    return reference.backend.tokenizer(text, add_special_tokens=False)["input_ids"]


def path_logprob(reference: Reference, prompt: str, tokens: list[str]) -> float:
    """The reference model's log-probability of exactly these answer tokens after the prompt."""
    strings = token_strings(reference.backend.tokenizer)
    prompt_ids = reference.backend.prompt_ids(prompt)
    answer_ids = [strings[token][0] for token in tokens]
    with torch.inference_mode():
        logits = reference.backend.model(input_ids=torch.tensor([prompt_ids + answer_ids])).logits
    logprobs = torch.log_softmax(logits[0].float(), dim=-1)
    return sum(float(logprobs[len(prompt_ids) - 1 + j, t]) for j, t in enumerate(answer_ids))


def reference_logprob(
    reference: Reference, request: Request, expected: Response, spelled: list[str]
) -> tuple[float, str | None]:
    """The reference's log-probability of the answer as the server spelled it, and a note.

    The transformers backend reports each choice's canonical tokenization. Greedy decoding may
    spell the answer otherwise ("A|n|d|re|w"), and the server reports the path it took: then
    the reference computes that path's log-probability.
    """
    answer = expected.answer
    canonical = [reference.backend.tokenizer.decode([t]) for t in token_ids(reference, answer)]
    own = expected.logprobs[request.choices.index(answer)]
    if spelled == canonical:
        return own, None
    path = path_logprob(reference, request.prompt, spelled)
    return (
        path,
        f"{answer!r} spelled {'|'.join(spelled)}: transformers {path:.3f} (canonical {own:.3f})",
    )


def in_answer_space(requests: list[Request], responses: list[Response]) -> bool:
    return all(r.answer in q.choices for q, r in zip(requests, responses, strict=True))


def test_grammar_answers_and_logprobs_agree_with_the_transformers_backend(
    server, reference, prompts, monkeypatch
):
    backend = server_backend(server, monkeypatch, constraint="grammar")
    replies = record_replies(backend, monkeypatch)
    responses = backend.answer(prompts)
    assert len(prompts) == len({q.prompt for q in prompts}) == len(replies) == 48
    assert in_answer_space(prompts, responses)
    for request in prompts:  # both backends see the same prompt tokens
        prompt_tokens = len(reference.backend.prompt_ids(request.prompt))
        assert replies[request.prompt].usage.prompt_tokens == prompt_tokens

    agreed, differences, notes = 0, [], []
    for request, got, expected in zip(prompts, responses, reference.responses, strict=True):
        if got.answer != expected.answer:
            notes.append(f"server {got.answer!r}, transformers {expected.answer!r}")
            continue
        agreed += 1
        spelled = [t.token for t in replies[request.prompt].choices[0].logprobs.content]
        assert "".join(spelled) == got.answer
        want, note = reference_logprob(reference, request, expected, spelled)
        server_logprob = got.logprobs[request.choices.index(got.answer)]
        differences.append((abs(server_logprob - want), request.prompt))
        if note:
            notes.append(f"{note}, server {server_logprob:.3f}")

    rate = agreed / len(prompts)
    largest, worst = max(differences)
    print(
        f"\ngrammar: {agreed}/{len(prompts)} answers agree with the transformers backend "
        f"({rate:.1%}); largest |difference| in the answer's log-prob {largest:.3f} nats "
        f"(prompt {worst[:60]!r}...)",
        *notes,
        sep="\n  ",
    )
    assert rate >= MIN_AGREEMENT
    assert largest <= TOLERANCE_NATS


def test_logit_bias_answers_agree_where_every_choice_is_one_token(
    server, reference, prompts, monkeypatch
):
    """One token with a +100 bias on each choice's first token (the gpt-3.5-turbo path).

    Where every choice is one token that is greedy constrained decoding, and the reply's
    log-probabilities renormalised over the choices are the model's. Elsewhere it can differ:
    greedy may start a choice with a shorter token ("A" for "Andrew") than its first token.
    """
    backend = server_backend(server, monkeypatch, constraint="logit_bias", tokenizer=MODEL)
    responses = backend.answer(prompts)
    assert in_answer_space(prompts, responses)
    pairs = list(zip(prompts, responses, reference.responses, strict=True))
    single = [
        (got, expected)
        for q, got, expected in pairs
        if all(len(token_ids(reference, c)) == 1 for c in q.choices)
    ]
    agreed = sum(got.answer == expected.answer for got, expected in single)
    overall = sum(got.answer == expected.answer for _, got, expected in pairs)
    differences = []
    for got, expected in single:
        if not any(math.isnan(value) for value in got.logprobs):  # all in the top 20
            renormalised = log_softmax(expected.logprobs)  # over the choices
            differences += [abs(g - e) for g, e in zip(got.logprobs, renormalised, strict=True)]
    rate = agreed / len(single)
    print(
        f"\nlogit_bias: {agreed}/{len(single)} one-token answer spaces agree ({rate:.1%}), "
        f"{overall}/{len(pairs)} overall; largest |difference| in renormalised log-probs "
        f"{max(differences):.3f} nats over {len(differences)} values"
    )
    assert len(single) >= 30
    assert rate >= MIN_AGREEMENT
    assert max(differences) <= TOLERANCE_NATS


@pytest.mark.parametrize(
    ("constraint", "messages"),
    [
        # llama-cpp-python 0.3.36 knows only response_format "text" and "json_object"
        ("json_schema", ["Error code: 500", "Input should be 'text' or 'json_object'"]),
        # an unknown field is silently ignored: the model answers in free text
        ("structured_outputs", ["answered", "outside ['Mary', 'James', 'both', 'neither']"]),
    ],
)
def test_constraints_llama_cpp_lacks_fail_clearly(server, monkeypatch, constraint, messages):
    backend = server_backend(server, monkeypatch, constraint=constraint)
    request = Request(
        "Mary and James are neighbors. Who will be a pilot?", ("Mary", "James", "both", "neither")
    )
    with pytest.raises(BackendError) as error:
        backend.answer([request])
    print(f"\n{constraint}: {error.value}")
    assert all(message in str(error.value) for message in messages)
    assert ALIAS in str(error.value) and "pilot" in str(error.value)


def test_free_questions_get_the_servers_own_text_within_the_budget(server, monkeypatch, prompts):
    """A free question goes without constraint; the reply's tokens stay within the budget and
    the reply is kept and read (as an answer, or a non-answer) like any free reply."""
    backend = server_backend(server, monkeypatch)
    replies = record_replies(backend, monkeypatch)
    free = [Request(r.prompt, r.choices, free_tokens=24) for r in prompts[::5]]
    responses = backend.answer(free)
    for request, response in zip(free, responses, strict=True):
        assert (
            response.reply and response.reply == replies[request.prompt].choices[0].message.content
        )
        assert replies[request.prompt].usage.completion_tokens <= 24
        assert response.answer in (*request.choices, "refused", "other", "unparsed")
    print("\n" + "\n".join(f"{r.reply[:70]!r} -> {r.answer}" for r in responses))
    assert any(r.answer in q.choices for q, r in zip(free, responses, strict=True))
