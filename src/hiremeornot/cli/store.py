"""The maintenance commands of a response store: check, compact, rebuild."""

from __future__ import annotations

import logging
from pathlib import Path

from hiremeornot.arms import load_with_arms
from hiremeornot.asking import store_maintenance
from hiremeornot.errors import InputError

log = logging.getLogger("hiremeornot")


def cmd_store_check(args):
    problems = store_maintenance.check(args.store_dir, args.model)
    for line in problems:
        log.error(line)
    if problems:
        bad = sorted({line.split(": ", 1)[0] for line in problems})
        raise InputError(f"{len(bad)} bad store segment(s): {', '.join(bad)}")
    log.info("every segment is sound")


def cmd_store_compact(args):
    store_maintenance.compact(Path(args.store_dir) / args.model, args.min_age_s)


def cmd_store_rebuild(args):
    config = load_with_arms(args.configfile)
    store_maintenance.rebuild(
        args.store_dir,
        args.model,
        results=args.results,
        config=config,
        unrecorded=args.unrecorded,
    )
