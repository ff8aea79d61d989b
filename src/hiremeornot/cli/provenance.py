"""The commands that record and publish a run: its manifest and the export."""

from __future__ import annotations

import logging

from hiremeornot.provenance import export, manifest

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
    files = export.export_run(
        args.manifest,
        args.tables,
        args.instances,
        args.attributes,
        args.out_dir,
        args.contrast,
    )
    log.info("%d rows in %d files", sum(f["rows"] for f in files), len(files))
