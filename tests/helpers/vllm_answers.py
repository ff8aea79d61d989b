"""One model answers a list of questions in one start of its backend, in the model's own
environment (``venv``): how the vLLM tests put the same prompts to other engine layouts (two
pipeline stages, tensor parallel) without a workflow job per step, each of which starts the
engine again (a minute or more on CPUs). The engine runs in the answering process
(ENGINE_IN_PROCESS).

``answer_in_one_start`` runs this module as a script (``python -m tests.helpers.vllm_answers
FOLDER``) with the model's interpreter: it reads ``FOLDER/settings.json`` and
``FOLDER/requests.json`` and writes ``FOLDER/responses.json``; its log is ``FOLDER/answer.log``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from hiremeornot.asking.backends import Request, load_backend
from hiremeornot.config import model_settings
from tests.helpers.servers import ENGINE_IN_PROCESS

REPO = Path(__file__).resolve().parents[2]


def answer_in_one_start(
    settings: dict[str, Any], requests: list[Request], folder: Path
) -> list[dict[str, Any]]:
    """Each request's answer, log-probabilities and free reply (``{"answer", "logprobs",
    "reply"}``), from one backend built of one model's ``settings`` (their ``venv``'s Python
    runs it)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.json").write_text(json.dumps(settings))
    asked = [[request.prompt, list(request.choices), request.free_tokens] for request in requests]
    (folder / "requests.json").write_text(json.dumps(asked))
    python = Path(settings["venv"], "bin", "python") if settings.get("venv") else sys.executable
    threads = str(settings.get("threads", 1))
    environment = {**os.environ, **ENGINE_IN_PROCESS, "OMP_NUM_THREADS": threads}
    log = folder / "answer.log"
    with log.open("w") as stream:
        command = [str(python), "-m", "tests.helpers.vllm_answers", str(folder)]
        finished = subprocess.run(command, cwd=REPO, env=environment, stdout=stream, stderr=stream)
    if finished.returncode != 0:
        raise AssertionError(f"{settings['model']} failed ({log}):\n{log.read_text()[-4000:]}")
    return json.loads((folder / "responses.json").read_text())


def main(folder: Path) -> None:
    settings = model_settings(json.loads((folder / "settings.json").read_text()))
    asked = json.loads((folder / "requests.json").read_text())
    backend = load_backend(settings["backend"], settings)
    responses = backend.answer(
        [Request(prompt, tuple(choices), free_tokens=free) for prompt, choices, free in asked]
    )
    answered = [
        {"answer": r.answer, "logprobs": list(r.logprobs), "reply": r.reply} for r in responses
    ]
    (folder / "responses.json").write_text(json.dumps(answered))


if __name__ == "__main__":  # vLLM spawns its engine: it must start under this guard
    main(Path(sys.argv[1]))
