"""A real OpenAI-compatible server on loopback: llama-cpp-python serving the embedded SmolLM2.

``python -m llama_cpp.server`` serves the model's GGUF file (Q4_1 weights, its own ChatML
template) at ``/v1/chat/completions``, the protocol the openai SDK speaks. The server runs as a
subprocess with its log in a file; a failed start is an error quoting the end of that log.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hiremeornot.asking.backends.location import locate

MODEL = "embedded:smollm2-135m-instruct"
ALIAS = "smollm2-135m-instruct"  # the model name the server answers to


class ServerStartError(RuntimeError):
    """The server did not answer in time, or exited while starting."""


def free_port() -> int:
    """A loopback port that nothing listens on (the server binds it a moment later)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def log_tail(log_path: Path, lines: int = 30) -> str:
    text = log_path.read_text(errors="replace") if log_path.exists() else ""
    return "\n".join(text.splitlines()[-lines:])


def server_command(port: int) -> list[str]:
    folder, gguf_file, _ = locate(MODEL)
    return [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(folder / gguf_file),
        "--model_alias",
        ALIAS,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "2048",
        "--n_threads",
        str(min(4, os.cpu_count() or 1)),
        "--seed",
        "0",
    ]


def wait_until_ready(
    process: subprocess.Popen, base_url: str, log_path: Path, timeout_s: float
) -> None:
    """Poll ``/v1/models`` until it lists the model; ServerStartError with the log tail if not."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServerStartError(
                f"llama_cpp.server exited with code {process.returncode} while starting; "
                f"log {log_path}:\n{log_tail(log_path)}"
            )
        try:
            with urllib.request.urlopen(f"{base_url}/models", timeout=2) as reply:
                if ALIAS in [m["id"] for m in json.load(reply)["data"]]:
                    return
        except (OSError, urllib.error.URLError, ValueError, KeyError):
            pass
        time.sleep(0.2)
    raise ServerStartError(
        f"llama_cpp.server did not answer {base_url}/models within {timeout_s:.0f} s; "
        f"log {log_path}:\n{log_tail(log_path)}"
    )


@contextmanager
def llama_server(log_path: Path, timeout_s: float = 120.0) -> Iterator[str]:
    """Start the server, yield its base URL (``http://127.0.0.1:PORT/v1``), always stop it."""
    port = free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            server_command(port), stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
    try:
        wait_until_ready(process, base_url, log_path, timeout_s)
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
