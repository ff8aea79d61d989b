"""AWS Bedrock's Converse API, as the stand-in in fake_openai.py speaks it.

inspect's ``bedrock/<model id>`` provider posts (through botocore, signed with SigV4, which
is not checked here) to ``<base_url>/model/<url-encoded model id>/converse``. The answer space
comes from ``additionalModelRequestFields.output_config.format`` (structured outputs, which
inspect sends for Claude only) or from the forced tool's ``inputSchema``; a request with
neither is free. A reply is a text block (the answer JSON, or the free reply) or a
``toolUse`` block, with no log-probabilities (Converse has none). "429" and "500" are
Bedrock's ThrottlingException and InternalServerException, which botocore's own retries
(3 attempts in all) meet before inspect's.
"""

from __future__ import annotations

import json
import re
from typing import Any

PATH = re.compile(r"/model/[^/?]+/converse$")
ERRORS = {"429": "ThrottlingException", "500": "InternalServerException"}


def handles(path: str) -> bool:
    """Whether a POST to `path` (may include a query string) is this provider's generate call."""
    return PATH.search(path.split("?")[0]) is not None


def prompt(body: dict) -> str:
    """The text of the last user message."""
    last = [message for message in body["messages"] if message["role"] == "user"][-1]
    return "".join(block.get("text", "") for block in last["content"])


def max_tokens(body: dict) -> int | None:
    """The output-token budget the request sends."""
    return body.get("inferenceConfig", {}).get("maxTokens")


def _forced_tool(body: dict) -> dict | None:
    """The tool the request forces the model to call (toolChoice "tool" or "any")."""
    config = body.get("toolConfig") or {}
    choice = config.get("toolChoice") or {}
    name = choice.get("tool", {}).get("name") if "tool" in choice else None
    specs = [tool["toolSpec"] for tool in config.get("tools", []) if "toolSpec" in tool]
    forced = [spec for spec in specs if "any" in choice or spec["name"] == name]
    return forced[0] if forced else None


def _schema(body: dict) -> dict | None:
    """The JSON schema of the request's structured output, if any."""
    output_config = body.get("additionalModelRequestFields", {}).get("output_config", {})
    return output_config.get("format", {}).get("schema")


def offered(body: dict) -> list[str] | None:
    """The answer space a request holds the model to (the enum of the `answer` property of its
    JSON schema or of its forced tool's inputSchema); None for a free (unconstrained) request."""
    tool = _forced_tool(body)
    schema = _schema(body) or (tool["inputSchema"]["json"] if tool else None)
    return schema["properties"]["answer"]["enum"] if schema else None


def converse(content: list[dict], stop_reason: str) -> dict[str, Any]:
    """A Converse reply holding `content`."""
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop_reason,
        "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
        "metrics": {"latencyMs": 1},
    }


def reply(fake, path: str, body: dict, fault: str) -> tuple[int, dict[str, str], bytes]:
    """(HTTP status, extra headers, JSON payload) of the reply to `body`."""
    if fault in ERRORS:
        headers = {"x-amzn-ErrorType": ERRORS[fault]}
        return int(fault), headers, json.dumps({"message": "try again"}).encode()
    if fault == "malformed":
        return 200, {}, b"{this is not json"
    text, choices = prompt(body), offered(body)
    if choices is None:
        from tests.helpers.fake_openai import FREE_REPLY

        free = fake.free_reply(text) if fake.free_reply else FREE_REPLY
        return 200, {}, json.dumps(converse([{"text": free}], "end_turn")).encode()
    chosen = fake.choose(text, choices) if fake.choose else choices[0]
    answer = "Maybe" if fault == "outside" else chosen
    tool = _forced_tool(body)
    if _schema(body) is None and tool is not None:
        use = {"toolUseId": "tooluse_1", "name": tool["name"], "input": {"answer": answer}}
        return 200, {}, json.dumps(converse([{"toolUse": use}], "tool_use")).encode()
    content = "not json" if fault == "bad_json" else json.dumps({"answer": answer})
    return 200, {}, json.dumps(converse([{"text": content}], "end_turn")).encode()
