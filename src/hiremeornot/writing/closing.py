"""What the terminal shows when a run ends: on success what the run found (each contrast and
model's headline, from its findings), where to read on, and what it asked; on error where to
look and how to resume."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path

from hiremeornot.analysis.findings import read_findings
from hiremeornot.design.contrasts import Contrast
from hiremeornot.writing.headlines import headline

FIRST_PAGE = "index.html"


def asked_since(results: Path, since: float) -> dict[str, float]:
    """The model jobs' records written since ``since`` (seconds since the epoch), summed:
    jobs, questions, those asked of a model, those answered from the store, seconds."""
    totals = dict.fromkeys(["jobs", "questions", "asked", "from_store", "seconds"], 0.0)
    for path in results.glob("**/step*/shard-*.json"):
        if path.stat().st_mtime < since:
            continue
        record = json.loads(path.read_text())
        totals["jobs"] += 1
        for key in ("questions", "asked", "from_store", "seconds"):
            totals[key] += record[key]
    return totals


def closing_block(
    cells: Sequence[tuple[str, Contrast, str]], *, since: float, results: Path = Path("results")
) -> str:
    """The lines a finished run prints: per contrast and model (``cells``: results prefix,
    contrast, model) its headline where the first page is made from its current findings,
    where to read on, and the questions this run asked (model jobs finished since ``since``)."""
    lines = ["", "hiremeornot: the run finished."]
    page = results / FIRST_PAGE
    found = [(p, c, m, results / f"{p}{m}" / "findings.tsv") for p, c, m in cells]
    current = page.is_file() and all(
        path.is_file() and path.stat().st_mtime <= page.stat().st_mtime for *_, path in found
    )
    if current:
        for _, contrast, model, path in found:
            label = "" if contrast.is_paper else f"[{contrast.title}] "
            lines.append(f"  {label}{headline(read_findings(path), model, contrast)}")
        lines.append(
            f"  Read on: {page} (verdicts, forest plots, caveats), "
            + ", ".join(sorted({f"{results}/{prefix}summary.md" for prefix, *_ in cells}))
            + "."
        )
    totals = asked_since(results, since)
    asked = (
        f"{int(totals['jobs'])} model jobs: {int(totals['questions'])} questions, "
        f"{int(totals['asked'])} asked of a model, {int(totals['from_store'])} answered from "
        f"the store, {totals['seconds']:.0f} s in the model jobs"
        if totals["jobs"]
        else "no model job ran: every answer was already in the step tables"
    )
    lines.append(f"  This run: {asked}; {time.time() - since:.0f} s in all.")
    return "\n".join(lines) + "\n"


def failure_block(log: str) -> str:
    """The lines a failed run prints: where its error is, and how to resume."""
    return (
        "\nhiremeornot: the run stopped before it finished.\n"
        f"  Snakemake's log: {log} (it names the failed job and that job's own log under "
        "logs/).\n"
        "  Fix the cause and run the same command again: finished jobs keep their outputs, and "
        "every answer already given comes from the response store, so nothing is asked twice.\n"
    )
