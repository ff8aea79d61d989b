"""An OpenAI-compatible chat-completions server on loopback that injects scripted faults.

Each request takes the next entry of ``faults`` (then "ok"): "429" (Retry-After: 0), "500",
"timeout" (answers too late), "reset" (drops the connection), "malformed" (a body that is not
JSON), "bad_json" (content that is not the answer JSON), "outside" (an answer not offered), or
"ok" (the first offered choice, with token log-probabilities).
"""

from __future__ import annotations

import http.server
import json
import socket
import threading
import time
from contextlib import contextmanager


def completion(content: str) -> dict:
    tokens = [{"token": ch, "logprob": -0.5, "top_logprobs": []} for ch in content]
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": "fake",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
                "logprobs": {"content": tokens},
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


class FakeOpenAI:
    """Scripted faults, and a record of every request (body and Authorization header)."""

    def __init__(self, delay_s: float = 3.0):
        self.faults: list[str] = []
        self.requests: list[dict] = []
        self.delay_s = delay_s
        self._lock = threading.Lock()

    def next_fault(self) -> str:
        with self._lock:
            return self.faults.pop(0) if self.faults else "ok"

    def reply(self, body: dict, fault: str) -> tuple[int, dict[str, str], bytes]:
        choices = body["response_format"]["json_schema"]["schema"]["properties"]["answer"]["enum"]
        answer = {"outside": "Maybe", "bad_json": None}.get(fault, choices[0])
        content = "not json" if answer is None else json.dumps({"answer": answer})
        if fault == "429":
            return 429, {"Retry-After": "0"}, b'{"error": {"message": "slow down"}}'
        if fault == "500":
            return 500, {}, b'{"error": {"message": "boom"}}'
        if fault == "malformed":
            return 200, {}, b"{this is not json"
        return 200, {}, json.dumps(completion(content)).encode()


@contextmanager
def serve(fake: FakeOpenAI):
    """Serve ``fake`` on 127.0.0.1; yields the base URL (ending in /v1)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            fake.requests.append({"body": body, "authorization": self.headers["Authorization"]})
            fault = fake.next_fault()
            if fault == "reset":
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if fault == "timeout":
                time.sleep(fake.delay_s)
            status, headers, payload = fake.reply(body, fault)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
