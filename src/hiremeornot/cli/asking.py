"""The commands that ask a model: the steps' questions and the name-validity questions (the
drift check, which asks stored questions again, is a provenance command)."""

from __future__ import annotations

import logging

from hiremeornot.analysis import validity
from hiremeornot.asking.backends import model_identity
from hiremeornot.asking.steps import run_step
from hiremeornot.errors import InputError
from hiremeornot.provenance import manifest
from hiremeornot.tables_io import (
    STEP_TABLE,
    read_table,
    stamp_table,
    step_table_parts,
    write_table,
)

log = logging.getLogger("hiremeornot")


def cmd_step(args):
    settings = args.settings
    paths = {"instances": args.instances, "attributes": args.attributes}
    if args.step != "step1":
        if not args.step1:
            raise InputError(f"{args.step} needs --step1 (the model's Step-1 tables)")
        paths["step1"] = args.step1
    outputs = _tables_by_wording(args.out, args.step)
    started = manifest.now()
    summary, classified = run_step(
        args.step,
        args.model,
        settings,
        args.shard,
        paths,
        outputs,
        args.store_dir,
        args.contrast,
        progress=args.progress,
    )
    record = manifest.job_record(
        args.model,
        args.step,
        args.shard,
        summary,
        started=started,
        finished=manifest.now(),
        identity=model_identity(settings["model"]),
    )
    if classified is not None:
        record["classifier"] = manifest.classifier_record(
            classified, model_identity(settings["model"]["free_classifier"])
        )
    for path in args.out:  # the run manifest reads each job's record from its tables
        stamp_table(path, record)
    manifest.write_json({**record, "tables": outputs}, args.record)
    log.info(summary.line(f"{args.model} {args.step} shard {args.shard}"))
    if classified is not None:
        log.info(classified.line(f"{args.model} {args.step} shard {args.shard}, its classifier"))


def cmd_validate_names(args):
    settings = args.settings
    listed = read_table(args.names)
    table, summary = validity.validate_names(
        args.model,
        settings["model"],
        listed,
        settings["validity"],
        settings["races"],
        args.store_dir,
    )
    write_table(table, args.out)
    log.info(summary.line(f"{args.model} names"))


def _tables_by_wording(paths: list[str], step: str) -> dict[str, str]:
    """Each wording's table among ``paths``, the wording read from the path's layout
    (``<model>/<step>/<wording>/shard-<i>.parquet``)."""
    tables: dict[str, str] = {}
    for path in paths:
        try:
            _, its_step, wording, _ = step_table_parts(path)
        except InputError as error:
            raise InputError(f"--out {error}") from None
        if its_step != step:
            raise InputError(f"--out {path}: not a {step} table ({STEP_TABLE})")
        if tables.setdefault(wording, path) != path:
            raise InputError(f"--out: two tables of the wording {wording!r}")
    return tables
