"""Comparisons on real runs: two models of one config through the workflow's rule, and two
result folders of one model through the command, with flip counts checked independently."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from hiremeornot.analysis.metrics import instance_outcomes, signed_readings
from hiremeornot.cli import main
from hiremeornot.design.contrasts import GENDER
from hiremeornot.tables_io import read_table, seal_of, write_table
from tests.conftest import needs_data
from tests.helpers.workflow_runs import MODEL, OTHER_MODEL, copy_run, run_tiny

pytestmark = [pytest.mark.slow, pytest.mark.workflow, needs_data]

TARGET = f"results/compare/{MODEL}_vs_{OTHER_MODEL}"


def step(results: Path, model: str, name: str) -> pd.DataFrame:
    """Every table of one step of a model (whatever the folder layout under the step)."""
    tables = sorted((results / model / name).glob("**/shard-*.parquet"))
    return pd.concat([read_table(path) for path in tables], ignore_index=True)


def flips_by_hand(results_a: Path, model_a: str, results_b: Path, model_b: str) -> int:
    """Identical questions (same prompt and answer words) answered otherwise, counted directly."""
    count = 0
    for name in ("step1", "step2", "step3"):
        a, b = step(results_a, model_a, name), step(results_b, model_b, name)
        for table in (a, b):
            table["space"] = table["choices"].map(lambda choices: "|".join(choices))
        both = a.merge(b, on=["prompt", "space"], suffixes=("_a", "_b"))
        count += int((both["answer_a"] != both["answer_b"]).sum())
    return count


@pytest.fixture(scope="module")
def compared(tiny_run, tmp_path_factory) -> Path:
    run = copy_run(tiny_run, tmp_path_factory.mktemp("compare") / "run")
    result = run_tiny(run, f"{TARGET}.md")
    assert "ask_model" not in result.stderr  # nothing is asked again: it only reads the runs
    return run


def test_two_models_of_one_config(compared):
    results = compared / "results"
    report = (compared / f"{TARGET}.md").read_text()
    expected = flips_by_hand(results, MODEL, results, OTHER_MODEL)
    assert f"# {OTHER_MODEL} against {MODEL}" in report
    assert f"**{expected} flipped**" in report
    changed = pd.read_csv(compared / f"{TARGET}_changed.tsv", sep="\t")
    assert int(changed["identical"].sum()) == expected
    changes = pd.read_csv(compared / f"{TARGET}.tsv", sep="\t")
    # (occupations and pooled) x (confirmation, consistency, difference)
    assert len(changes) == 3 * 3
    assert set(changes["occupation"]) == {"nurse", "pilot", "(all)"}
    assert (changes["smallest_p"] == 0.5).all() and not changes["significant"].any()
    assert "no change can be significant" in report
    assert (compared / f"{TARGET}.png").read_bytes()[:4] == b"\x89PNG"


def test_two_result_folders_of_one_model(compared, tmp_path):
    """A copy of the run with one Q2 answer flipped by hand: exactly one flip is found."""
    second = copy_run(compared, tmp_path / "second")
    results_a, results_b = compared / "results", second / "results"
    tables = sorted((results_b / MODEL / "step3").glob("**/shard-*.parquet"))
    table = read_table(tables[0])
    row = table.index[table["question"] == "q2"][0]
    choices, roles = list(table.at[row, "choices"]), list(table.at[row, "roles"])
    other = 1 - roles.index(table.at[row, "choice"])
    table.loc[row, ["answer", "choice"]] = [choices[other], roles[other]]
    write_table(table, tables[0])
    seal_of(tables[0]).unlink()  # a table written by hand, as no job wrote it: no seal
    instances = read_table(results_b / "dataset/instances.parquet")
    outcomes = instance_outcomes(
        step(results_b, MODEL, "step2"), step(results_b, MODEL, "step3"), instances, sides=GENDER
    )
    write_table(outcomes, results_b / MODEL / "outcomes.tsv")
    assert flips_by_hand(results_a, MODEL, results_b, MODEL) == 1

    out = tmp_path / "out"
    arguments = ["compare", "--configfile", str(compared / "config.yaml")]
    arguments += ["--a-model", MODEL, "--a-results", str(results_a)]
    arguments += ["--b-model", MODEL, "--b-results", str(results_b)]
    arguments += ["--out-md", str(out / "c.md"), "--out-tsv", str(out / "c.tsv")]
    arguments += ["--out-png", str(out / "c.png"), "--out-changed", str(out / "changed.tsv")]
    assert main(arguments) == 0
    report = (out / "c.md").read_text()
    assert f"# {MODEL} ({results_b}) against {MODEL} ({results_a})" in report
    assert "**1 flipped**" in report
    changed = pd.read_csv(out / "changed.tsv", sep="\t")
    assert len(changed) == 1 and changed.loc[0, "question"] == "q2"
    assert changed.loc[0, "instance_id"] == table.at[row, "instance_id"]
    # the instance's outcome moved: its occupation's change is B - A over its instances
    occupation = table.at[row, "occupation"]
    before = read_table(results_a / MODEL / "outcomes.tsv")
    before = before[before["occupation"] == occupation]
    after = outcomes[outcomes["occupation"] == occupation]
    changes = pd.read_csv(out / "c.tsv", sep="\t").set_index(["occupation", "metric"])
    for metric, column in (("confirmation", "confirmed"), ("consistency", "consistent")):
        expected = after[column].astype(float).mean() - before[column].astype(float).mean()
        assert changes.loc[(occupation, metric), "change"] == pytest.approx(expected)
    biased = (
        signed_readings(after, sides=GENDER)["biased"].mean()
        - signed_readings(before, sides=GENDER)["biased"].mean()
    )
    assert changes.loc[(occupation, "difference"), "change"] == pytest.approx(biased)
    others = changes.drop(index=[occupation, "(all)"], level="occupation")
    assert (others["change"] == 0).all()
    # pooled: the one instance's move over every occupation's instances
    moved = changes.loc[(occupation, "difference"), "change"] * len(after) / len(outcomes)
    assert changes.loc[("(all)", "difference"), "change"] == pytest.approx(moved)
