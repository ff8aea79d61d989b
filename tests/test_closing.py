"""What the terminal shows when a run ends: its findings, where to read on and what it asked;
or, on error, where to look and how to resume."""

from __future__ import annotations

import json
import os
import time

import pandas as pd

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
    assert "Model jobs: 1, 10 questions, 4 asked of a model, 6 answered from the store, 2 s" in text
    assert "API cost" not in text  # no job was priced


def test_priced_jobs_add_their_estimated_cost(tmp_path):
    results = finished_run(tmp_path)
    (results / "api" / "step2").mkdir(parents=True)
    record = {"questions": 5, "asked": 5, "from_store": 0, "seconds": 1.0, "usd": 0.125}
    (results / "api" / "step2" / "shard-0.json").write_text(json.dumps(record))
    (results / "api" / "step2" / "shard-1.json").write_text(json.dumps(record | {"usd": 1.0}))
    text = closing_block([("", GENDER_CONTRAST, "gpt")], since=time.time() - 60, results=results)
    assert "Model jobs: 3, 20 questions" in text
    assert "s in the model jobs, an estimated $1.12 of API cost." in text


def test_a_free_classifiers_questions_count_with_the_jobs_and_are_named(tmp_path):
    results = finished_run(tmp_path)
    read = {"questions": 8, "asked": 8, "from_store": 0, "seconds": 1.0, "usd": 0.5}
    record = {"questions": 10, "asked": 4, "from_store": 6, "seconds": 2.5, "classifier": read}
    (results / "gpt" / "step2" / "shard-0.json").write_text(json.dumps(record))
    text = closing_block([("", GENDER_CONTRAST, "gpt")], since=time.time() - 60, results=results)
    assert (
        "Model jobs: 1, 18 questions, 12 asked of a model, 6 answered from the store (8 of the "
        "questions a free_classifier's), 4 s in the model jobs, an estimated $0.50 of API cost."
    ) in text


def test_a_stale_first_page_or_an_earlier_job_is_not_reported_as_this_runs(tmp_path):
    results = finished_run(tmp_path)
    past = time.time() - 3600
    os.utime(results / "index.html", (past, past))  # made before the findings it would show
    os.utime(results / "gpt" / "step2" / "shard-0.json", (past, past))
    text = closing_block([("", GENDER_CONTRAST, "gpt")], since=time.time() - 60, results=results)
    assert "favours" not in text and "Read on" not in text and "Model jobs" not in text
    assert text.strip().startswith("hiremeornot: the run finished in")


def test_a_run_that_made_no_first_page_reports_none(tmp_path):
    """e.g. `snakemake results/estimate.md` after a whole run: the first page is current but
    older than this run."""
    results = finished_run(tmp_path)
    text = closing_block([("", GENDER_CONTRAST, "gpt")], since=time.time() + 5, results=results)
    assert "favours" not in text and "Model jobs" not in text


def test_each_contrasts_headline_is_led_by_its_name(tmp_path):
    results = finished_run(tmp_path)
    (results / "control" / "gpt").mkdir(parents=True)
    (results / "gpt" / "findings.tsv").rename(results / "control" / "gpt" / "findings.tsv")
    (results / "index.html").touch()
    labels = control_contrast(["Person A", "Person B"])
    text = closing_block([("control/", labels, "gpt")], since=time.time() - 60, results=results)
    assert "  [control: Person A minus Person B] gpt favours" in text
    assert f"{results}/control/summary.md." in text


SNAKEMAKE_LOG = """Select jobs to execute...
[Thu Dec  3 16:05:18 2026]
rule ask_model:
    output: results/gpt/step2/shard-0.json
Error in rule ask_model:
    message: None
    jobid: 5
    output: results/gpt/step2/shard-0.json
    log: {log} (check log file(s) for error details)
    shell:
        hiremeornot step ...
        (command exited with non-zero exit code)
Shutting down, this might take some time.
"""


def test_a_failed_run_names_the_job_its_log_and_the_logs_last_line(tmp_path):
    job_log = tmp_path / "logs" / "ask_model.log"
    job_log.parent.mkdir()
    job_log.write_text("Traceback ...\nhiremeornot: OPENAI_API_KEY is not set\n\n")
    log = tmp_path / "run.snakemake.log"
    log.write_text(SNAKEMAKE_LOG.format(log=job_log))
    text = failure_block(str(log))
    assert f"  Failed job: rule ask_model, its log {job_log}" in text
    assert text == failure_block([str(log)])  # Snakemake's onerror passes a list
    assert "  Its last line: hiremeornot: OPENAI_API_KEY is not set" in text
    assert f"Snakemake's log: {log}" in text and "run the same command again" in text


def test_a_quiet_runs_failed_job_is_named_by_its_command(tmp_path):
    log = tmp_path / "run.snakemake.log"
    log.write_text(
        'RuleException:\nCalledProcessError in file "report.smk", line 269:\nCommand \'set -euo '
        "pipefail;  hiremeornot findings --settings '{\"a\": 1}' --out x.tsv 2> "
        "logs/findings/gpt.log' returned non-zero exit status 1.\n"
    )
    assert "  Failed job: hiremeornot findings, its log logs/findings/gpt.log" in failure_block(
        str(log)
    )


def test_a_failed_run_without_a_job_to_name_still_says_how_to_resume(tmp_path):
    log = tmp_path / "run.snakemake.log"
    log.write_text("MissingInputException in rule dataset:\nMissing input files\n")
    text = failure_block(str(log))
    assert "Failed job" not in text and "run the same command again" in text
    assert "run the same command again" in failure_block(str(tmp_path / "absent.log"))


def test_a_contrast_set_against_the_workforce_says_how_its_choices_follow_it(tmp_path):
    results = finished_run(tmp_path)
    alignment = pd.DataFrame(
        {
            "measure": ["difference"],
            "slope": [0.59],
            "slope_low": [0.24],
            "slope_high": [0.94],
            "slope_p": [0.0039],
            "outcome": ["follows the workforce"],
        }
    )
    write_table(alignment, results / "gpt" / "alignment.tsv")
    (results / "index.html").touch()
    cells = [("", GENDER_CONTRAST, "gpt")]
    text = closing_block(cells, since=time.time() - 60, results=results, aligned=[""])
    assert (
        "    across occupations its choices follow the workforce (+0.059 [+0.024, +0.094] per 10 "
        "points more women in the job, p = 0.0039).\n" in text
    )
    # a contrast not set against the workforce (a stale table of an earlier config) says nothing
    assert "workforce" not in closing_block(cells, since=time.time() - 60, results=results)
