"""The paper's female vs male audit keeps the layout it had before contrasts existed.

``tests/data/default_layout.json`` was written (``python -m tests.test_default_layout
<results>``) from the tiny config's results at commit 5ed2239, the last one before contrasts:
every output file, the columns of every table, and the digest of the dataset tables, which do
not depend on a model. A run of today's code must match it exactly. Added since, on purpose:
each model's answer_space.tsv, non_answers.tsv, pooled.tsv and findings.tsv, the step tables'
answer_mass column, Step 2's granted column, dataset/capacity.json, dataset/names.parquet and
the first page (index.html, report_front.rst).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import needs_data

SNAPSHOT = Path(__file__).parent / "data" / "default_layout.json"
SKIPPED = ("store/",)  # the response store's segments are named by host and process
DATASET = ("dataset/pairs.tsv", "dataset/attributes.tsv", "dataset/instances.parquet")


def layout(results: Path) -> dict:
    """Every file under ``results`` with the columns of its table, and the dataset digests."""
    files = {}
    for path in sorted(results.rglob("*")):
        relative = path.relative_to(results).as_posix()
        if not path.is_file() or relative.startswith(SKIPPED):
            continue
        if path.suffix == ".parquet":
            files[relative] = list(pd.read_parquet(path).columns)
        elif path.suffix == ".tsv":
            files[relative] = list(pd.read_csv(path, sep="\t", nrows=0).columns)
        else:
            files[relative] = None
    digests = {
        name: hashlib.sha256(
            (pd.read_parquet if name.endswith("parquet") else _tsv)(results / name)
            .to_csv(sep="\t", index=False)
            .encode()
        ).hexdigest()
        for name in DATASET
    }
    return {"files": files, "dataset": digests}


def _tsv(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t")


@pytest.mark.slow
@pytest.mark.workflow
@needs_data
def test_the_default_audit_writes_what_it_wrote_before_contrasts(tiny_run):
    expected = json.loads(SNAPSHOT.read_text())
    found = layout(tiny_run / "results")
    assert sorted(found["files"]) == sorted(expected["files"])
    for name, columns in expected["files"].items():
        assert found["files"][name] == columns, name
    assert found["dataset"] == expected["dataset"]


if __name__ == "__main__":
    SNAPSHOT.write_text(json.dumps(layout(Path(sys.argv[1])), indent=1) + "\n")
