"""names.validate and names.drop_misperceived on the embedded model, end to end."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.conftest import needs_data
from tests.helpers.workflow_runs import EMBEDDED, MODEL, TINY, run_tiny

pytestmark = [pytest.mark.slow, pytest.mark.workflow, needs_data]

VALIDATED = {
    **TINY,
    "occupations": {**TINY["occupations"], "select": ["nurse"]},
    "attributes": {"per_type": 1},
    "names": {**TINY["names"], "validate": True, "drop_misperceived": True},
    "models": {MODEL: {**EMBEDDED, "threads": 1}},
}


@pytest.fixture(scope="module")
def validated(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("validated")
    run_tiny(workdir, config=VALIDATED)
    return workdir


def test_every_name_is_asked_once_and_reported_with_its_reading(validated):
    results = validated / "results"
    table = pd.read_csv(results / f"names/{MODEL}.tsv", sep="\t", keep_default_na=False)
    assert len(table) == 20 and table["name"].is_unique
    assert set(table["perceived_gender"]) <= {"female", "male"}
    assert (table["race"] == "").all() and (table["perceived_race"] == "").all()
    assert table["p_gender"].astype(float).between(0, 1).all()
    assert (table["tokens"].astype(int) >= 1).all()
    reads = table["perceived_gender"] == table["gender"]
    assert (table["reads_as_label"].astype(str) == reads.astype(str)).all()
    log = (validated / f"logs/validate_names/{MODEL}.log").read_text()
    assert "20 distinct questions, 20 asked of the model, 0 answered from the store" in log
    text = (results / "names/validity.md").read_text()
    assert f"{int(reads.sum())} of 20 names read as their label" in text
    assert "not anyone's identity" in text and "Mean length in tokens" in text


def test_misread_names_are_left_out_before_pairing_and_listed(validated):
    results = validated / "results"
    table = pd.read_csv(results / f"names/{MODEL}.tsv", sep="\t")
    misread = list(table.loc[~table["reads_as_label"], "name"])
    assert misread  # the embedded model misreads some: the test would prove nothing otherwise
    pairs = pd.read_csv(results / "dataset/pairs.tsv", sep="\t")
    assert not set(pairs["female"]) & set(misread) and not set(pairs["male"]) & set(misread)
    summary = (results / "summary.md").read_text()
    assert f"**{len(misread)} names left out before pairing**" in summary
    assert ", ".join(misread) in summary


def test_a_second_run_asks_the_names_from_the_store_and_loads_no_model(validated):
    table = validated / f"results/names/{MODEL}.tsv"
    first = pd.read_csv(table, sep="\t")
    table.unlink()
    run_tiny(validated, f"results/names/{MODEL}.tsv", config=VALIDATED)
    log = (validated / f"logs/validate_names/{MODEL}.log").read_text()
    assert "20 distinct questions, 0 asked of the model, 20 answered from the store" in log
    assert "tokens counted without loading the model" in log
    pd.testing.assert_frame_equal(pd.read_csv(table, sep="\t"), first)  # the same tokens
