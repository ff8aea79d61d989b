"""The command line's own contracts: what each option means is in the option, not in the order
of two lists."""

from __future__ import annotations

import json
import re

import pytest

from hiremeornot.cli import main
from hiremeornot.cli.commands import ABOUT, STORE_ABOUT, STORE_COMMANDS, USER_COMMANDS
from hiremeornot.cli.jobs import JOB_COMMANDS
from hiremeornot.design.contrasts import GENDER_CONTRAST


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
        (["m/step1/shard-0.parquet"], "--out m/step1/shard-0.parquet: not a step table (<model>"),
        (["m/step2/paper/shard-0.parquet"], "--out m/step2/paper/shard-0.parquet: not a step1 t"),
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


def test_keyed_paths_name_what_each_belongs_to(tmp_path, capsys):
    """KEY=PATH items: a missing key, a key twice, or a model the run lacks is refused."""
    out = str(tmp_path / "e.md")
    base = ["run-estimate", "--out-tsv", str(tmp_path / "e.tsv"), "--out-md", out]
    with pytest.raises(SystemExit):
        main([*base, "--tsv", "a.tsv", "--md", "A=a.md"])
    assert "--tsv 'a.tsv': expected KEY=PATH" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([*base, "--tsv", "A=a.tsv", "A=b.tsv", "--md", "A=a.md"])
    assert "--tsv: 'A' is given twice" in capsys.readouterr().err
    assert main([*base, "--tsv", "A=a.tsv", "--md", "B=b.md"]) == 1
    assert "--tsv ['A'] and --md ['B'] name other contrasts" in capsys.readouterr().err


def test_the_summary_refuses_tables_of_models_the_run_does_not_have(tmp_path, capsys):
    settings = {"models": {"m": {"backend": "simulated"}}, "report": {"wordings": ["paper"]}}
    tables = [
        f"--{flag}" if i == 0 else f"{model}={tmp_path / flag}.tsv"
        for flag in ("metrics", "tests", "findings", "answer-space", "non-answers", "pooled")
        for i, model in enumerate(["", "other" if flag == "tests" else "m"])
    ]
    argv = ["summary", "--settings", json.dumps(settings)]
    argv += ["--contrast", json.dumps(GENDER_CONTRAST.as_dict()), *tables]
    assert main([*argv, "--out", str(tmp_path / "s.md")]) == 1
    assert "--tests: tables of ['other'], but the run needs ['m']" in capsys.readouterr().err


def test_the_main_help_lists_what_a_person_runs_and_names_the_job_commands_apart(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    commands, rest = text.split("examples:")
    for name in [*USER_COMMANDS, "store"]:
        assert re.search(rf"^    {name}\b", commands, re.MULTILINE), name
    for name in JOB_COMMANDS:
        assert not re.search(rf"^    {name}\b", commands, re.MULTILINE), name  # not listed
        assert re.search(rf"(^|[ ,]){name}(,|$)", rest, re.MULTILINE), name  # but named
    assert len(text.splitlines()) < 45


@pytest.mark.parametrize("name", [*USER_COMMANDS, *[f"store {n}" for n in STORE_COMMANDS]])
def test_every_option_a_person_gives_says_what_it_is(name, capsys):
    with pytest.raises(SystemExit):
        main([*name.split(), "--help"])
    text = capsys.readouterr().out
    options = text[text.index("options:") :]
    # each option's line (or the line under it) carries its help
    entries = re.findall(r"^  (--[\w-]+)[^\n]*?(?:  +(\S.*))?\n(?:\s{10,}(\S.*))?", options, re.M)
    assert entries
    for option, same_line, next_line in entries:
        assert same_line or next_line, f"{name} {option}"
    assert ABOUT.get(name, STORE_ABOUT.get(name.removeprefix("store "))) in " ".join(text.split())
