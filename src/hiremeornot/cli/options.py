"""The building blocks of the CLI's option tables (cli/commands.py, cli/jobs.py): required
paths, keyed paths, the contrast and the two runs of a comparison."""

from __future__ import annotations

import argparse
import json

ONE = {"required": True}
MANY = {"nargs": "+", "required": True}
PERCEIVED = {"nargs": "+", "help": "names.drop_misperceived: results/names/*.tsv"}
DESIGN = [(["--instances"], ONE), (["--attributes"], ONE)]


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


KEYED = {"nargs": "+", "action": KeyedPaths, "metavar": "KEY=PATH"}


def contrast_option(text: str):
    """The ``--contrast`` JSON ({a: group, b: group, held: [...]}) as a Contrast."""
    from hiremeornot.design.contrasts import Contrast

    return Contrast.from_dict(json.loads(text))


def run_options(side: str) -> list:
    """The options naming one run of a comparison: its model and result folder."""
    return [
        (
            [f"--{side}-model"],
            {**ONE, "help": f"run {side.upper()}'s model, as the config names it"},
        ),
        ([f"--{side}-results"], {"default": "results", "help": "holds <model>/"}),
        ([f"--{side}-tables"], {"nargs": "+", "help": "its step tables (default: all)"}),
        ([f"--{side}-label"], {"help": "its name in the report"}),
    ]
