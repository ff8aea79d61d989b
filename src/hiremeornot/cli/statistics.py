"""The commands that infer from the answers: intervals and tests, the pooled model, each
group's selections for the impact ratios, and the findings (verdicts and design facts) the
words phrase. No figures or prose."""

from __future__ import annotations

from hiremeornot.analysis import findings, impact, pooled, stats
from hiremeornot.cli.analysis import answered_steps
from hiremeornot.inputs import names
from hiremeornot.tables_io import read_table, read_tables, write_table


def cmd_statistics(args):
    settings = args.settings
    sides = args.contrast.sides
    outcomes = read_table(args.outcomes)
    intervals, tests = stats.occupation_statistics(
        outcomes, settings["difference"], settings, sides
    )
    write_table(intervals, args.out_intervals)
    write_table(tests, args.out_tests)
    step3 = read_tables(args.step3)
    write_table(stats.position_bias(step3, sides), args.out_position)


def cmd_findings(args):
    settings = args.settings
    table = findings.model_findings(
        read_table(args.metrics),
        read_table(args.tests),
        read_table(args.position),
        read_table(args.answer_space),
        read_table(args.non_answers),
        model=settings["model"],
        settings=settings["report"],
        contrast=args.contrast,
    )
    write_table(table, args.out)


def cmd_pooled(args):
    settings = args.settings
    table = pooled.pooled_effects(
        *answered_steps(args),
        read_table(args.instances),
        args.contrast.sides,
        settings,
    )
    write_table(table, args.out)


def cmd_selections(args):
    listed = read_table(args.names)
    table = impact.contrast_selections(
        *answered_steps(args),
        read_table(args.instances),
        dict(zip(listed["name"], names.group_labels(listed), strict=True)),
        args.contrast.sides,
    )
    write_table(table, args.out)
