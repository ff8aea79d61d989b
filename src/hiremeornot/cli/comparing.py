"""The commands that compare two runs: two models, two result folders of one model, or an
intervention arm and its baseline."""

from __future__ import annotations

import logging
from pathlib import Path

from hiremeornot import arms
from hiremeornot.analysis import compare, interventions
from hiremeornot.analysis.findings import read_findings
from hiremeornot.config import load_config
from hiremeornot.design.contrasts import (
    GENDER_CONTRAST,
    Contrast,
)
from hiremeornot.errors import InputError
from hiremeornot.provenance import manifest
from hiremeornot.tables_io import read_table, write_table
from hiremeornot.writing import change_figures, headlines
from hiremeornot.writing.compare import comparison_markdown, figure_caveats
from hiremeornot.writing.interventions import intervention_markdown
from hiremeornot.writing.markdown import write_markdown

log = logging.getLogger("hiremeornot")


def _recorded_contrast(given: Contrast | None, results: Path) -> Contrast:
    """``--contrast``; without it, the contrast the manifest of the result folder records (a
    folder under results/contrasts/ audits another), else female vs male."""
    path = results / "manifest.json"
    if given is not None:
        return given
    recorded = manifest.read_json(path).get("contrast") if path.is_file() else None
    return Contrast.from_dict(recorded) if recorded else GENDER_CONTRAST


def _run_label(model: str, results: str, other_model: str) -> str:
    """A run's name in a comparison: its model, and its folder where both runs are one model's."""
    return model if model != other_model else f"{model} ({results})"


def cmd_compare(args):
    """Compare two runs: two models of one config, or two result folders of one model."""
    settings = args.settings
    report_settings = settings or load_config(args.configfile)["report"]
    a_label = args.a_label or _run_label(args.a_model, args.a_results, args.b_model)
    b_label = args.b_label or _run_label(args.b_model, args.b_results, args.a_model)
    a_run = (Path(args.a_results) / args.a_model).resolve()
    if a_label == b_label or a_run == (Path(args.b_results) / args.b_model).resolve():
        raise InputError(
            f"both runs are {a_label!r} ({a_run}): compare two models or two result folders"
        )
    sides = _recorded_contrast(args.contrast, Path(args.a_results)).sides
    a = compare.load_run(Path(args.a_results) / args.a_model, a_label, sides, args.a_tables)
    b = compare.load_run(Path(args.b_results) / args.b_model, b_label, sides, args.b_tables)
    result = compare.compare(a, b, report_settings)
    write_table(result.changes, args.out_tsv)
    if args.out_changed:
        write_table(compare.changed_questions(result), args.out_changed)
    caveats = figure_caveats(result)
    change_figures.paired_changes(result.changes, a_label, b_label, args.out_png, caveats)
    write_markdown(comparison_markdown(result), args.out_md)
    total = result.flips[result.flips["step"] == "all"].iloc[0]
    log.info("%d of %d identical questions flipped", total["flipped"], total["identical"])


def cmd_intervention(args):
    """One intervention arm against the baseline: the changes, the flips, in words, a figure."""
    settings = args.settings
    instruction = settings["instruction"]
    sides = args.contrast.sides
    label = arms.arm_model(args.model, args.arm)
    folders = {"a": Path(args.base_results), "b": Path(args.arm_results)}
    baseline = compare.load_run(folders["a"], args.model, sides, args.base_tables)
    arm = compare.load_run(
        folders["b"], label, sides, args.arm_tables, instruction.get("preamble", "")
    )
    tests = {run: read_table(folder / "tests.tsv") for run, folder in folders.items()}
    selections = None
    if args.base_selections:
        selections = (read_table(args.base_selections), read_table(args.arm_selections))
    effect = interventions.intervention_effect(baseline, arm, tests, settings["report"], selections)
    write_table(effect.changes, args.out_tsv)
    write_table(effect.rates, args.out_rates)
    write_table(effect.comparison.flips, args.out_flips)
    write_table(compare.changed_questions(effect.comparison), args.out_changed)
    intervals = {
        name: read_table(folder / "intervals.tsv")
        for name, folder in (("baseline", folders["a"]), (args.arm, folders["b"]))
    }
    caveats = headlines.short_caveats(
        read_findings(folders["b"] / "findings.tsv"),
        args.contrast,
        {**settings["report"], "wordings": settings["wordings"]},
    )
    change_figures.intervention(
        intervals, effect.changes, f"{label} against the baseline", args.out_png, caveats
    )
    text = intervention_markdown(label, instruction, effect, len(settings["wordings"]))
    write_markdown(text, args.out_md)
    total = effect.comparison.flips.set_index("step").loc["all"]
    log.info(
        "%s: %d of %d identical questions flipped", label, total["flipped"], total["identical"]
    )
