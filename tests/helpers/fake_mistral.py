"""Mistral's Conversations API (POST {base_url}/v1/conversations), as inspect's ``mistral/``
provider calls it, for the loopback stand-in of fake_openai.py.

inspect starts a conversation (``store: false``) per question: the prompt is the last entry of
``inputs``, the system prompt goes in ``instructions``, and ``completion_args`` carries
``max_tokens``, ``temperature``, ``response_format`` (a JSON schema) and ``tool_choice``
(always "required" for a forced tool: the API cannot name one). A reply's ``outputs`` hold a
``message.output`` entry (text) or a ``function.call`` entry, each naming ``served_model``
(inspect reports the model asked for instead); no log-probabilities (the API has none). Errors
are Mistral's error object (``{"object": "error", "type": ...}``); inspect retries them itself,
with its own backoff (Retry-After unread), and the SDK does not.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # fake_openai imports this module
    from tests.helpers.fake_openai import FakeOpenAI

PATH = "/v1/conversations"


def handles(path: str) -> bool:
    """Whether a POST to `path` (may include a query string) is this provider's generate call."""
    return path.split("?")[0] == PATH  # base_url is the server's root: the SDK adds /v1


def error(kind: str, message: str, code: str | None) -> bytes:
    """Mistral's error object."""
    body = {"object": "error", "message": message, "type": kind, "param": None, "code": code}
    return json.dumps(body).encode()


def entry(fake: FakeOpenAI, kind: str, **fields: Any) -> dict:
    """One output entry of the conversation, from the model ``fake`` reports."""
    return {
        "object": "entry",
        "type": kind,
        "id": "msg_1",
        "model": fake.served_model,
        "created_at": "2025-01-01T00:00:00Z",
        "completed_at": "2025-01-01T00:00:01Z",
        **fields,
    }


def message(fake: FakeOpenAI, content: str) -> dict:
    """A text reply of the assistant."""
    return entry(fake, "message.output", role="assistant", content=content)


def conversation(outputs: list[dict]) -> bytes:
    """A conversation response holding ``outputs``."""
    usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    body = {
        "object": "conversation.response",
        "conversation_id": "conv_1",
        "outputs": outputs,
        "usage": usage,
    }
    return json.dumps(body).encode()


def offered(body: dict) -> list[str] | None:
    """The answer space a request holds the model to (the enum of the `answer` property of its
    JSON schema or of its forced tool's parameters); None for a free (unconstrained) request."""
    response_format = (body.get("completion_args") or {}).get("response_format")
    if response_format:
        schema = response_format["json_schema"]["schema"]
    elif body.get("tools"):
        schema = body["tools"][0]["function"]["parameters"]
    else:
        return None
    return schema["properties"]["answer"]["enum"]


def max_tokens(body: dict) -> int | None:
    """The output-token budget the request sends."""
    return (body.get("completion_args") or {}).get("max_tokens")


def prompt(body: dict) -> str:
    """The text of the last user message."""
    inputs = body["inputs"]
    if isinstance(inputs, str):
        return inputs
    content = [e for e in inputs if e.get("role") == "user"][-1]["content"]
    return content if isinstance(content, str) else content[-1]["text"]


def reply(fake: FakeOpenAI, path: str, body: dict, fault: str) -> tuple[int, dict[str, str], bytes]:
    """(HTTP status, extra headers, JSON payload) of the reply to `body`."""
    if fault == "429":
        return 429, {"Retry-After": "0"}, error("rate_limited", "Rate limit exceeded", "1300")
    if fault == "500":
        return 500, {}, error("internal_server_error", "Internal server error", None)
    if fault == "malformed":
        return 200, {}, b"{this is not json"
    text, choices = prompt(body), offered(body)
    if choices is None:  # a free question
        from tests.helpers.fake_openai import FREE_REPLY

        content = fake.free_reply(text) if fake.free_reply else FREE_REPLY
        return 200, {}, conversation([message(fake, content)])
    chosen = fake.choose(text, choices) if fake.choose else choices[0]
    if (body.get("completion_args") or {}).get("response_format"):
        answer = {"outside": "Maybe", "bad_json": None}.get(fault, chosen)  # None: not JSON
        content = "not json" if answer is None else json.dumps({"answer": answer})
        return 200, {}, conversation([message(fake, content)])
    answer = "Maybe" if fault == "outside" else chosen  # "bad_json": a tool call is JSON
    call = {"tool_call_id": "call_1", "name": "answer", "arguments": json.dumps({"answer": answer})}
    return 200, {}, conversation([entry(fake, "function.call", **call)])
