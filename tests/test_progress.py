"""The progress a person sees while model jobs run: each job's file, and the line summed over
the jobs of this run."""

from __future__ import annotations

import json
import os
import time

from hiremeornot.asking import progress
from hiremeornot.asking.progress import ProgressFile, read_progress


def test_a_job_keeps_its_questions_answered_in_a_file(tmp_path, monkeypatch):
    monkeypatch.setattr(progress, "WRITE_EVERY", 0.0)  # write at every update
    path = tmp_path / "logs" / "m" / "step1-shard-0.json"
    job = ProgressFile(path, "m step1 shard 0", total=10)
    assert json.loads(path.read_text())["done"] == 0
    job.update(4)
    state = json.loads(path.read_text())
    assert (state["done"], state["total"], state["finished"]) == (4, 10, False)
    job.update(6)
    job.close()
    assert json.loads(path.read_text())["finished"] is True


def test_the_line_sums_this_runs_jobs_with_rate_and_time_left(tmp_path):
    now = time.time()
    states = {
        "a": {"done": 30, "total": 100, "started": now - 10, "updated": now, "finished": False},
        "b": {"done": 20, "total": 20, "started": now - 20, "updated": now, "finished": True},
        "old": {"done": 5, "total": 50, "started": now - 9e3, "updated": now, "finished": False},
    }
    for name, state in states.items():
        (tmp_path / f"{name}.json").write_text(json.dumps({"label": name, **state}))
    past = now - 3600
    os.utime(tmp_path / "old.json", (past, past))  # an earlier run's job: not counted
    seen = read_progress(tmp_path, since=now - 60)
    assert (seen.jobs, seen.running, seen.done, seen.total) == (2, 1, 50, 120)
    assert abs(seen.rate - 3.0) < 0.01  # the running job: 30 questions in 10 s
    assert seen.line() == (
        "hiremeornot: 50 of 120 questions answered in 2 model job(s), 1 running "
        "(3.0/s, about 23 s left)"
    )
    assert read_progress(tmp_path, since=now + 60) is None


def test_a_job_that_has_answered_nothing_yet_gives_no_time_left(tmp_path):
    now = time.time()
    state = {"label": "a", "done": 0, "total": 9, "started": now, "updated": now}
    (tmp_path / "a.json").write_text(json.dumps({**state, "finished": False}))
    assert "time left not known yet" in read_progress(tmp_path, since=now - 1).line()


def test_priced_jobs_add_their_estimated_cost_so_far(tmp_path):
    now = time.time()
    states = {
        "api": {"done": 30, "total": 100, "usd": 2.0, "finished": False},
        "local": {"done": 5, "total": 10, "usd": None, "finished": False},
    }
    for name, state in states.items():
        timed = {"label": name, "started": now - 10, "updated": now, **state}
        (tmp_path / f"{name}.json").write_text(json.dumps(timed))
    seen = read_progress(tmp_path, since=now - 60)
    assert (seen.usd_done, seen.usd_total) == (0.6, 2.0)
    assert seen.line().endswith("; about $0.60 of an estimated $2.00 spent")
    (tmp_path / "api.json").unlink()  # no priced job: no cost on the line
    assert "$" not in read_progress(tmp_path, since=now - 60).line()
