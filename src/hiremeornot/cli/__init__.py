"""hiremeornot: audit language models for gender and race x gender stereotypes in hiring.

The audit itself runs with Snakemake (README.md); these commands are what a person runs beside
it, and the job commands its rules call, one per workflow step. Each job command takes file
paths and, where it needs them, a ``--settings`` JSON string holding
just the configuration that step depends on (so Snakemake re-runs a step only when its own
settings change) and the ``--contrast`` it audits. The commands live in modules by kind
(inputs, asking, tables, analysis, statistics, writing, simulation, provenance, comparing,
store), and a command's module is imported only when it runs: a job loads what its command
uses and no more (a gather job no scipy, statsmodels or matplotlib).
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import resource
import sys
import textwrap
import time

from hiremeornot.cli.commands import (
    ABOUT,
    COMMANDS,
    EXAMPLES,
    OPTIONAL,
    STORE_ABOUT,
    STORE_COMMANDS,
    USER_COMMANDS,
)
from hiremeornot.cli.options import argparse_kwargs, contrast_option
from hiremeornot.errors import InputError

log = logging.getLogger("hiremeornot")


def _parser() -> argparse.ArgumentParser:
    """The commands a person runs listed with what they do; the job commands named in one line
    after them (each has its own --help)."""
    jobs = [name for name in COMMANDS if name not in USER_COMMANDS]
    parser = argparse.ArgumentParser(
        prog="hiremeornot",
        description=__doc__.split("\n\n")[0],
        epilog=EXAMPLES
        + "\n"
        + textwrap.fill(
            "job commands (the workflow's rules call them): " + ", ".join(jobs),
            79,
            break_on_hyphens=False,
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", title="commands")
    for name in [*USER_COMMANDS, *jobs]:
        module, settings, contrast, options = COMMANDS[name]
        listed = {"help": ABOUT[name]} if name in USER_COMMANDS else {}
        command = sub.add_parser(name, description=ABOUT[name], **listed)
        needed = name not in OPTIONAL
        if settings:
            command.add_argument(
                "--settings", type=json.loads, required=needed, default={}, help="JSON settings"
            )
        if contrast:
            command.add_argument(
                "--contrast",
                type=contrast_option,
                required=needed,
                help="JSON {a: group, b: group, held: [...]}",
            )
        for flags, declared in options:
            command.add_argument(*flags, **argparse_kwargs(declared))
        command.set_defaults(module=module, function=f"cmd_{name.replace('-', '_')}")
    store = sub.add_parser(
        "store",
        help="check, compact or rebuild a response store",
        description="check, compact or rebuild a response store",
    )
    maintenance = store.add_subparsers(dest="store_command", required=True, metavar="ACTION")
    for name, options in STORE_COMMANDS.items():
        command = maintenance.add_parser(
            name, help=STORE_ABOUT[name], description=STORE_ABOUT[name]
        )
        for flags, kwargs in options:
            command.add_argument(*flags, **kwargs)
        command.set_defaults(module="store", function=f"cmd_store_{name}")
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    args = _parser().parse_args(argv)
    start = time.monotonic()
    from hiremeornot.asking.backends.base import BackendError

    try:
        command = getattr(importlib.import_module(f"hiremeornot.cli.{args.module}"), args.function)
        command(args)
    except (InputError, BackendError) as exc:
        print(f"hiremeornot: {exc}", file=sys.stderr)
        return 1
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    log.info(
        "%s done in %.1f s, peak memory %.0f MB", args.command, time.monotonic() - start, peak_mb
    )
    return 0
