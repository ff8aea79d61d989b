"""The commands that ask a model: the steps' questions, the name-validity questions, and the
drift check that asks stored questions again."""

from __future__ import annotations

import logging
from pathlib import Path

from hiremeornot.analysis import validity
from hiremeornot.asking.backends import load_backend, model_identity
from hiremeornot.asking.steps import run_step
from hiremeornot.errors import InputError
from hiremeornot.provenance import drift, manifest
from hiremeornot.tables_io import (
    STEP_TABLE,
    read_table,
    stamp_table,
    step_table_parts,
    write_table,
)
from hiremeornot.writing.drift import drift_markdown
from hiremeornot.writing.markdown import write_markdown

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
    summary = run_step(
        args.step,
        args.model,
        settings,
        args.shard,
        paths,
        outputs,
        args.store_dir,
        args.contrast,
    )
    record = manifest.job_record(
        args.model,
        args.step,
        args.shard,
        summary,
        started,
        manifest.now(),
        model_identity(settings["model"]),
    )
    for path in args.out:  # the run manifest reads each job's record from its tables
        stamp_table(path, record)
    manifest.write_json({**record, "tables": outputs}, args.record)
    log.info(summary.line(f"{args.model} {args.step} shard {args.shard}"))


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


def cmd_drift(args):
    """Ask a sample of a model's stored questions again, bypassing the store."""
    from hiremeornot.plan import load_with_arms  # the config's checks: only this command's

    config = load_with_arms(args.configfile)
    if args.model not in config["models"]:
        raise InputError(
            f"--model: unknown model {args.model!r}; "
            f"{args.configfile} has {sorted(config['models'])}"
        )
    model_settings = config["models"][args.model]
    state_dir = Path(args.out_md).with_suffix(".batches")  # the Batch API's journal, if used
    result = drift.check_drift(
        args.store_dir or config["store_dir"],
        args.model,
        model_settings,
        args.sample,
        args.seed,
        lambda: load_backend(model_settings["backend"], model_settings, state_dir=state_dir),
    )
    write_table(result.table, args.out_tsv)
    write_markdown(drift_markdown(result), args.out_md)
    found = drift.findings(result)
    log.info("%d of %d answers agree with the store", found["agree"], found["n"])


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
