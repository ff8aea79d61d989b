"""Progress a person can see while model jobs run: each job keeps a small JSON file of its
questions answered (``ProgressFile``), and the Snakemake process that submitted the jobs prints
one line over all of them every few seconds (``watch``). Files, not pipes, so that the same works
for jobs on other Slurm nodes that share the file system."""

from __future__ import annotations

import json
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from hiremeornot.atomic import atomic_output

WRITE_EVERY = 2.0  # seconds between a job's writes
PRINT_EVERY = 10.0  # seconds between the lines the submitting process prints


class ProgressFile:
    """One job's questions answered of those it asks, and the estimated cost of asking them all
    (``usd``, None where the model is not priced), written at most every WRITE_EVERY seconds (and
    when it finishes) to ``path``."""

    def __init__(self, path: str | Path, label: str, total: int, usd: float | None = None) -> None:
        self.path, self.label, self.total, self.usd = Path(path), label, total, usd
        self.started = time.time()
        self.written = 0.0
        self.done = 0
        self._write(finished=False)

    def update(self, answered: int) -> None:
        self.done += answered
        if time.monotonic() - self.written >= WRITE_EVERY:
            self._write(finished=False)

    def close(self) -> None:
        self._write(finished=True)

    def _write(self, finished: bool) -> None:
        self.written = time.monotonic()
        state = {
            "label": self.label,
            "done": self.done,
            "total": self.total,
            "usd": self.usd,
            "started": self.started,
            "updated": time.time(),
            "finished": finished,
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_output(self.path) as partial:
            partial.write_text(json.dumps(state))


@dataclass
class Progress:
    """The jobs' progress summed: questions answered of those asked, the rate, time left, and
    for priced models the estimated cost so far and in all."""

    jobs: int
    running: int
    done: int
    total: int
    rate: float  # questions a second, over the running jobs
    usd_done: float | None = None  # estimated, pro rata of each priced job's questions answered
    usd_total: float | None = None

    def line(self) -> str:
        left = (self.total - self.done) / self.rate if self.rate > 0 else float("nan")
        eta = f"about {_duration(left)} left" if left == left else "time left not known yet"
        cost = (
            f"; about ${self.usd_done:,.2f} of an estimated ${self.usd_total:,.2f} spent"
            if self.usd_total is not None
            else ""
        )
        return (
            f"hiremeornot: {self.done:,} of {self.total:,} questions answered in "
            f"{self.jobs} model job(s), {self.running} running ({self.rate:.1f}/s, {eta}){cost}"
        )


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def read_progress(folder: str | Path, since: float) -> Progress | None:
    """The progress of the jobs whose files were written since ``since`` (None: no such job)."""
    states = []
    for path in Path(folder).glob("**/*.json"):
        try:
            if path.stat().st_mtime >= since:
                states.append(json.loads(path.read_text()))
        except (OSError, ValueError):  # a file being replaced, or gone
            continue
    if not states:
        return None
    running = [s for s in states if not s["finished"]]
    rate = sum(s["done"] / max(s["updated"] - s["started"], 1e-9) for s in running if s["done"])
    priced = [s for s in states if s.get("usd") is not None]
    return Progress(
        jobs=len(states),
        running=len(running),
        done=sum(s["done"] for s in states),
        total=sum(s["total"] for s in states),
        rate=rate,
        usd_done=sum(s["usd"] * s["done"] / max(s["total"], 1) for s in priced) if priced else None,
        usd_total=sum(s["usd"] for s in priced) if priced else None,
    )


def watch(folder: str | Path, since: float, every: float = PRINT_EVERY) -> threading.Thread:
    """Print the jobs' progress to standard error every ``every`` seconds while a job runs and
    something changed (a daemon thread: it ends with the process)."""

    def loop() -> None:
        last = None
        while True:
            time.sleep(every)
            progress = read_progress(folder, since)
            if progress and progress.running and progress != last:
                print(progress.line(), file=sys.stderr, flush=True)
                last = progress

    thread = threading.Thread(target=loop, name="hiremeornot-progress", daemon=True)
    thread.start()
    return thread
