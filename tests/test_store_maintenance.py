"""store check, compact and rebuild: bad segments named, compaction that loses nothing even
while read, and a store rebuilt from the step tables equal to the original."""

from __future__ import annotations

import math
import multiprocessing
import sqlite3
from pathlib import Path

import pandas as pd
import yaml

from hiremeornot.asking.ask import ask
from hiremeornot.asking.backends import model_identity
from hiremeornot.asking.backends.base import Request
from hiremeornot.asking.steps import attach_answers, build_questions
from hiremeornot.asking.store import ResponseStore, request_key, segments
from hiremeornot.asking.store_maintenance import check, compact, recorded_answers
from hiremeornot.cli import main
from hiremeornot.config import load_config
from hiremeornot.design.contrasts import GENDER
from hiremeornot.design.prompts import PAPER
from hiremeornot.plan import step_settings
from hiremeornot.tables_io import STEPS, stamp_table, write_table
from tests.conftest import REPO, needs_data
from tests.helpers.doubles import CountingBackend
from tests.test_steps import inputs  # noqa: F401 (the fixture)
from tests.test_store import requests, write_old_store

IDENTITY = {"backend": "transformers", "model": "m"}


def stored(folder: Path, labels: tuple[str, ...] = ("",)) -> set[tuple]:
    """Every row but its time, (key, prompt, choices, answer, logprobs, answer_mass), of the
    segments whose name starts with one of ``labels``."""
    rows: set[tuple] = set()
    for path in segments(folder):
        if path.name.startswith(labels):
            db = sqlite3.connect(path)
            present = {row[1] for row in db.execute("PRAGMA table_info(answers)")}
            mass = "answer_mass" if "answer_mass" in present else "NULL"  # an older segment
            rows |= set(
                db.execute(f"SELECT key, prompt, choices, answer, logprobs, {mass} FROM answers")
            )
            db.close()
    return rows


def fill(store_dir: Path, parts: int, size: int, start: int = 0) -> None:
    """``parts`` segments of ``size`` new answers each, from question ``start`` on."""
    for part in range(parts):
        store = ResponseStore.open(store_dir, "m", label=f"part{part}")
        questions = requests(size, start=start + part * size)
        ask(questions, store, IDENTITY, lambda: CountingBackend())
        store.close()


def test_check_names_each_bad_segment_and_exits_1(tmp_path, capsys):
    fill(tmp_path, 3, 5)
    assert (
        check(tmp_path, "m") == [] and main(["store", "check", "--store-dir", str(tmp_path)]) == 0
    )
    corrupt, outside, _ = segments(tmp_path / "m")
    corrupt.write_bytes(b"junk" * 1000)
    db = sqlite3.connect(outside)
    db.execute("UPDATE answers SET answer = 'Maybe' WHERE rowid = 1")
    db.commit()
    assert check(tmp_path, "m") == [
        f"{corrupt}: file is not a database",
        f"{outside}: 1 row(s) with an answer outside its choices or not one log-probability "
        "per choice",
    ]
    assert main(["store", "check", "--store-dir", str(tmp_path), "--model", "m"]) == 1
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error == f"hiremeornot: 2 bad store segment(s): {corrupt}, {outside}"


def test_a_check_that_finds_nothing_to_check_fails_naming_why(tmp_path, capsys):
    fill(tmp_path, 1, 2)
    (tmp_path / "empty").mkdir()
    for options, message in (
        (["--store-dir", str(tmp_path / "none")], "no such folder, so no store to check"),
        (["--store-dir", str(tmp_path), "--model", "nosuch"], "no segment of model 'nosuch' to"),
        (["--store-dir", str(tmp_path / "empty")], "no segment of any model to check"),
    ):
        assert main(["store", "check", *options]) == 1
        assert message in capsys.readouterr().err, options


def test_compaction_merges_segments_and_migrates_an_old_store(tmp_path):
    old, _ = write_old_store(tmp_path, 5)
    old.close()
    fill(tmp_path, 3, 5, start=5)
    before = stored(tmp_path / "m")
    assert len(before) == 20 and len(segments(tmp_path / "m")) == 4
    assert main(["store", "compact", "--store-dir", str(tmp_path), "--model", "m"]) == 0
    assert len(segments(tmp_path / "m")) == 4  # all younger than --min-age-s
    merged = compact(tmp_path / "m", min_age_s=0)
    assert segments(tmp_path / "m") == [merged] and merged.name.startswith("compact@")
    assert not list(tmp_path.glob("m.sqlite*"))  # the old store, its -wal and -shm: moved in
    assert stored(tmp_path / "m") == before
    assert not list((tmp_path / "m").glob(".*"))  # nothing half-written left


def reads_while_compacting(store_dir: str, expected: int, ready, stop) -> list[int]:
    keys = [request_key(IDENTITY, r) for r in requests(expected)]
    counts = []
    while not stop.is_set():
        counts.append(len(ResponseStore.open(store_dir, "m").get(keys)))
        ready.set()
    return counts


def test_a_reader_never_loses_answers_during_compaction(tmp_path):
    questions = requests(600)
    answers = CountingBackend().answer(questions)
    entries = [(request_key(IDENTITY, q), q, a) for q, a in zip(questions, answers, strict=True)]
    fill(tmp_path, 6, 100)
    context = multiprocessing.get_context("spawn")
    manager = context.Manager()
    ready, stop = manager.Event(), manager.Event()
    with context.Pool(1) as pool:
        reading = pool.apply_async(reads_while_compacting, (str(tmp_path), 600, ready, stop))
        assert ready.wait(60)
        for _ in range(20):  # the same answers again, in six new segments, then merged
            for part in range(6):
                store = ResponseStore.open(tmp_path, "m")
                store.put(entries[part * 100 : (part + 1) * 100])
                store.close()
            compact(tmp_path / "m", min_age_s=0)
        stop.set()
        counts = reading.get(timeout=60)
    assert counts and set(counts) == {600}
    assert len(segments(tmp_path / "m")) == 1


def answered_tables(results: Path, config: dict, step1_inputs: dict) -> tuple[Path, Path]:
    """The step tables of model m, asked as run_step asks them, and the store they filled."""
    store_dir = results / "store"
    step1 = None
    for step in STEPS:
        settings = step_settings(config, "m", step)
        step_inputs = {**step1_inputs, "step1": step1} if step1 is not None else step1_inputs
        questions = build_questions(step, 0, settings, step_inputs, ["paper"], sides=GENDER)
        store = ResponseStore.open(store_dir, "m", label=f"{step}-shard0")
        responses, _ = ask(
            [
                Request(p, tuple(c))
                for p, c in zip(questions["prompt"], questions["choices"], strict=True)
            ],
            store,
            model_identity(settings["model"]),
            lambda: CountingBackend(batch_size=50),
        )
        table = attach_answers(questions, responses)
        path = results / "m" / step / PAPER / "shard-0.parquet"
        write_table(table, path)
        identity = model_identity(settings["model"])  # as the step job records it
        stamp_table(path, {"model": "m", "step": step, "identity": identity})
        if step == "step1":
            step1 = table
    return store_dir, results


@needs_data
def test_a_rebuilt_store_equals_the_original(tmp_path, inputs, capsys):  # noqa: F811
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    config["answers"] = {"yes": "Yes", "no": "No", "both": "Both", "neither": "Neither"}
    config["models"] = {"m": {"backend": "transformers", "model": "embedded:smollm2-135m-instruct"}}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    loaded = load_config(tmp_path / "config.yaml")
    store_dir, results = answered_tables(tmp_path / "results", loaded, inputs)
    original = stored(store_dir / "m")
    assert len(original) > 100

    def rebuild_into(store_dir, *options):
        command = ["store", "rebuild", "--store-dir", str(store_dir), "--model", "m", *options]
        command += ["--results", str(results), "--configfile", str(tmp_path / "config.yaml")]
        return main(command)

    assert rebuild_into(tmp_path / "new") == 0
    assert stored(tmp_path / "new" / "m") == original
    # a config with other settings than the tables were asked with: refused, nothing stored
    other = {**config, "models": {"m": {**config["models"]["m"], "system_prompt": "Be fair."}}}
    (tmp_path / "other.yaml").write_text(yaml.safe_dump(other))
    command = ["store", "rebuild", "--store-dir", str(tmp_path / "poisoned"), "--model", "m"]
    command += ["--results", str(results), "--configfile", str(tmp_path / "other.yaml")]
    assert main(command) == 1
    error = capsys.readouterr().err
    assert (
        "asked with other settings than the config's (system_prompt: None there, 'Be fair.'"
        in error
    )
    assert not (tmp_path / "poisoned").exists()
    # tables written before the choices column (and wordings): Steps 1 and 2 from the config's
    # words
    for step in ("step1", "step2", "step3"):
        path = results / "m" / step / PAPER / "shard-0.parquet"
        table = pd.read_parquet(path).drop(columns=["choices", "roles", "wording"])
        write_table(table, results / "m" / step / "shard-0.parquet")
        path.unlink()
    step3 = results / "m" / "step3" / "shard-0.parquet"
    assert rebuild_into(tmp_path / "older") == 1  # older tables record no settings
    assert "written before step tables recorded the settings" in capsys.readouterr().err
    assert rebuild_into(tmp_path / "older", "--unrecorded") == 1
    assert f"{step3}: no choices column" in capsys.readouterr().err
    step3.unlink()
    assert rebuild_into(tmp_path / "older", "--unrecorded") == 0
    assert stored(tmp_path / "older" / "m") == stored(store_dir / "m", ("step1", "step2"))


def test_rebuild_names_what_it_lacks(tmp_path, capsys):
    (tmp_path / "config.yaml").write_text((REPO / "config.yaml").read_text())
    base = ["store", "rebuild", "--store-dir", str(tmp_path / "s"), "--configfile"]
    base += [str(tmp_path / "config.yaml"), "--results", str(tmp_path / "r")]
    assert main([*base, "--model", "gpt-9"]) == 1
    assert "--model: unknown model 'gpt-9'" in capsys.readouterr().err
    assert main([*base, "--model", "smollm2-135m"]) == 1
    assert f"{tmp_path}/r/smollm2-135m: no step tables" in capsys.readouterr().err


def test_a_reply_its_classifier_read_is_rebuilt_as_the_parser_read_it():
    """The model's store holds the parser's reading (the classifier's has its own store)."""
    table = pd.DataFrame(
        {
            "prompt": ["Who, Mary or John?"] * 2,
            "choices": [["Mary", "John"]] * 2,
            "roles": [["female", "male"]] * 2,
            "answer": ["Mary", "Mary"],
            "logprob_female": [math.nan] * 2,
            "logprob_male": [math.nan] * 2,
            "free_tokens": [64, 64],
            "reply": ["The first one.", "Mary."],
            "rule": ["classifier", "leading"],
        }
    )
    rebuilt = recorded_answers(table, Path("m/step3/paper/shard-0.parquet"), {})
    assert [response.answer for _, response in rebuilt] == ["unparsed", "Mary"]
