"""The commands that record and publish a run: its manifest and the export."""

from __future__ import annotations

import logging
from pathlib import Path

from hiremeornot.provenance import export, manifest
from hiremeornot.tables_io import read_table
from hiremeornot.writing import provenance
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
        manifest.sha256_file(args.manifest),
        args.contrast,
        export.extra_columns(files, sides),
    )
    write_markdown(text, Path(args.out_dir) / "README.md")
    log.info("%d rows in %d files", sum(f["rows"] for f in files), len(files))
