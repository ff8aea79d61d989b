"""The command that writes the run's first page (results/index.html) from the findings."""

from __future__ import annotations

from hiremeornot.analysis.findings import read_findings
from hiremeornot.design.contrasts import Contrast
from hiremeornot.errors import InputError
from hiremeornot.tables_io import read_table
from hiremeornot.writing import first_page
from hiremeornot.writing.markdown import write_markdown


def cmd_first_page(args):
    """One cell per contrast and model (``settings["cells"]``, each keyed by the cell's results
    prefix and model, with its alignment where measured), then the Local Law 144 tables, the
    interventions and the links."""
    settings, alignment = args.settings, args.alignment or {}
    cells = []
    for entry in settings["cells"]:
        key = entry["prefix"] + entry["model"]
        if key not in args.findings or key not in args.forest:
            raise InputError(f"--findings and --forest: no table or figure of {key!r}")
        cells.append(
            first_page.cell(
                read_findings(args.findings[key]),
                model=entry["model"],
                contrast=Contrast.from_dict(entry["contrast"]),
                prefix=entry["prefix"],
                settings=settings["report"],
                forest=args.forest[key],
                alignment=read_table(alignment[key]) if key in alignment else None,
            )
        )
    page = first_page.first_page(
        cells,
        ll144={model: read_table(path) for model, path in (args.ll144 or {}).items()},
        interventions=args.interventions or {},
        links=args.links,
        settings=settings["report"],
    )
    write_markdown(page, args.out)
    if args.out_rst:
        write_markdown(first_page.report_front(cells), args.out_rst)
