"""The real Snakemake workflow with the embedded model on a tiny config (a few minutes)."""

from __future__ import annotations

import json
import os
import re

import pandas as pd
import pytest
import yaml

from tests.conftest import REPO, SHARED_DATA, needs_data
from tests.helpers.workflow_runs import (
    MODEL,
    OTHER_MODEL,
    TINY,
    copy_run,
    run_tiny,
    snakemake,
    step_table,
    step_tables,
)

pytestmark = [pytest.mark.slow, pytest.mark.workflow, needs_data]


def test_every_output_with_its_row_counts(tiny_run):
    results = tiny_run / "results"
    attributes = pd.read_csv(results / "dataset/attributes.tsv", sep="\t")
    assert len(attributes) == 2 * 3 * 2  # 2 occupations x 3 types x top 2
    assert len(pd.read_csv(results / "dataset/pairs.tsv", sep="\t")) == 2
    instances = pd.read_parquet(results / "dataset/instances.parquet")
    assert len(instances) == 2 * 2 * 2  # occupations x pairs x orders
    for model, shards in ((MODEL, 2), (OTHER_MODEL, 1)):
        tables = {step: step_table(results, model, step) for step in ("step1", "step2", "step3")}
        assert len(step_tables(results, model, "step2")) == shards
        step1, step2, step3 = tables["step1"], tables["step2"], tables["step3"]
        # Step 1 asks each distinct question once: pair x order x subject x distinct attribute
        distinct_attributes = len(attributes[["element_id", "attribute_type"]].drop_duplicates())
        assert len(step1) == 2 * 2 * 2 * distinct_attributes
        assert step1["prompt"].is_unique
        assert len(step2) == 8 * 2 and len(step3) == 8 * 2
        assert set(step1["answer"]) <= {"Yes", "No"} and set(step1["choice"]) <= {"yes", "no"}
        assert set(step3["choice"]) <= {"female", "male", "both", "neither"}
        assert step3[step3["question"] == "q2"]["choice"].isin(["female", "male"]).all()
        assert step1[["logprob_yes", "logprob_no"]].lt(0).all().all()
        assert len(pd.read_csv(results / model / "outcomes.tsv", sep="\t")) == 8
        granted = pd.read_parquet(results / model / "granted.parquet")
        assert len(granted) == 8 * 2 * 6  # instances x subjects x the occupation's attributes
        assert set(granted["choice"]) <= {"yes", "no"}
    metrics = pd.read_csv(results / "metrics.tsv", sep="\t")
    assert len(metrics) == 2 * 2 and set(metrics["model"]) == {MODEL, OTHER_MODEL}
    assert sorted(set(metrics["occupation"])) == ["nurse", "pilot"] and (metrics["n"] == 4).all()
    assert metrics[["confirmation", "consistency"]].stack().between(0, 1).all()
    readings = [f"difference_{r}" for r in ("biased", "q2q3", "q2", "q3", "q1")]
    assert metrics[readings].stack().between(-1, 1).all()
    assert (metrics["difference"] == metrics["difference_biased"]).all()
    assert (metrics["orders"] == "female_first+male_first").all()
    for model in (MODEL, OTHER_MODEL):
        rows = metrics[metrics["model"] == model]
        difference = pd.read_csv(results / f"tables/difference_{model}.tsv", sep="\t")
        assert len(difference) == (rows["difference"].abs() > 0).sum()
        table_md = (results / f"tables/difference_{model}.md").read_text()
        assert table_md.startswith("Occupations") and "order-balanced" in table_md
        assert (results / f"tables/difference_{model}.png").stat().st_size > 1000
    for name in ("fig3_confirmation", "fig4_consistency", "fig5_confirmation_vs_consistency"):
        assert (results / f"figures/{name}.png").read_bytes()[:4] == b"\x89PNG"
    summary = (results / "summary.md").read_text()
    assert summary.count("not evidence about any real model") == 2
    # the caveats alike for both models are said once, above the models' sections
    heading = "## What else could explain every model's numbers"
    shared = summary.split(heading)[1].split("\n## ")[0]
    assert summary.count(heading) == 1
    position_notes = 1 if "named the first-listed subject" in shared else 2
    assert summary.count("named the first-listed subject") == 2 * 2 + position_notes  # Q2, Q3
    # both orders: balanced, never "confounded"; two pairs: nothing can be significant
    assert "order-balanced" in summary and "confounded" not in summary
    assert summary.count("no occupation can be significant") == 1
    assert "no occupation can be significant" in shared and "one wording" in shared
    assert summary.count("one wording") == 1


def test_statistics_outputs(tiny_run):
    results = tiny_run / "results"
    attributes = pd.read_csv(results / "dataset/attributes.tsv", sep="\t")
    distinct = attributes[["element_id", "attribute_type"]].drop_duplicates()
    for model in (MODEL, OTHER_MODEL):
        intervals = pd.read_csv(results / model / "intervals.tsv", sep="\t")
        assert len(intervals) == 2 * 3  # occupations x metrics
        assert (intervals["low"] <= intervals["estimate"] + 1e-9).all()
        assert (intervals["estimate"] <= intervals["high"] + 1e-9).all()
        assert (intervals["n_pairs"] == 2).all()
        tests = pd.read_csv(results / model / "tests.tsv", sep="\t")
        assert len(tests) == 2 and tests["q_value"].between(0, 1).all()
        assert set(tests["verdict"]) <= {"differs", "equivalent", "inconclusive"}
        assert (tests["smallest_p"] >= 0.5).all() and not tests["significant"].any()
        position = pd.read_csv(results / model / "position_bias.tsv", sep="\t")
        assert len(position) == 2 * 2  # occupations x (Q2, Q3)
        assert (position[position["question"] == "q2"]["n_named"] == 4).all()
        by_order = pd.read_csv(results / model / "difference_by_order.tsv", sep="\t")
        assert {"difference_female_first", "difference_male_first"} <= set(by_order.columns)
        assert by_order["difference_balanced"].notna().all()
        gaps = pd.read_csv(results / model / "attribute_gaps.tsv", sep="\t")
        per_occupation = len(attributes)  # each occupation's own attributes
        assert len(gaps) == per_occupation + len(distinct)  # plus the pooled "(all)" rows
        assert gaps["gap"].between(-1, 1).all()
        assert (results / f"figures/attribute_gaps_{model}.png").stat().st_size > 1000


def test_report_builds_with_every_figure_and_table(tiny_run, tmp_path):
    run = copy_run(tiny_run, tmp_path / "run")
    run_tiny(run, "--report", "results/report.html")
    html = (run / "results/report.html").read_text()
    names = [
        "fig3_confirmation.png",
        "fig4_consistency.png",
        "fig5_confirmation_vs_consistency.png",
        "summary.md",
        "metrics.tsv",
    ]
    for model in (MODEL, OTHER_MODEL):
        names += [
            f"difference_{model}.png",
            f"difference_{model}.tsv",
            f"attribute_gaps_{model}.png",
        ]
    for name in names:
        assert name in html, name
    for caption in ("Confirmation", "Consistency", "Benjamini-Hochberg", "bootstrap"):
        assert caption in html
    assert "System Message" not in html  # no docutils warning in any caption
    # the first screen: the first page's headlines, and the page itself as a result
    assert "What this audit found" in html and "index.html" in html
    for model in (MODEL, OTHER_MODEL):  # 2 names a side: the floor on p is 0.5
        assert f"{model}: none of 2 occupations differs; " in html


def test_the_run_ends_by_saying_what_it_found_and_what_it_asked(tiny_run):
    out = (tiny_run / "snakemake.out").read_text()
    assert "hiremeornot: the run finished in " in out
    for model in (MODEL, OTHER_MODEL):
        assert f"  {model}: none of 2 occupations differs; " in out
    assert (
        "none could have differed. (embedded smoke-test model: not evidence about a model)" in out
    )
    assert (
        "Read on: results/index.html (verdicts, forest plots, caveats), results/summary.md." in out
    )
    said = re.search(
        r"Model jobs: (\d+), (\d+) questions, (\d+) asked of a model, (\d+) answered from the "
        r"store",
        out,
    )
    records = [json.loads(p.read_text()) for p in (tiny_run / "results").glob("*/step*/*.json")]
    assert [int(n) for n in said.groups()] == [
        len(records),
        sum(r["questions"] for r in records),
        sum(r["asked"] for r in records),
        sum(r["from_store"] for r in records),
    ]


def test_logs_show_progress_and_a_summary_line(tiny_run):
    log = (tiny_run / f"logs/ask_model/{MODEL}/step1/shard-0.log").read_text()
    assert "q/s" in log or "s/q" in log
    assert re.search(
        r"step1 shard 0: \d+ distinct questions, \d+ asked of the model, 0 answered", log
    )
    assert re.search(r"peak memory \d+ MB", log)


def test_nothing_reruns_and_a_forced_rerun_asks_the_model_nothing(tiny_run, tmp_path):
    run = copy_run(tiny_run, tmp_path / "run")
    dry = run_tiny(run, "-n")
    assert "Nothing to be done" in dry.stdout + dry.stderr
    run_tiny(run, "--forceall")
    logs = sorted((run / "logs/ask_model").glob("*/step*/shard-*.log"))
    assert len(logs) == (1 + 2 + 2) + 3  # Step 1 unsharded, Steps 2-3 in 2 shards; 3 jobs
    for path in logs:
        log = path.read_text()
        assert re.search(r"(\d+) distinct questions, 0 asked of the model, \1 answered", log), path
        assert "Loading weights" not in log, path  # the model was never loaded


def test_the_paper_config_plans_offline_one_job_per_model_and_step():
    result = snakemake(
        REPO,
        "-n",
        "--forceall",
        "--configfile",
        "config/paper.yaml",
        "--replace-workflow-config",
        "--config",
        f"local_data={SHARED_DATA}",
    )
    output = result.stdout + result.stderr
    counts = dict(re.findall(r"^(\w+)\s+(\d+)$", output, re.M))
    assert int(counts["ask_model"]) == 3 * 3  # three models, three steps, unsharded
    assert int(counts["attributes"]) == 1  # one job reads O*NET for every occupation
    # a job per model for each table of its results, none per occupation or name (49 with the
    # findings, alignment and non-answer jobs)
    assert int(counts["total"]) <= 52
    # each model job asks Slurm for its model's GPUs: 4 for the 70B model, 1 for RoBERTa
    gpus = dict(
        re.findall(r"wildcards: contrast=, model=([\w.-]+), step=step1.*\n.*gpu=(\d+)", output)
    )
    assert gpus == {"roberta-large-squad2": "1", "gpt-3.5-turbo": "0", "llama-2-70b-chat": "4"}


def test_a_venv_that_is_not_activated_runs_the_rules(tmp_path):
    """`.venv/bin/snakemake ...` with the venv's folder not on PATH: the shell rules still find
    the hiremeornot command (it used to fail with 'hiremeornot: command not found')."""
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(TINY))
    targets = ["results/dataset/instances.parquet", "results/dataset/attributes.tsv"]
    bare = os.pathsep.join(["/usr/bin", "/bin"])
    snakemake(tmp_path, "--configfile", "config.yaml", "--cores", "1", *targets, path=bare)
    assert all((tmp_path / target).is_file() for target in targets)
