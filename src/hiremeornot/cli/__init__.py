"""Command line: one sub-command per workflow step, so every rule is a one-line shell call.

Each command takes file paths and, where it needs them, a ``--settings`` JSON string holding
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
import time

from hiremeornot.errors import InputError
from hiremeornot.tables_io import STEPS

log = logging.getLogger("hiremeornot")

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


def _contrast(text: str):
    """The ``--contrast`` JSON ({a: group, b: group, held: [...]}) as a Contrast."""
    from hiremeornot.design.contrasts import Contrast

    return Contrast.from_dict(json.loads(text))


def _run_options(side: str) -> list:
    """The options naming one run of a comparison: its model and result folder."""
    return [
        ([f"--{side}-model"], ONE),
        ([f"--{side}-results"], {"default": "results", "help": "holds <model>/"}),
        ([f"--{side}-tables"], {"nargs": "+", "help": "its step tables (default: all)"}),
        ([f"--{side}-label"], {"help": "its name in the report"}),
    ]


# name: (module, takes --settings, takes --contrast, options). The store's commands are
# "store <name>".
COMMANDS = {
    "download-onet": ("inputs", True, False, [(["--out"], ONE)]),
    "download-names": ("inputs", True, False, [(["--out"], ONE)]),
    "prepare-model": ("inputs", False, False, [(["--model"], ONE), (["--gguf-file"], {})]),
    "attributes": (
        "inputs",
        True,
        False,
        [(["--onet-dir"], ONE), (["--soc-codes"], MANY), (["--out"], ONE)],
    ),
    "name-list": (
        "inputs",
        True,
        False,
        [(["--data-root"], ONE), (["--out"], ONE)],
    ),
    "dataset": (
        "inputs",
        True,
        True,
        [
            (["--occupations"], ONE),
            (["--names"], {**ONE, "help": "the name-list job's table"}),
            (["--perceived"], PERCEIVED),
            (["--out-pairs"], ONE),
            (["--out-capacity"], ONE),
            (["--out"], ONE),
        ],
    ),
    "step": (
        "asking",
        True,
        True,
        [
            (["--step"], {"choices": STEPS, "required": True}),
            (["--model"], ONE),
            (["--shard"], {"type": int, "required": True}),
            *DESIGN,
            (["--step1"], {"nargs": "+"}),
            (["--store-dir"], ONE),
            (["--out"], {**MANY, "help": "<model>/<step>/<wording>/shard-<i>.parquet each"}),
            (["--record"], ONE),
        ],
    ),
    "validate-names": (
        "asking",
        True,
        False,
        [(["--model"], ONE), (["--names"], ONE), (["--store-dir"], ONE), (["--out"], ONE)],
    ),
    "drift": (
        "provenance",
        False,
        False,
        [
            (["--configfile"], {"default": "config.yaml"}),
            (["--model"], ONE),
            (["--store-dir"], {"default": None, "help": "default: the config's store_dir"}),
            (["--sample"], {"type": int, "default": 50, "help": "questions to ask again"}),
            (["--seed"], {"type": int, "default": 0}),
            (["--out-md"], ONE),
            (["--out-tsv"], ONE),
        ],
    ),
    "gather": ("tables", False, False, [(["--inputs"], MANY), (["--out"], ONE)]),
    "granted": ("analysis", False, True, [*DESIGN, (["--step1"], MANY), (["--out"], ONE)]),
    "metrics": (
        "analysis",
        True,
        True,
        [
            (["--model"], ONE),
            (["--instances"], ONE),
            (["--step2"], MANY),
            (["--step3"], MANY),
            (["--out-outcomes"], ONE),
            (["--out-by-order"], ONE),
            (["--out"], ONE),
        ],
    ),
    "statistics": (
        "statistics",
        True,
        True,
        [
            (["--outcomes"], ONE),
            (["--step3"], MANY),
            (["--out-intervals"], ONE),
            (["--out-tests"], ONE),
            (["--out-position"], ONE),
        ],
    ),
    "pooled": (
        "statistics",
        True,
        True,
        [(["--instances"], ONE), (["--step2"], MANY), (["--step3"], MANY), (["--out"], ONE)],
    ),
    "answer-space": ("analysis", False, False, [(["--tables"], MANY), (["--out"], ONE)]),
    "findings": (
        "statistics",
        True,
        True,
        [
            (["--metrics"], ONE),
            (["--tests"], ONE),
            (["--position"], ONE),
            (["--answer-space"], ONE),
            (["--out"], ONE),
        ],
    ),
    "selections": (
        "statistics",
        False,
        True,
        [
            (["--names"], ONE),
            (["--instances"], ONE),
            (["--step2"], MANY),
            (["--step3"], MANY),
            (["--out"], ONE),
        ],
    ),
    "figures": (
        "writing",
        True,
        True,
        [
            (["--metrics"], ONE),
            (["--findings"], {**KEYED, "required": True, "help": "MODEL=its findings.tsv"}),
            (["--fig3"], ONE),
            (["--fig4"], ONE),
            (["--fig5"], ONE),
        ],
    ),
    "attribute-gaps": (
        "writing",
        True,
        True,
        [
            (["--model"], ONE),
            (["--granted"], ONE),
            (["--findings"], ONE),
            (["--out"], ONE),
            (["--out-png"], ONE),
        ],
    ),
    "difference": (
        "writing",
        True,
        True,
        [
            (["--model"], ONE),
            (["--metrics"], ONE),
            (["--intervals"], ONE),
            (["--tests"], ONE),
            (["--findings"], ONE),
            (["--out-tsv"], ONE),
            (["--out-md"], ONE),
            (["--out-png"], ONE),
        ],
    ),
    "wordings": (
        "writing",
        True,
        True,
        [
            (["--model"], ONE),
            (["--outcomes"], ONE),
            (["--intervals"], ONE),
            (["--tests"], ONE),
            (["--granted"], ONE),
            (["--findings"], ONE),
            (["--out-metrics"], ONE),
            (["--out-robustness"], ONE),
            (["--out-flips"], ONE),
            (["--out-png"], ONE),
        ],
    ),
    "summary": (
        "writing",
        True,
        True,
        [
            (["--metrics"], {**KEYED, "required": True, "help": "MODEL=its metrics.tsv"}),
            (["--tests"], {**KEYED, "required": True}),
            (["--findings"], {**KEYED, "required": True}),
            (["--answer-space"], {**KEYED, "required": True}),
            (["--pooled"], {**KEYED, "required": True}),
            (["--manifest"], {"help": "results/manifest.json: adds the Run manifest section"}),
            (["--robustness"], {**KEYED, "help": "MODEL=its wordings/robustness.tsv"}),
            (["--flips"], {**KEYED, "help": "MODEL=its wordings/flips.tsv"}),
            (["--perceived"], PERCEIVED),
            (["--truth"], {**KEYED, "help": "MODEL=its truth.tsv, for simulated models"}),
            (["--interventions"], {**KEYED, "help": "ARM=results/interventions/<arm>.tsv"}),
            (["--intervention-flips"], {**KEYED, "help": "ARM=its _flips.tsv"}),
            (["--out"], ONE),
        ],
    ),
    "name-validity": (
        "writing",
        True,
        False,
        [
            (["--tables"], {**KEYED, "required": True, "help": "MODEL=its names table"}),
            (["--out"], ONE),
        ],
    ),
    "impact": (
        "writing",
        True,
        False,
        [
            (["--model"], ONE),
            (["--selections"], MANY),
            (["--out-tsv"], ONE),
            (["--out-md"], ONE),
            (["--out-png"], ONE),
        ],
    ),
    "ll144": (
        "writing",
        True,
        False,
        [
            (["--model"], ONE),
            (["--selections"], MANY),
            (["--names"], ONE),
            (["--manifest"], ONE),
            (["--out-md"], ONE),
            (["--out-csv"], ONE),
        ],
    ),
    "first-page": (
        "pages",
        True,
        False,
        [
            (["--findings"], {**KEYED, "required": True, "help": "<contrast><model>=its table"}),
            (["--forest"], {**KEYED, "required": True, "help": "<contrast><model>=its figure"}),
            (["--ll144"], {**KEYED, "help": "MODEL=its Local Law 144 CSV, where run"}),
            (["--interventions"], {**KEYED, "help": "<contrast><arm>=its figure, where run"}),
            (["--links"], {**MANY, "help": "every published file, under results/"}),
            (["--out"], ONE),
            (["--out-rst"], {"help": "the headlines for snakemake --report's first screen"}),
        ],
    ),
    "overview": (
        "writing",
        True,
        False,
        [
            (["--metrics"], {**KEYED, "required": True, "help": "<contrast><model>=its table"}),
            (["--tests"], {**KEYED, "required": True}),
            (["--findings"], {**KEYED, "required": True}),
            (["--impact"], {**KEYED, "help": "MODEL=its impact ratios, where run"}),
            (["--out"], ONE),
        ],
    ),
    "estimate": (
        "writing",
        True,
        True,
        [
            (["--instances"], ONE),
            (["--capacity"], ONE),
            (["--attributes"], ONE),
            (["--store-dir"], ONE),
            (["--out-tsv"], ONE),
            (["--out-md"], ONE),
        ],
    ),
    "run-estimate": (
        "writing",
        False,
        False,
        [
            (["--tsv"], {**KEYED, "required": True, "help": "CONTRAST LABEL=its estimate.tsv"}),
            (["--md"], {**KEYED, "required": True, "help": "CONTRAST LABEL=its estimate.md"}),
            (["--out-tsv"], ONE),
            (["--out-md"], ONE),
        ],
    ),
    "truth": ("simulation", True, True, [*DESIGN, (["--out"], ONE)]),
    "calibrate": (
        "simulation",
        True,
        True,
        [
            (["--model"], ONE),
            *DESIGN,
            (["--audits"], {"type": int, "help": "default: report.calibration_audits"}),
            (["--jobs"], {"type": int, "default": 1, "help": "processes running audits"}),
            (["--out-tsv"], ONE),
            (["--out-verdicts"], ONE),
            (["--out-md"], ONE),
            (["--out-png"], ONE),
        ],
    ),
    "manifest": (
        "provenance",
        True,
        True,
        [
            (["--repo"], ONE),
            (["--data-root"], ONE),
            (["--onet-dir"], ONE),
            (["--inputs"], MANY),
            (["--dataset"], MANY),
            (["--tables"], MANY),
            (["--store-dir"], ONE),
            (["--out"], ONE),
        ],
    ),
    "export": (
        "provenance",
        False,
        True,
        [
            (["--manifest"], ONE),
            (["--tables"], MANY),
            *DESIGN,
            (["--out-dir"], ONE),
        ],
    ),
    "compare": (
        "comparing",
        True,
        True,
        [
            *_run_options("a"),
            *_run_options("b"),
            (
                ["--configfile"],
                {"default": "config.yaml", "help": "report settings w/o --settings"},
            ),
            (["--out-md"], ONE),
            (["--out-tsv"], ONE),
            (["--out-png"], ONE),
            (["--out-changed"], {"default": None, "help": "every question answered otherwise"}),
        ],
    ),
    "intervention": (
        "comparing",
        True,
        True,
        [
            (["--model"], {**ONE, "help": "the baseline's model"}),
            (["--arm"], {**ONE, "help": "the intervention's id"}),
            (["--base-results"], {**ONE, "help": "results/<contrast><model>"}),
            (["--base-tables"], MANY),
            (["--arm-results"], {**ONE, "help": "results/<contrast><model>+<arm>"}),
            (["--arm-tables"], MANY),
            (["--base-selections"], {"help": "selections.parquet (contrasts of names)"}),
            (["--arm-selections"], {}),
            (["--out-md"], ONE),
            (["--out-tsv"], ONE),
            (["--out-rates"], ONE),
            (["--out-flips"], ONE),
            (["--out-changed"], ONE),
            (["--out-png"], ONE),
        ],
    ),
}
STORE_COMMANDS = {
    "check": [(["--store-dir"], ONE), (["--model"], {})],
    "compact": [
        (["--store-dir"], ONE),
        (["--model"], ONE),
        (["--min-age-s"], {"type": float, "default": 600.0, "help": "skip younger segments"}),
    ],
    "rebuild": [
        (["--store-dir"], ONE),
        (["--model"], ONE),
        (["--results"], ONE),
        (["--configfile"], ONE),
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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hiremeornot", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (module, settings, contrast, options) in COMMANDS.items():
        command = sub.add_parser(name)
        needed = name not in OPTIONAL
        if settings:
            command.add_argument(
                "--settings", type=json.loads, required=needed, default={}, help="JSON settings"
            )
        if contrast:
            command.add_argument(
                "--contrast",
                type=_contrast,
                required=needed,
                help="JSON {a: group, b: group, held: [...]}",
            )
        for flags, kwargs in options:
            command.add_argument(*flags, **kwargs)
        command.set_defaults(module=module, function=f"cmd_{name.replace('-', '_')}")
    store = sub.add_parser("store", help="check, compact or rebuild a response store")
    maintenance = store.add_subparsers(dest="store_command", required=True)
    for name, options in STORE_COMMANDS.items():
        command = maintenance.add_parser(name)
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
