"""The commands of the simulated respondent: its planted truth and the known-answer calibration."""

from __future__ import annotations

import logging

import pandas as pd

from hiremeornot.analysis import calibration, truth
from hiremeornot.asking.respondent import Respondent
from hiremeornot.inputs.workforce import share_map
from hiremeornot.tables_io import (
    read_table,
    write_table,
)
from hiremeornot.writing import figures
from hiremeornot.writing.calibration import calibration_markdown, figure_caveats
from hiremeornot.writing.markdown import write_markdown

log = logging.getLogger("hiremeornot")


def _design(args) -> truth.Design:
    """The design of a truth or calibrate command: its instances, attributes, contrast and
    wordings."""
    return truth.Design(
        read_table(args.instances),
        read_table(args.attributes),
        args.contrast.sides,
        args.contrast.groups,
        args.settings["wordings"],
    )


def _shares(args, design: truth.Design) -> dict[str, float] | None:
    """The design's occupations' shares of women where the job is given the alignment's share
    table and crosswalk; None where it is not."""
    if not args.shares:
        return None
    titles = list(dict.fromkeys(design.instances["occupation"]))
    return share_map(args.crosswalk[0], args.shares[0], args.settings["percent_of"], titles)


def cmd_truth(args):
    settings = args.settings
    design = _design(args)
    respondent = Respondent(settings["respondent"], settings.get("intervention"))
    table = truth.planted_truth(respondent, design)
    shares = _shares(args, design)
    if shares:
        table = pd.concat([table, truth.alignment_truth(table, shares, design.sides)])
    write_table(table, args.out)


def cmd_calibrate(args):
    """R simulated audits of the design; the coverage and verdict tables, in words, a figure.
    An intervention arm's model is calibrated as its baseline, with the paired changes from the
    baseline to the arm (the planted effect of the instruction) checked too."""
    settings = args.settings
    design = _design(args)
    respondent = Respondent(settings["respondent"])
    arm = settings.get("intervention")
    report_settings = settings["report"]
    audits = args.audits or report_settings["calibration_audits"]
    checks, verdicts, seconds = calibration.calibrate(
        respondent,
        design,
        report_settings,
        audits=audits,
        seed=report_settings["seed"],
        other=None if arm is None else Respondent(settings["respondent"], arm),
        with_pooled=report_settings["calibration_pooled"],
        jobs=args.jobs,
        shares=_shares(args, design),
    )
    coverage = calibration.coverage(checks, report_settings["confidence"])
    rates = calibration.verdict_rates(verdicts, report_settings["equivalence_margin"])
    write_table(coverage, args.out_tsv)
    write_table(rates, args.out_verdicts)
    instances = design.instances
    described = {
        "audits": audits,
        "occupations": instances["occupation"].nunique(),
        "names": " + ".join(str(instances[s].nunique()) for s in design.sides.labels),
        "orders": ", ".join(dict.fromkeys(instances["order"])),
        "wordings": ", ".join(design.wordings),
        "intervention": arm or "",
    }
    position = calibration.position_residue(respondent, design)
    text = calibration_markdown(
        args.model, described, coverage, rates, position, report_settings, seconds
    )
    write_markdown(text, args.out_md)
    caveats = figure_caveats(described, coverage)
    figures.calibration(checks, coverage, report_settings["confidence"], args.out_png, caveats)
    log.info(
        "%s: %d audits in %.0f s (%.0f s per hundred)",
        args.model,
        audits,
        seconds,
        100 * seconds / max(audits, 1),
    )
