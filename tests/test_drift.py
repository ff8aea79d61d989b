"""The drift check against the fake OpenAI-compatible server: no drift, then an injected one
(other answers, another served model and fingerprint, moved probabilities); the store is only
read."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd
import pytest
import yaml
from scipy.special import softmax

from hiremeornot.asking.ask import ask
from hiremeornot.asking.backends import Request, Response, load_backend, model_identity
from hiremeornot.asking.store import ResponseStore
from hiremeornot.cli import main
from hiremeornot.config import load_config
from hiremeornot.provenance.drift import Drift, drift_table, findings, sampling_agreement
from hiremeornot.writing.drift import drift_markdown

QUESTIONS = [Request(f"Is candidate {i} qualified?", ("Yes", "No")) for i in range(12)]
FLIPPED = {QUESTIONS[2].prompt, QUESTIONS[7].prompt, QUESTIONS[9].prompt}


def write_config(folder: Path, url: str, **changes) -> Path:
    model = {
        "backend": "openai",
        "model": "gpt-test",
        "base_url": url,
        "api_key_env": "HIREMEORNOT_TEST_KEY",
        "max_retries": 0,
        **changes,
    }
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "config.yaml"
    path.write_text(yaml.safe_dump({"models": {"api": model}, "store_dir": str(folder / "store")}))
    return path


def fill_store(config_path: Path, questions: list[Request]) -> None:
    """The audit's answers: asked through the store, as a step job asks them."""
    config = load_config(config_path)
    settings = config["models"]["api"]
    store = ResponseStore.open(config["store_dir"], "api", label="step1-shard0")
    ask(questions, store, model_identity(settings), lambda: load_backend("openai", settings))
    store.close()


def snapshot(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def drift(config: Path, out: Path, *options: str) -> int:
    return main(
        ["drift", "--configfile", str(config), "--model", "api", *options]
        + ["--out-md", str(out / "drift.md"), "--out-tsv", str(out / "drift.tsv")]
    )


@pytest.fixture()
def audited(fake, tmp_path) -> Path:
    """A store of 12 answers from the server as it was: gpt-test-2024-08-06, fingerprint fp_old."""
    fake.served_model, fake.system_fingerprint = "gpt-test-2024-08-06", "fp_old"
    fake.alternatives = [-0.5, -2.0]  # "Yes" -1.5 (three tokens of -0.5), "No" -2.0
    config = write_config(tmp_path, fake.url)
    fill_store(config, QUESTIONS)
    return config


def test_an_unchanged_server_shows_no_drift(audited, tmp_path):
    store = tmp_path / "store"
    before = snapshot(store)
    assert drift(audited, tmp_path / "out", "--sample", "5", "--seed", "3") == 0
    report = (tmp_path / "out/drift.md").read_text()
    assert "**No drift detected** in 5 questions" in report
    assert (
        "**5 of 5 answers agree (100.0%" in report and "stored under other settings" not in report
    )
    table = pd.read_csv(tmp_path / "out/drift.tsv", sep="\t")
    assert table["key"].nunique() == 5 and len(table) == 10  # questions x choices
    assert table["agree"].all() and (table["change_p"].abs() < 1e-12).all()
    assert (table["served_model"] == table["stored_served_model"]).all()
    assert snapshot(store) == before  # nothing written to the store
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["drift.md", "drift.tsv"]
    # the same seed samples the same questions
    assert drift(audited, tmp_path / "again", "--sample", "5", "--seed", "3") == 0
    again = pd.read_csv(tmp_path / "again/drift.tsv", sep="\t")
    assert again["key"].tolist() == table["key"].tolist()


def test_an_injected_drift_is_detected(fake, audited, tmp_path):
    store = tmp_path / "store"
    before = snapshot(store)
    fake.served_model, fake.system_fingerprint = "gpt-test-2025-01-31", "fp_new"
    fake.choose = lambda prompt, choices: choices[1] if prompt in FLIPPED else choices[0]
    fake.alternatives = [-0.5, -1.0]
    assert drift(audited, tmp_path / "out", "--sample", "100") == 0
    report = (tmp_path / "out/drift.md").read_text()
    assert "**Drift detected**: 3 of 12 answers changed" in report
    assert "the served model id changed in 12 questions" in report
    assert "the system fingerprint changed in 12 questions" in report
    assert "**9 of 12 answers agree (75.0%" in report
    old_id, new_id = "`gpt-test-2024-08-06` (fingerprint `fp_old`)", "`gpt-test-2025-01-31`"
    assert f"| {old_id} | {new_id} (fingerprint `fp_new`) | 12 |" in report
    table = pd.read_csv(tmp_path / "out/drift.tsv", sep="\t")
    flipped = table[table["prompt"].isin(FLIPPED)]
    assert set(flipped["stored_answer"]) == {"Yes"} and set(flipped["answer"]) == {"No"}
    assert table[~table["prompt"].isin(FLIPPED)]["agree"].all()
    # an unflipped question: Yes still -1.5, No now -1.0 (was -2.0)
    kept = table[~table["prompt"].isin(FLIPPED) & (table["choice"] == "Yes")]
    was, now = softmax([-1.5, -2.0])[0], softmax([-1.5, -1.0])[0]
    assert kept["change_p"].to_numpy() == pytest.approx([now - was] * 9)
    assert f"at most {abs(now - was):.4f}" in report
    assert snapshot(store) == before


def test_only_answers_of_the_current_settings_are_asked_again(fake, audited, tmp_path, capsys):
    other = write_config(tmp_path / "other", fake.url, system_prompt="You are a recruiter.")
    fill_store(other, QUESTIONS[:4])  # its store: other settings, other keys
    for path in (tmp_path / "other/store/api").iterdir():
        path.rename(tmp_path / "store/api" / path.name)
    assert drift(audited, tmp_path / "out", "--sample", "100") == 0
    report = (tmp_path / "out/drift.md").read_text()
    assert "12 of the 12 answers stored" in report and "4 stored under other settings" in report
    empty = write_config(tmp_path / "empty", fake.url, system_prompt="Something else.")
    (tmp_path / "empty/store/api").mkdir(parents=True)
    for path in (tmp_path / "store/api").iterdir():
        (tmp_path / "empty/store/api" / path.name).write_bytes(path.read_bytes())
    assert drift(empty, tmp_path / "none") == 1
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error.startswith("hiremeornot: ") and "none of its 16 stored answers" in error
    assert drift(audited, tmp_path / "zero", "--sample", "0") == 1
    assert capsys.readouterr().err.strip().endswith("--sample: 0; ask at least one question")
    assert (
        main(
            ["drift", "--configfile", str(audited), "--model", "nope"]
            + ["--out-md", str(tmp_path / "x.md"), "--out-tsv", str(tmp_path / "x.tsv")]
        )
        == 1
    )
    assert "--model: unknown model 'nope'" in capsys.readouterr().err


def sampled(agreeing: int, n: int = 40, logprobs=(-0.6931, -0.6931), temperature=1.0):
    """A drift check of ``n`` questions asked at ``temperature``, ``agreeing`` of them alike."""
    chosen = pd.DataFrame(
        {
            "key": [f"k{i}" for i in range(n)],
            "prompt": [f"Q{i}?" for i in range(n)],
            "choices": [("Yes", "No")] * n,
            "answer": ["Yes"] * n,
            "logprobs": [tuple(logprobs)] * n,
            "served_model": [None] * n,
            "system_fingerprint": [None] * n,
        }
    )
    now = [Response("Yes" if i < agreeing else "No", tuple(logprobs)) for i in range(n)]
    return Drift("api", "openai", n, n, 0, drift_table(chosen, now), {"temperature": temperature})


def test_at_temperature_above_0_changed_answers_are_tested_against_sampling_alone():
    """Two choices at 0.5 each: an unchanged model agrees with itself in half of its samples."""
    assert sampling_agreement(sampled(18))[0] == pytest.approx(20.0, rel=1e-3)
    text = drift_markdown(sampled(18))
    assert "**No drift detected**" in text and "as sampling at temperature 1.0 alone" in text
    assert "**Drift detected**: 8 of 40 answers agree where sampling" in drift_markdown(sampled(8))
    # a sharp distribution: sampling agrees nearly always, so 30 of 40 is drift
    sharp = sampled(30, logprobs=(-0.01, -4.6))
    assert sampling_agreement(sharp)[1] < 1e-6 and "**Drift detected**" in drift_markdown(sharp)
    # at temperature 0 any changed answer is drift; without probabilities nothing is tested
    assert "**Drift detected**: 2 of 40 answers changed" in drift_markdown(
        sampled(38, temperature=0.0)
    )
    unknown = sampled(30, logprobs=(float("nan"), -0.5))
    assert sampling_agreement(unknown) is None
    assert "**Drift not tested**: 10 of 40 answers changed" in drift_markdown(unknown)


def test_the_drift_verdict_is_decided_as_data_before_it_is_phrased():
    verdicts = {
        "sampling alone": sampled(18),
        "too few agree": sampled(8),
        "any change at 0": sampled(38, temperature=0.0),
        "no probabilities": sampled(30, logprobs=(float("nan"), -0.5)),
        "all agree": sampled(40, temperature=0.0),
    }
    decided = {label: findings(drift) for label, drift in verdicts.items()}
    assert {label: (f["verdict"], f["drifted_by"]) for label, f in decided.items()} == {
        "sampling alone": ("no drift", []),
        "too few agree": ("drift detected", ["sampling"]),
        "any change at 0": ("drift detected", ["answers"]),
        "no probabilities": ("not tested", []),
        "all agree": ("no drift", []),
    }
