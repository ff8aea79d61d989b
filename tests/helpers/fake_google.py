"""Google's Gemini API (``google/<model>``) for the loopback stand-in: POST
``{base_url}/v1/models/<model>:generateContent`` (google-genai 3.6 adds its default API version,
v1, to a bare ``base_url``), the key in the ``x-goog-api-key`` header.

The SDK sends camelCase JSON (the function's schema excepted): the prompt in ``contents``, the
system prompt in ``systemInstruction``, the budget in ``generationConfig.maxOutputTokens``; the
answer space in ``generationConfig.responseJsonSchema`` or in a forced function
(``tools[0].functionDeclarations[0].parameters_json_schema``, ``toolConfig`` mode ANY);
log-probabilities asked for by ``generationConfig.responseLogprobs`` come back in
``logprobsResult``, one token per character of the reply text as in ``fake_openai`` (none for a
function call). "429" and "500" are Google's error bodies; the SDK does not retry them, inspect
does, 3 to 6 s apart whatever ``Retry-After`` says.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.helpers.fake_openai import FakeOpenAI

ERRORS = {"429": "RESOURCE_EXHAUSTED", "500": "INTERNAL"}
PARAMETERS = ("parameters_json_schema", "parametersJsonSchema", "parameters")


def handles(path: str) -> bool:
    """Whether a POST to `path` (may include a query string) is this provider's generate call."""
    return path.split("?")[0].endswith(":generateContent")


def _schema(body: dict) -> dict | None:
    """The JSON schema a request holds its reply to: its response schema or forced tool's."""
    config = body.get("generationConfig", {})
    if "responseJsonSchema" in config:
        return config["responseJsonSchema"]
    for tool in body.get("tools", []):
        for function in tool.get("functionDeclarations", []):
            return next((function[key] for key in PARAMETERS if key in function), None)
    return None


def offered(body: dict) -> list[str] | None:
    """The answer space a request holds the model to; None for a free request."""
    schema = _schema(body)
    return None if schema is None else schema["properties"]["answer"]["enum"]


def max_tokens(body: dict) -> int | None:
    """The output-token budget the request sends."""
    return body.get("generationConfig", {}).get("maxOutputTokens")


def prompt(body: dict) -> str:
    """The text of the last user message."""
    last = [content for content in body["contents"] if content.get("role") == "user"][-1]
    return "".join(part.get("text", "") for part in last["parts"])


def _logprobs(text: str, choices: list[str] | None, alternatives: list[float] | None) -> dict:
    """``logprobsResult``: one token per character at -0.5, each choice's first character
    among the top candidates of every token when ``alternatives`` are given."""
    pairs = [] if alternatives is None else zip(choices or [], alternatives, strict=True)
    top = [{"token": choice[0], "logProbability": logprob} for choice, logprob in pairs]
    chosen = [{"token": ch, "logProbability": -0.5} for ch in text]
    return {"chosenCandidates": chosen, "topCandidates": [{"candidates": top} for _ in text]}


def reply(fake: FakeOpenAI, path: str, body: dict, fault: str) -> tuple[int, dict[str, str], bytes]:
    """(HTTP status, extra headers, JSON payload) of the reply to `body`."""
    if fault in ERRORS:
        error = {"code": int(fault), "message": "try again", "status": ERRORS[fault]}
        return int(fault), {"Retry-After": "0"}, json.dumps({"error": error}).encode()
    if fault == "malformed":
        return 200, {}, b"{this is not json"
    asked, choices = prompt(body), offered(body)
    if choices is None:
        from tests.helpers.fake_openai import FREE_REPLY

        part: dict = {"text": fake.free_reply(asked) if fake.free_reply else FREE_REPLY}
    else:
        chosen = fake.choose(asked, choices) if fake.choose else choices[0]
        answer = "Maybe" if fault == "outside" else chosen
        if "responseJsonSchema" in body.get("generationConfig", {}):
            part = {"text": "not json" if fault == "bad_json" else json.dumps({"answer": answer})}
        else:
            part = {"functionCall": {"name": "answer", "args": {"answer": answer}}}
    candidate: dict = {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP"}
    if body.get("generationConfig", {}).get("responseLogprobs") and "text" in part:
        alternatives = fake.alternatives if choices else None
        candidate["logprobsResult"] = _logprobs(part["text"], choices, alternatives)
    usage = {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}
    payload = {
        "candidates": [{**candidate, "index": 0}],
        "usageMetadata": usage,
        "modelVersion": fake.served_model,
        "responseId": "google-test",
    }
    return 200, {}, json.dumps(payload).encode()
