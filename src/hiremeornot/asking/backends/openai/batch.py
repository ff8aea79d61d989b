"""The Batch API: every question of a job in one uploaded file, answered within 24 hours.

A submitted batch is recorded in a journal file named by the SHA-256 of its request file, in
``state_dir``, before anything waits for it. A job killed while waiting, run again, builds the
same file (the same questions still missing, in the same order), finds the journal, and picks up
the same batch instead of paying for a second one. The journal is removed once the batch's
results are collected: answers go to the response store, failures are reported, and the next
run submits only what is still missing.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hiremeornot.asking.backends.base import (
    Backend,
    BackendError,
    Request,
    Response,
    all_or_partial,
)
from hiremeornot.asking.backends.openai.api import ChatAPI
from hiremeornot.asking.backends.openai.settings import OpenAISettings
from hiremeornot.atomic import atomic_output
from hiremeornot.errors import InputError

log = logging.getLogger(__name__)

ENDPOINT = "/v1/chat/completions"
FINISHED = {"completed", "failed", "expired", "cancelled"}


class OpenAIBatchBackend(Backend):
    """Questions sent as Batch API jobs; the batch ids survive a restart.

    ``state_dir`` holds the journal of submitted batches (the workflow gives each model its own,
    beside its response store).
    """

    def __init__(self, settings: OpenAISettings, state_dir: Path):
        self.api = ChatAPI(settings)
        self.batch_size = settings.batch_max_requests  # the schema caps it at the API's limit
        self.poll_s = settings.batch_poll_s
        self.journal_dir = Path(state_dir)

    def preflight(self, requests: Sequence[Request]) -> float | None:
        return self.api.preflight(requests)

    def close(self) -> None:
        self.api.close()

    def request_file(self, requests: Sequence[Request]) -> bytes:
        """The JSONL request file: one chat-completions body per question, custom_id its index."""
        lines = [
            json.dumps(
                {
                    "custom_id": str(i),
                    "method": "POST",
                    "url": ENDPOINT,
                    "body": self.api.arguments(r),
                },
                sort_keys=True,
                ensure_ascii=False,
            )
            for i, r in enumerate(requests)
        ]
        return ("\n".join(lines) + "\n").encode("utf-8")

    def answer(self, requests: Sequence[Request]) -> list[Response]:
        payload = self.request_file(requests)
        journal = self.journal_dir / f"{hashlib.sha256(payload).hexdigest()}.json"
        batch_id = self._resume(journal) or self._submit(payload, journal, len(requests))
        batch = self._wait(batch_id)
        if batch.status == "failed":  # rejected as a whole: the next run submits anew
            journal.unlink()
            problems = "; ".join(e.message for e in (batch.errors.data if batch.errors else []))
            raise BackendError(f"batch {batch_id} failed: {problems or 'no reason given'}")
        answered, errors = self._collect(batch, requests)
        journal.unlink()
        return all_or_partial(answered, errors, len(requests), context=f"batch {batch_id}: ")

    def _resume(self, journal: Path) -> str | None:
        if not journal.is_file():
            return None
        try:
            batch_id = json.loads(journal.read_text())["batch_id"]
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(
                f"{journal}: not a readable batch journal ({type(exc).__name__}: {exc}); move "
                "it away to submit the questions anew (a batch it recorded may be paid twice)"
            ) from None
        log.info("resuming batch %s (recorded in %s)", batch_id, journal)
        return batch_id

    def _submit(self, payload: bytes, journal: Path, count: int) -> str:
        upload = self.api.client.files.create(file=("questions.jsonl", payload), purpose="batch")
        batch = self.api.client.batches.create(
            input_file_id=upload.id,
            endpoint=ENDPOINT,
            completion_window="24h",
            metadata={"source": "hiremeornot", "requests": str(count)},
        )
        record = {
            "batch_id": batch.id,
            "input_file_id": upload.id,
            "model": self.api.settings.model,
            "requests": count,
            "submitted": time.time(),
        }
        with atomic_output(journal) as partial:
            partial.write_text(json.dumps(record, indent=1))
        log.info("submitted batch %s: %d requests (recorded in %s)", batch.id, count, journal)
        return batch.id

    def _wait(self, batch_id: str) -> Any:
        last = None
        while True:
            batch = self.api.client.batches.retrieve(batch_id)
            counts = batch.request_counts
            state = (batch.status, counts and (counts.completed, counts.failed, counts.total))
            if state != last:
                done = f", {counts.completed + counts.failed}/{counts.total} done" if counts else ""
                log.info("batch %s: %s%s", batch_id, batch.status, done)
                last = state
            if batch.status in FINISHED:
                return batch
            time.sleep(self.poll_s)

    def _collect(
        self, batch: Any, requests: Sequence[Request]
    ) -> tuple[dict[int, Response], list[str]]:
        """Responses by request index, and one message per request that got none."""
        from openai.types.chat import ChatCompletion

        answered: dict[int, Response] = {}
        failed: dict[int, str] = {}
        for line in self._lines(batch.output_file_id) + self._lines(batch.error_file_id):
            index, response = int(line["custom_id"]), line.get("response") or {}
            if response.get("status_code") != 200:
                problem = line.get("error") or response.get("body")
                failed[index] = f"HTTP {response.get('status_code')}: {problem}"
                continue
            try:
                reply = ChatCompletion.model_validate(response["body"])
                answered[index] = self.api.response(requests[index], reply)
            except (BackendError, ValueError, IndexError) as exc:
                failed[index] = str(exc)
        for index in range(len(requests)):
            if index not in answered and index not in failed:
                failed[index] = f"no result for request {index} (batch {batch.status})"
        return answered, [failed[index] for index in sorted(failed)]

    def _lines(self, file_id: str | None) -> list[dict[str, Any]]:
        if not file_id:
            return []
        text = self.api.client.files.content(file_id).text
        return [json.loads(line) for line in text.splitlines() if line.strip()]
