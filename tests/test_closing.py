"""What the terminal shows when a run ends: its findings, where to read on and what it asked;
or, on error, where to look and how to resume."""

from __future__ import annotations

import json
import os
import time

from hiremeornot.design.contrasts import GENDER_CONTRAST, control_contrast
from hiremeornot.tables_io import write_table
from hiremeornot.writing.closing import closing_block, failure_block
from tests.helpers.report_tables import found, tables

BALANCED = "female_first+male_first"


def finished_run(tmp_path):
    """A results folder with one model's findings, its first page and one model job's record."""
    results = tmp_path / "results"
    (results / "gpt" / "step2").mkdir(parents=True)
    write_table(found(*tables(BALANCED, 10, "differs")), results / "gpt" / "findings.tsv")
    (results / "index.html").write_text("<html></html>")
    record = {"questions": 10, "asked": 4, "from_store": 6, "seconds": 2.5}
    (results / "gpt" / "step2" / "shard-0.json").write_text(json.dumps(record))
    return results


def test_a_finished_run_says_what_it_found_where_to_read_and_what_it_asked(tmp_path):
    results = finished_run(tmp_path)
    text = closing_block([("", GENDER_CONTRAST, "gpt")], since=time.time() - 60, results=results)
    assert "  gpt favours female subjects in 1 and male subjects in 1 of 2 occupations" in text
    assert (
        f"Read on: {results}/index.html (verdicts, forest plots, caveats), {results}/summary.md."
        in text
    )
    assert "1 model jobs: 10 questions, 4 asked of a model, 6 answered from the store, 2 s" in text


def test_a_stale_first_page_or_an_earlier_job_is_not_reported_as_this_runs(tmp_path):
    results = finished_run(tmp_path)
    past = time.time() - 3600
    os.utime(results / "index.html", (past, past))  # made before the findings it would show
    os.utime(results / "gpt" / "step2" / "shard-0.json", (past, past))
    text = closing_block([("", GENDER_CONTRAST, "gpt")], since=time.time() - 60, results=results)
    assert "favours" not in text and "Read on" not in text
    assert "no model job ran" in text


def test_each_contrasts_headline_is_led_by_its_name(tmp_path):
    results = finished_run(tmp_path)
    (results / "control" / "gpt").mkdir(parents=True)
    (results / "gpt" / "findings.tsv").rename(results / "control" / "gpt" / "findings.tsv")
    (results / "index.html").touch()
    labels = control_contrast(["Person A", "Person B"])
    text = closing_block([("control/", labels, "gpt")], since=time.time() - 60, results=results)
    assert "  [control: Person A minus Person B] gpt favours" in text
    assert f"{results}/control/summary.md." in text


def test_a_failed_run_says_where_its_error_is_and_how_to_resume():
    text = failure_block(".snakemake/log/x.snakemake.log")
    assert ".snakemake/log/x.snakemake.log" in text and "run the same command again" in text
