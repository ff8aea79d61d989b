"""What the terminal shows when a run ends: on success what the run found (each contrast and
model's headline, from its findings), where to read on, and what it asked; on error where to
look and how to resume."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Collection, Sequence
from pathlib import Path

from hiremeornot.analysis.findings import fact, read_findings
from hiremeornot.design.contrasts import Contrast
from hiremeornot.tables_io import read_table
from hiremeornot.writing.alignment import alignment_phrase
from hiremeornot.writing.headlines import RESPONDENTS, headline
from hiremeornot.writing.non_answers import non_answer_phrase

FIRST_PAGE = "index.html"


def asked_since(results: Path, since: float) -> dict[str, float]:
    """The model jobs' records written since ``since`` (seconds since the epoch), summed:
    jobs, questions, those asked of a model, those answered from the store, seconds, and the
    estimated cost of the priced jobs (``usd``: None where no job was priced), a job's
    free_classifier's questions with its own (``classified``: how many of them)."""
    totals: dict = dict.fromkeys(["jobs", "questions", "asked", "from_store", "seconds"], 0.0)
    totals |= {"usd": None, "classified": 0}
    for path in results.glob("**/step*/shard-*.json"):
        if path.stat().st_mtime < since:
            continue
        record = json.loads(path.read_text())
        totals["jobs"] += 1
        classifier = record.get("classifier")
        for asked in (record, *([classifier] if classifier else [])):
            for key in ("questions", "asked", "from_store", "seconds"):
                totals[key] += asked[key]
            if asked.get("usd") is not None:
                totals["usd"] = (totals["usd"] or 0.0) + asked["usd"]
        totals["classified"] += classifier["questions"] if classifier else 0
    return totals


def closing_block(
    cells: Sequence[tuple[str, Contrast, str]],
    *,
    since: float,
    results: Path = Path("results"),
    aligned: Collection[str] = (),
) -> str:
    """The lines a finished run prints: per contrast and model (``cells``: results prefix,
    contrast, model) its headline where this run made the first page from current findings,
    and its alignment with the workforce where the contrast's prefix is ``aligned``; where to
    read on; and the model jobs this run ran (those finished since ``since``)."""
    lines = ["", f"hiremeornot: the run finished in {time.time() - since:.0f} s."]
    page = results / FIRST_PAGE
    found = [(p, c, m, results / f"{p}{m}" / "findings.tsv") for p, c, m in cells]
    made = page.is_file() and page.stat().st_mtime >= since
    if made and all(
        path.is_file() and path.stat().st_mtime <= page.stat().st_mtime for *_, path in found
    ):
        for prefix, contrast, model, path in found:
            findings = read_findings(path)
            label = "" if contrast.is_paper else f"[{contrast.title}] "
            what = fact(findings, "respondent")["outcome"]
            note = f" ({RESPONDENTS[what]}: not evidence about a model)" if what != "model" else ""
            lines.append(f"  {label}{headline(findings, model, contrast)}{note}")
            free = non_answer_phrase(findings, contrast.sides)
            if free:
                lines.append(f"    {free}.")
            alignment = path.with_name("alignment.tsv")
            if prefix in aligned and alignment.is_file():  # the first page read it
                lines.append(f"    {alignment_phrase(read_table(alignment))}.")
        summaries = sorted({f"{results}/{prefix}summary.md" for prefix, *_ in cells})
        lines.append(
            f"  Read on: {page} (verdicts, forest plots, caveats), {', '.join(summaries)}."
        )
    totals = asked_since(results, since)
    if totals["jobs"]:
        lines.append(
            f"  Model jobs: {int(totals['jobs'])}, {int(totals['questions'])} questions, "
            f"{int(totals['asked'])} asked of a model, {int(totals['from_store'])} answered from "
            f"the store"
            + (
                f" ({totals['classified']} of the questions a free_classifier's)"
                if totals["classified"]
                else ""
            )
            + f", {totals['seconds']:.0f} s in the model jobs"
            + (
                f", an estimated ${totals['usd']:,.2f} of API cost."
                if totals["usd"] is not None
                else "."
            )
        )
    return "\n".join(lines) + "\n"


def failed_job(text: str) -> tuple[str, str] | None:
    """The first failed job's name and log path in the text of Snakemake's log: its "Error in
    rule X:" block, or with --quiet the failed command ("hiremeornot <command> ... 2> <log>");
    the log empty where the job had none."""
    error = re.search(r"^Error in rule (\w+):\n((?:[ \t]+.*\n?)*)", text, re.MULTILINE)
    if error:
        log = re.search(r"^\s+log: (\S+)", error.group(2), re.MULTILINE)
        return f"rule {error.group(1)}", log.group(1) if log else ""
    command = re.search(r"hiremeornot ([\w-]+) .*?2> (\S+?)' returned non-zero", text)
    if command:
        return f"hiremeornot {command.group(1)}", command.group(2)
    return None


def last_line(path: Path) -> str:
    """A log's last line that says something (not blank), or empty."""
    if not path.is_file():
        return ""
    lines = [line.strip() for line in path.read_text(errors="replace").splitlines()]
    return next((line for line in reversed(lines) if line), "")


def failure_block(log: str | Sequence[str]) -> str:
    """The lines a failed run prints: the failed job, its log and that log's last line, and how
    to resume (``log``: Snakemake's own log, or the list Snakemake's onerror passes)."""
    log = log if isinstance(log, str) else next(iter(log), "")
    lines = ["", "hiremeornot: the run stopped before it finished."]
    job = failed_job(Path(log).read_text(errors="replace")) if Path(log).is_file() else None
    if job:
        name, job_log = job
        lines.append(f"  Failed job: {name}" + (f", its log {job_log}" if job_log else ""))
        said = last_line(Path(job_log)) if job_log else ""
        if said:
            lines.append(f"  Its last line: {said}")
    lines += [
        f"  Snakemake's log: {log}",
        "  Fix the cause and run the same command again: finished jobs keep their outputs, and "
        "every answer already given comes from the response store, so nothing is asked twice.",
    ]
    return "\n".join(lines) + "\n"
