"""The command that joins the tables of several jobs into one: gather (it computes nothing,
and loads no more than the tables need)."""

from __future__ import annotations

from hiremeornot.tables_io import read_tables, write_table


def cmd_gather(args):
    write_table(read_tables(args.inputs), args.out)
