"""Every command of the CLI, described once: the commands a person runs (their options here,
USER_COMMANDS, and the store's) and the job commands the workflow's rules call (cli/jobs.py).
The parser (cli/__init__.py) is built from these tables on every call, so this imports nothing
heavy."""

from __future__ import annotations

from hiremeornot.cli.job_about import JOB_ABOUT
from hiremeornot.cli.jobs import JOB_COMMANDS
from hiremeornot.cli.options import ONE, RULE, run_options

# name: (module, takes --settings, takes --contrast, options); the store's are "store <name>"
USER_TABLE = {
    "prepare-model": (
        "inputs",
        False,
        False,
        [
            (["--model"], {**ONE, "help": "a model location, e.g. embedded:smollm2-135m-instruct"}),
            (["--gguf-file"], {"help": "the GGUF file inside a local model folder"}),
        ],
    ),
    "drift": (
        "provenance",
        False,
        False,
        [
            (["--configfile"], {"default": "config.yaml", "help": "the run's config"}),
            (["--model"], {**ONE, "help": "the model to ask again, as the config names it"}),
            (["--store-dir"], {"default": None, "help": "default: the config's store_dir"}),
            (["--sample"], {"type": int, "default": 50, "help": "questions to ask again"}),
            (["--seed"], {"type": int, "default": 0, "help": "which questions are sampled"}),
            (["--out-md"], {**ONE, "help": "the verdict in words"}),
            (["--out-tsv"], {**ONE, "help": "each question's answer then and now"}),
        ],
    ),
    "verify": (
        "provenance",
        False,
        False,
        [
            (["--results"], {"default": "results", "help": "the run's folder (its manifest.json)"}),
            (["--store-dir"], {"default": None, "help": "default: the run's store_dir"}),
        ],
    ),
    "compare": (
        "comparing",
        True,
        True,
        [
            *run_options("a"),
            *run_options("b"),
            (
                ["--configfile"],
                {"default": "config.yaml", "help": "report settings w/o --settings", RULE: None},
            ),
            (["--out-md"], {**ONE, "help": "the comparison in words"}),
            (["--out-tsv"], {**ONE, "help": "the changes per occupation and pooled"}),
            (["--out-png"], {**ONE, "help": "the changes as a figure"}),
            (["--out-changed"], {"default": None, "help": "every question answered otherwise"}),
        ],
    ),
}
USER_COMMANDS = list(USER_TABLE)
COMMANDS = {**USER_TABLE, **JOB_COMMANDS}
# What each command does, in one line (hiremeornot --help, hiremeornot <command> --help).
ABOUT = {
    "prepare-model": "convert a GGUF model once into the cache, so that jobs load it in a second",
    "drift": "ask a model a sample of its stored questions again: does it still answer alike?",
    "compare": "compare two runs or models: what changed per occupation, with intervals",
    "verify": "check a finished run against its manifest and store: what changed since",
    **JOB_ABOUT,
}
STORE = {**ONE, "help": "the response store (the config's store_dir)"}
STORE_COMMANDS = {
    "check": [(["--store-dir"], STORE), (["--model"], {"help": "one model's folder only"})],
    "compact": [
        (["--store-dir"], STORE),
        (["--model"], {**ONE, "help": "the model whose segments to merge"}),
        (["--min-age-s"], {"type": float, "default": 600.0, "help": "skip younger segments"}),
    ],
    "rebuild": [
        (["--store-dir"], STORE),
        (["--model"], {**ONE, "help": "the model whose store to rebuild"}),
        (["--results"], {**ONE, "help": "the results folder holding its step tables"}),
        (["--configfile"], {**ONE, "help": "the config the tables were asked under"}),
        (
            ["--unrecorded"],
            {
                "action": "store_true",
                "help": "also tables written before their settings were recorded, trusting "
                "that they were asked with the config's",
            },
        ),
    ],
}
# Commands whose --settings and --contrast may be left out: compare reads the report settings
# from --configfile and the contrast from the runs' manifest.
OPTIONAL = {"compare"}
STORE_ABOUT = {
    "check": "check a store's segments and report what is wrong",
    "compact": "merge a model's segments into one",
    "rebuild": "recreate a store from the step tables",
}
EXAMPLES = """examples:
  hiremeornot compare --a-model gpt-4o --b-model gpt-4o-mini --out-md c.md --out-tsv c.tsv \\
      --out-png c.png
  hiremeornot drift --model gpt-4o --sample 50 --out-md drift.md --out-tsv drift.tsv
  hiremeornot store check --store-dir results/store
  hiremeornot verify --results results
  hiremeornot <command> --help   (any command, the workflow's job commands too)
"""
