"""The commands that shape the answers into tables: the Step-1 join, the metrics, the answer
space and the non-answers. No statistics of the names (see cli.statistics), figures or prose."""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from hiremeornot.analysis import answer_space, metrics, non_answers
from hiremeornot.asking.steps import write_granted
from hiremeornot.errors import InputError
from hiremeornot.tables_io import (
    read_table,
    read_tables,
    step_table_parts,
    write_table,
)

log = logging.getLogger("hiremeornot")


def cmd_granted(args):
    write_granted(
        instances=args.instances,
        attributes=args.attributes,
        step1=args.step1,
        out=args.out,
        sides=args.contrast.sides,
    )


def answered_steps(args) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Steps 2 and 3 (``args.step2``, ``args.step3``) of the instances whose Q1-Q3 were all
    answered (non_answers.answered_instances: every statistic of them is on these)."""
    return non_answers.answered_instances(read_tables(args.step2), read_tables(args.step3))


def cmd_metrics(args):
    settings = args.settings
    step2, step3 = answered_steps(args)
    if step3.empty:
        raise InputError(
            f"{args.model}: no instance had Q1, Q2 and Q3 all answered, so Confirmation, "
            f"Consistency and the differences cannot be computed; how often each question went "
            f"unanswered, and for whom, is in {Path(args.out).parent / 'non_answers.tsv'} "
            "(add --keep-going to have it written despite this stop); read a sample of the "
            "replies (the step tables' reply and rule), raise free_max_tokens where many are "
            "unparsed, or ask these steps constrained"
        )
    sides = args.contrast.sides
    outcomes = metrics.instance_outcomes(step2, step3, read_table(args.instances), sides)
    write_table(outcomes, args.out_outcomes)
    table = metrics.occupation_metrics(outcomes, settings["difference"], sides)
    table.insert(0, "model", args.model)
    write_table(table, args.out)
    by_order = metrics.difference_by_order(outcomes, settings["difference"], sides)
    write_table(by_order, args.out_by_order)


def cmd_answer_space(args):
    tables = [(step_table_parts(path)[1], read_table(path)) for path in args.tables]
    write_table(answer_space.mass_distribution(tables), args.out)


def cmd_non_answers(args):
    table = non_answers.non_answer_table(
        read_tables(args.step1),
        read_tables(args.step2),
        read_tables(args.step3),
        args.contrast.sides,
        args.settings["confidence"],
    )
    write_table(table, args.out)
