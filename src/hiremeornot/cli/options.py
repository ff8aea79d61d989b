"""The building blocks of the CLI's option tables (cli/commands.py, cli/jobs.py): required
paths, keyed paths, the contrast and the two runs of a comparison, and where a workflow rule
finds an option's value (cli/rule_lines.py)."""

from __future__ import annotations

import argparse
import json

# The key of an option's declaration that says where its rule finds the value (a Snakemake
# placeholder; PARAMS: the rule's params of the option's name; None: no rule passes it). Not
# argparse's: the parser leaves it out (argparse_kwargs).
RULE = "rule"
PARAMS = "params"
ONE = {"required": True}
MANY = {"nargs": "+", "required": True}
PERCEIVED = {"nargs": "*", "help": "names.drop_misperceived: results/names/*.tsv"}
DESIGN = [(["--instances"], ONE), (["--attributes"], ONE)]
# The alignment's share table and crosswalk (workforce), where a gender contrast has them.
WORKFORCE = [
    (["--shares"], {"nargs": "*", "help": "the share table (workforce.shares)"}),
    (["--crosswalk"], {"nargs": "*", "help": "the crosswalk (workforce.crosswalk)"}),
]
STORE_DIR = {**ONE, RULE: PARAMS}


def argparse_kwargs(declared: dict) -> dict:
    """An option's declaration without what only its rule reads."""
    return {key: value for key, value in declared.items() if key != RULE}


class KeyedPaths(argparse.Action):
    """``KEY=PATH`` items (a model's table, a contrast's estimate) as a dict: each path names
    what it belongs to, so that no two lists must be given in one order."""

    def __call__(self, parser, namespace, values, option_string=None):
        paths: dict[str, str] = {}
        for item in values:
            key, sep, path = item.partition("=")
            if not sep or not key or not path:
                parser.error(f"{option_string} {item!r}: expected KEY=PATH")
            if paths.setdefault(key, path) != path:
                parser.error(f"{option_string}: {key!r} is given twice")
        setattr(namespace, self.dest, paths)


# KEY=PATH items, none where a rule has none to give (e.g. no arm); at least one where required.
KEYED = {"nargs": "*", "action": KeyedPaths, "metavar": "KEY=PATH"}
KEYED_REQUIRED = {**KEYED, "nargs": "+", "required": True}


def contrast_option(text: str):
    """The ``--contrast`` JSON ({a: group, b: group, held: [...]}) as a Contrast."""
    from hiremeornot.design.contrasts import Contrast

    return Contrast.from_dict(json.loads(text))


def run_options(side: str) -> list:
    """The options naming one run of a comparison: its model and result folder."""
    return [
        (
            [f"--{side}-model"],
            {
                **ONE,
                "help": f"run {side.upper()}'s model, as the config names it",
                RULE: f"{{wildcards.{side}}}",
            },
        ),
        (
            [f"--{side}-results"],
            {"default": "results", "help": "holds <model>/", RULE: "results/{wildcards.contrast}"},
        ),
        ([f"--{side}-tables"], {"nargs": "+", "help": "its step tables (default: all)"}),
        ([f"--{side}-label"], {"help": "its name in the report", RULE: None}),
    ]
