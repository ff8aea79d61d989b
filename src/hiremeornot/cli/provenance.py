"""The commands that record and publish a run, and check it later: its manifest, the export,
the drift check that asks a sample of the stored questions again, and the check of a finished
run against its manifest and store."""

from __future__ import annotations

import logging
from pathlib import Path

from hiremeornot.asking.backends import load_backend
from hiremeornot.errors import InputError
from hiremeornot.provenance import drift, export, manifest, verify
from hiremeornot.tables_io import read_table, sha256_file, write_table
from hiremeornot.writing import provenance
from hiremeornot.writing.drift import drift_markdown
from hiremeornot.writing.markdown import write_markdown

log = logging.getLogger("hiremeornot")


def cmd_manifest(args):
    settings = args.settings
    built = manifest.build_manifest(
        settings,
        repo=args.repo,
        data_root=args.data_root,
        inputs=[*manifest.onet_files(args.onet_dir), *args.inputs],
        dataset=args.dataset,
        tables=args.tables,
        store_dir=args.store_dir,
    )
    built["contrast"] = {**args.contrast.as_dict(), "label": args.contrast.label}
    manifest.write_json(built, args.out)


def cmd_export(args):
    sides = args.contrast.sides
    instances, attributes = read_table(args.instances), read_table(args.attributes)
    files = export.export_tables(args.tables, instances, attributes, args.out_dir, sides)
    text = provenance.datasheet(
        manifest.read_json(args.manifest),
        files,
        sha256_file(args.manifest),
        args.contrast,
        export.extra_columns(files, sides),
    )
    write_markdown(text, Path(args.out_dir) / "README.md")
    log.info("%d rows in %d files", sum(f["rows"] for f in files), len(files))


def cmd_drift(args):
    """Ask a sample of a model's stored questions again, bypassing the store."""
    from hiremeornot.arms import load_with_arms  # the config's checks: only this command's

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
        size=args.sample,
        seed=args.seed,
        load=lambda: load_backend(model_settings["backend"], model_settings, state_dir=state_dir),
    )
    write_table(result.table, args.out_tsv)
    write_markdown(drift_markdown(result), args.out_md)
    found = drift.findings(result)
    log.info("%d of %d answers agree with the store", found["agree"], found["n"])


def cmd_verify(args):
    """Check a finished run against its manifest and its store; exit 1 listing what differs."""
    store_dir = args.store_dir
    if store_dir is None:
        store_dir = manifest.read_json(Path(args.results, "manifest.json"))["config"]["store_dir"]
    found = verify.verify_run(args.results, store_dir)
    for line in found.problems:
        log.error(line)
    if found.problems:
        raise InputError(
            f"{len(found.problems)} difference(s) between {args.results} and the record of the "
            "run (its manifest and the response store)"
        )
    log.info(
        "%d files match the manifest and %d answers the store %s",
        found.files,
        found.answers,
        store_dir,
    )
