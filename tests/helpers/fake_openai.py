"""An OpenAI-compatible server on loopback that injects scripted faults; it also speaks
Anthropic's Messages API (POST .../messages), Google's Gemini API, Mistral's Conversations API
and Bedrock's Converse API, with the same faults and choices.

Chat completions: each request takes the next entry of ``faults`` (then "ok"): "429"
(Retry-After: 0), "500", "timeout" (answers too late), "reset" (drops the connection),
"malformed" (a body that is not JSON), "bad_json" (content that is not the answer JSON),
"outside" (an answer not offered), or "ok" (the first offered choice, or what ``choose``
picks, with token log-probabilities). It reads the answer space from whichever constraint the
request uses. Replies report ``served_model`` as their model and ``system_fingerprint``; with
``alternatives`` (a log-probability per offered choice) every token lists each choice's first
character among its top log-probabilities. Changing these between runs injects a drift.

Batch API: files are uploaded and served back; a batch stays "in_progress" for
``batch_polls`` retrievals, then completes, each line answered as a chat completion
(taking faults the same way; "500" lands in the error file).

A free question (no constraint) is answered with ``free_reply(prompt)``, or a refusal.

Messages API: the answer space comes from ``output_format`` (structured outputs) or a forced
tool's ``input_schema``; a reply is a text block (the answer JSON, or a free reply) or a
``tool_use`` block; no log-probabilities (Anthropic has none). "429" and "500" are Anthropic's
error bodies.

Google's, Mistral's and Bedrock's formats are served by the modules of ``FAMILIES``, from the
same state and faults.
"""

from __future__ import annotations

import email.parser
import http.server
import json
import re
import socket
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from typing import Any

from tests.helpers import fake_bedrock, fake_google, fake_mistral

# The fields that hold a request to its answer space; a request with none is a free question.
CONSTRAINTS = ("response_format", "tools", "structured_outputs", "grammar", "logit_bias")
FREE_REPLY = "I cannot judge that from their names alone."
# The other providers' wire formats, each a module of handles(path) and reply(...).
FAMILIES = (fake_google, fake_mistral, fake_bedrock)


def completion(
    content: str | None,
    tokens: list[dict],
    tool_call: str | None = None,
    model: str = "fake",
    fingerprint: str | None = None,
) -> dict:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_call is not None:
        function = {"name": "answer", "arguments": tool_call}
        message["tool_calls"] = [{"id": "call-1", "type": "function", "function": function}]
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "system_fingerprint": fingerprint,
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": message,
                "logprobs": {"content": tokens},
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def message(content: list[dict], fake: FakeOpenAI) -> dict:
    """A Messages API reply holding ``content``, from the model ``fake`` reports."""
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": fake.served_model,
        "content": content,
        "stop_reason": "tool_use" if content[0]["type"] == "tool_use" else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def char_tokens(content: str) -> list[dict]:
    """One token per character, each of log-probability -0.5."""
    return [{"token": ch, "logprob": -0.5, "top_logprobs": []} for ch in content]


def offered(body: dict) -> list[str] | None:
    """The answer space of a chat-completions or Messages API request; None for a free one."""
    if "output_format" in body:
        return body["output_format"]["schema"]["properties"]["answer"]["enum"]
    if body.get("tools") and "input_schema" in body["tools"][0]:
        return body["tools"][0]["input_schema"]["properties"]["answer"]["enum"]
    return offered_choices(body) if any(body.get(key) for key in CONSTRAINTS) else None


def prompt(body: dict) -> str:
    """The text of the last message of a chat-completions or Messages API request."""
    content = body["messages"][-1]["content"]
    return content if isinstance(content, str) else content[-1]["text"]


def max_tokens(body: dict) -> int | None:
    """The output-token budget a chat-completions or Messages API request sends."""
    return body.get("max_tokens")


def offered_choices(body: dict) -> list[str]:
    """The answer space of a request, whatever its constraint."""
    if "response_format" in body:
        return body["response_format"]["json_schema"]["schema"]["properties"]["answer"]["enum"]
    if "tools" in body:
        return body["tools"][0]["function"]["parameters"]["properties"]["answer"]["enum"]
    if "structured_outputs" in body:
        return body["structured_outputs"]["choice"]
    if "grammar" in body:
        return [json.loads(x) for x in re.findall(r'"(?:[^"\\]|\\.)*"', body["grammar"])]
    raise AssertionError(f"unconstrained request: {body}")


class FakeOpenAI:
    """Scripted faults, and a record of every request (body and Authorization header)."""

    def __init__(self, delay_s: float = 3.0):
        self.faults: list[str] = []
        self.requests: list[dict] = []
        self.delay_s = delay_s
        self.token_texts: dict[str, str] = {}  # logit_bias: token id -> its text
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict] = {}
        self.batch_polls = 1
        self.batch_error: str | None = None  # a message: the next batch fails validation
        self.served_model = "fake"  # the model id replies report
        self.system_fingerprint: str | None = None
        self.choose: Callable[[str, list[str]], str] | None = None  # (prompt, offered) -> answer
        self.alternatives: list[float] | None = None  # per offered choice, see the docstring
        self.free_reply: Callable[[str], str] | None = None  # prompt -> a free question's reply
        self._lock = threading.Lock()

    def next_fault(self) -> str:
        with self._lock:
            return self.faults.pop(0) if self.faults else "ok"

    def reply(self, body: dict, fault: str) -> tuple[int, dict[str, str], bytes]:
        if fault == "429":
            return 429, {"Retry-After": "0"}, b'{"error": {"message": "slow down"}}'
        if fault == "500":
            return 500, {}, b'{"error": {"message": "boom"}}'
        if fault == "malformed":
            return 200, {}, b"{this is not json"
        if "logit_bias" in body:
            return 200, {}, json.dumps(self.one_token(body, fault)).encode()
        asked = prompt(body)
        if not any(key in body for key in CONSTRAINTS):  # a free question
            text = self.free_reply(asked) if self.free_reply else FREE_REPLY
            served = {"model": self.served_model, "fingerprint": self.system_fingerprint}
            return 200, {}, json.dumps(completion(text, [], **served)).encode()
        choices = offered_choices(body)
        chosen = self.choose(asked, choices) if self.choose else choices[0]
        answer = {"outside": "Maybe", "bad_json": None}.get(fault, chosen)
        if "response_format" in body or "tools" in body:
            content = "not json" if answer is None else json.dumps({"answer": answer})
        else:
            content = answer or ""
        served = {"model": self.served_model, "fingerprint": self.system_fingerprint}
        if "tools" in body:
            reply = completion(None, [], tool_call=content, **served)
            return 200, {}, json.dumps(reply).encode()
        tokens = char_tokens(content)
        if self.alternatives is not None:
            top = [
                {"token": choice[0], "logprob": logprob}
                for choice, logprob in zip(choices, self.alternatives, strict=True)
            ]
            tokens = [{**token, "top_logprobs": top} for token in tokens]
        return 200, {}, json.dumps(completion(content, tokens, **served)).encode()

    def messages_reply(self, body: dict, fault: str) -> tuple[int, dict[str, str], bytes]:
        """A reply of Anthropic's Messages API to ``body`` (see the module's docstring)."""
        if fault in ("429", "500"):
            kind = {"429": "rate_limit_error", "500": "api_error"}[fault]
            error = {"type": "error", "error": {"type": kind, "message": "try again"}}
            return int(fault), {"Retry-After": "0"}, json.dumps(error).encode()
        if fault == "malformed":
            return 200, {}, b"{this is not json"
        asked, choices = prompt(body), offered(body)
        if choices is None:
            text = self.free_reply(asked) if self.free_reply else FREE_REPLY
            return 200, {}, json.dumps(message([{"type": "text", "text": text}], self)).encode()
        chosen = self.choose(asked, choices) if self.choose else choices[0]
        answer = {"outside": "Maybe", "bad_json": None}.get(fault, chosen)
        if "output_format" in body:
            text = "not json" if answer is None else json.dumps({"answer": answer})
            block = {"type": "text", "text": text}
        else:
            block = {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "answer",
                "input": {"answer": answer},
            }
        return 200, {}, json.dumps(message([block], self)).encode()

    def one_token(self, body: dict, fault: str) -> dict:
        """The first biased token, with every biased token among the top log-probabilities."""
        texts = [self.token_texts[token] for token in body["logit_bias"]]
        top = [{"token": t, "logprob": -1.0 - i} for i, t in enumerate(texts)]
        chosen = "Maybe" if fault == "outside" else texts[0]
        token = {"token": chosen, "logprob": -1.0, "top_logprobs": top}
        return completion(
            chosen, [token], model=self.served_model, fingerprint=self.system_fingerprint
        )

    def batch_lines(self, requests: bytes) -> tuple[bytes, bytes]:
        """(output file, error file) of a batch's request file."""
        output, errors = [], []
        for line in requests.decode().splitlines():
            request = json.loads(line)
            self.requests.append({"body": request["body"], "authorization": "batch"})
            status, _, payload = self.reply(request["body"], self.next_fault())
            result = {
                "id": f"batch_req_{request['custom_id']}",
                "custom_id": request["custom_id"],
                "response": {"status_code": status, "body": json.loads(payload)},
                "error": None,
            }
            (output if status == 200 else errors).append(json.dumps(result))
        return "\n".join(output).encode(), "\n".join(errors).encode()

    def batch_object(self, batch_id: str) -> dict:
        batch = self.batches[batch_id]
        batch["polls"] += 1
        if batch["status"] == "in_progress" and self.batch_error:
            batch.update(status="failed", errors={"data": [{"message": self.batch_error}]})
            self.batch_error = None
        if batch["status"] == "in_progress" and batch["polls"] > self.batch_polls:
            out, err = self.batch_lines(self.files[batch["input_file_id"]])
            self.files[f"{batch_id}-out"], self.files[f"{batch_id}-err"] = out, err
            batch.update(
                status="completed",
                output_file_id=f"{batch_id}-out",
                error_file_id=f"{batch_id}-err",
            )
        return {k: v for k, v in batch.items() if k != "polls"}

    def create_batch(self, body: dict) -> dict:
        batch_id = f"batch-{len(self.batches) + 1}"
        self.batches[batch_id] = {
            "id": batch_id,
            "object": "batch",
            "endpoint": body["endpoint"],
            "input_file_id": body["input_file_id"],
            "completion_window": body["completion_window"],
            "status": "in_progress",
            "created_at": 0,
            "polls": 0,
        }
        return self.batch_object(batch_id)

    def upload(self, content_type: str, raw: bytes) -> dict:
        message = email.parser.BytesParser().parsebytes(
            b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + raw
        )
        content = next(
            p for p in message.walk() if p.get_param("name", header="content-disposition") == "file"
        )
        file_id = f"file-{len(self.files) + 1}"
        self.files[file_id] = content.get_payload(decode=True)
        return {
            "id": file_id,
            "object": "file",
            "bytes": len(self.files[file_id]),
            "created_at": 0,
            "filename": "questions.jsonl",
            "purpose": "batch",
            "status": "processed",
        }


@contextmanager
def serve(fake: FakeOpenAI):
    """Serve ``fake`` on 127.0.0.1; yields the base URL (ending in /v1)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def send(self, status: int, payload: bytes, headers: dict[str, str] | None = None):
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self):
            parts = self.path.strip("/").split("/")  # v1/batches/ID or v1/files/ID/content
            if len(parts) < 3:  # a client looking for the server (GET /v1/models)
                self.send(404, b'{"error": {"message": "not served here"}}')
            elif parts[1] == "batches":
                self.send(200, json.dumps(fake.batch_object(parts[2])).encode())
            else:
                self.send(200, fake.files[parts[2]])

        def do_POST(self):
            raw = self.rfile.read(int(self.headers["Content-Length"]))
            if self.path.endswith("/files"):
                self.send(200, json.dumps(fake.upload(self.headers["Content-Type"], raw)).encode())
                return
            body = json.loads(raw)
            if self.path.endswith("/batches"):
                self.send(200, json.dumps(fake.create_batch(body)).encode())
                return
            fake.requests.append(
                {
                    "body": body,
                    "authorization": self.headers["Authorization"],
                    "headers": {k.lower(): v for k, v in self.headers.items()},
                }
            )
            fault = fake.next_fault()
            if fault == "reset":
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if fault == "timeout":
                time.sleep(fake.delay_s)
            family = next((f for f in FAMILIES if f.handles(self.path)), None)
            if family is not None:
                status, headers, payload = family.reply(fake, self.path, body, fault)
            elif self.path.split("?")[0].endswith("/messages"):
                status, headers, payload = fake.messages_reply(body, fault)
            else:
                status, headers, payload = fake.reply(body, fault)
            self.send(status, payload, headers)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
