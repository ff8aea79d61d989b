"""The commands that read the inputs and build the design: downloads, the O*NET attributes,
the embedded model's conversion, the dataset of name pairs and instances."""

from __future__ import annotations

import logging

from hiremeornot.asking.backends import gguf_cache
from hiremeornot.asking.backends.location import locate_model
from hiremeornot.design.contrasts import (
    contrast_pairs,
    control_pairs,
    list_capacity,
)
from hiremeornot.design.dataset import build_instances
from hiremeornot.inputs import download, names, occupations, onet
from hiremeornot.provenance import manifest
from hiremeornot.tables_io import read_table, write_table

log = logging.getLogger("hiremeornot")


def cmd_download_onet(args):
    settings = args.settings
    download.download_onet(settings["url"], settings["release"], args.out, settings["sha256"])


def cmd_download_names(args):
    settings = args.settings
    download.download_names(settings["url"], settings["files"], args.out)


def cmd_download_workforce(args):
    download.fetch(args.settings["url"], args.out)


def cmd_prepare_model(args):
    """Convert a GGUF model (e.g. the embedded one) once, so its jobs load it in a second."""
    folder, gguf_file = locate_model(args.model, args.gguf_file)
    if gguf_file:
        log.info("%s: converted weights in %s", args.model, gguf_cache.converted(folder, gguf_file))


def cmd_attributes(args):
    settings = args.settings
    table = onet.extract_attributes(
        args.onet_dir, args.soc_codes, settings["per_type"], suppressed=settings["suppressed"]
    )
    write_table(table, args.out)


def cmd_name_list(args):
    """The name list read once, each name with its groups and source line; no name may read as
    an answer word (Q3 offers the two names beside both and neither)."""
    settings = args.settings
    listed = names.read_name_list(args.data_root, settings["source"], settings["list"])
    names.check_answer_words(listed, settings["answers"])
    write_table(listed, args.out)


def cmd_dataset(args):
    settings = args.settings
    chosen = occupations.select_occupations(args.occupations, settings["select"])
    if args.contrast.is_control:
        pairs = control_pairs(args.contrast)
        capacity = {
            "list": None,
            "names": {label: 1 for label in args.contrast.sides.labels},
            "pairs": 1,
            "misread": 0,
        }
    else:
        listed = read_table(args.names)
        misread = listed["name"].isin(names.misread(map(read_table, args.perceived or [])))
        listed = listed[~misread]
        pairs = contrast_pairs(listed, args.contrast, settings["pairs"], settings["seed"])
        capacity = {
            "list": settings["list"],
            **list_capacity(listed, args.contrast),
            "misread": int(misread.sum()),
        }
    write_table(pairs, args.out_pairs)
    manifest.write_json(capacity, args.out_capacity)
    write_table(build_instances(chosen, pairs, settings["orders"], args.contrast.sides), args.out)
