"""The command line's own contracts: what each option means is in the option, not in the order
of two lists."""

from __future__ import annotations

import json

import pytest

from hiremeornot.cli import main
from hiremeornot.contrasts import GENDER_CONTRAST


def step(tmp_path, *out: str) -> list[str]:
    return [
        "step",
        "--step",
        "step1",
        "--model",
        "m",
        "--shard",
        "0",
        "--settings",
        "{}",
        "--contrast",
        json.dumps(GENDER_CONTRAST.as_dict()),
        "--instances",
        str(tmp_path / "i.parquet"),
        "--attributes",
        str(tmp_path / "a.tsv"),
        "--store-dir",
        str(tmp_path / "store"),
        "--out",
        *out,
        "--record",
        str(tmp_path / "r.json"),
    ]


@pytest.mark.parametrize(
    ("out", "message"),
    [
        (["m/step1/shard-0.parquet"], "--out m/step1/shard-0.parquet: not a step1 table of a"),
        (["m/step2/paper/shard-0.parquet"], "not a step1 table of a wording"),
        (
            ["m/step1/paper/shard-0.parquet", "n/step1/paper/shard-0.parquet"],
            "--out: two tables of the wording 'paper'",
        ),
    ],
)
def test_a_step_reads_each_tables_wording_from_its_path(tmp_path, capsys, out, message):
    assert main(step(tmp_path, *out)) == 1
    assert message in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()
