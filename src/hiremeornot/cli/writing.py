"""The commands that write what a reader reads: figures, difference tables, the summary, the
name-validity, impact and overview reports, and the estimate."""

from __future__ import annotations

import logging
from pathlib import Path

from hiremeornot import (
    estimate,
    figures,
    impact,
    manifest,
    names,
    overview,
    plan,
    power,
    report,
    stats,
    validity,
    wordings,
)
from hiremeornot.contrasts import (
    Contrast,
)
from hiremeornot.dataset import instance_order
from hiremeornot.errors import InputError
from hiremeornot.tables_io import (
    read_table,
    read_tables,
    write_table,
)

log = logging.getLogger("hiremeornot")


def cmd_figures(args):
    table = read_table(args.metrics)
    label = "" if args.contrast.is_paper else f"contrast: {args.contrast.label}"
    figures.metric_distribution(table, "confirmation", args.fig3, label)
    figures.metric_distribution(table, "consistency", args.fig4, label)
    figures.confirmation_vs_consistency(table, args.fig5, label)


def cmd_attribute_gaps(args):
    settings = args.settings
    gaps = stats.attribute_gaps(
        read_table(args.granted),
        settings["bootstrap_resamples"],
        settings["confidence"],
        settings["seed"],
        args.contrast.sides,
    )
    write_table(gaps, args.out)
    figures.attribute_gaps(gaps, args.model, args.out_png, args.contrast.sides)


def cmd_difference(args):
    settings = args.settings
    model_metrics, tests = read_table(args.metrics), read_table(args.tests)
    table = report.annotated_differences(
        model_metrics, read_table(args.intervals), tests, settings["difference_threshold"]
    )
    contrast = args.contrast
    position = read_table(args.position)
    caveats = report.design_caveats(model_metrics, tests, position, settings, contrast)
    report.write_difference_table(
        table, args.model, settings, caveats, args.out_tsv, args.out_md, contrast
    )
    figures.difference_bars(
        table,
        args.model,
        settings["difference_threshold"],
        caveats[0],
        args.out_png,
        args.contrast.sides,
    )


def cmd_wordings(args):
    settings = args.settings
    sides = args.contrast.sides
    outcomes = read_table(args.outcomes)
    per_wording = wordings.wording_metrics(outcomes, settings["difference"], settings, sides)
    table = wordings.robustness(
        per_wording, outcomes, read_table(args.intervals), read_table(args.tests), sides
    )
    write_table(per_wording, args.out_metrics)
    write_table(table, args.out_robustness)
    write_table(wordings.pair_flips(outcomes, read_table(args.granted), sides), args.out_flips)
    figures.wording_differences(per_wording, table, args.model, args.out_png, sides)


def cmd_summary(args):
    settings = args.settings
    tables = {
        model: {
            "metrics": read_table(metrics_path),
            "tests": read_table(tests_path),
            "position": read_table(position_path),
        }
        for model, metrics_path, tests_path, position_path in zip(
            settings["models"], args.metrics, args.tests, args.position, strict=True
        )
    }
    for model, path, flips in zip(
        settings["models"], args.robustness or [], args.flips or [], strict=False
    ):
        tables[model]["robustness"] = read_table(path)
        tables[model]["flips"] = read_table(flips)
    for model, space, model_fit in zip(
        settings["models"], args.answer_space, args.pooled, strict=True
    ):
        tables[model]["answer_space"] = read_table(space)
        tables[model]["pooled"] = read_table(model_fit)
    for model, path in zip(
        plan.simulated_models(settings["models"]), args.truth or [], strict=True
    ):
        tables[model]["truth"] = read_table(path)
    text = report.summary(
        settings["models"],
        tables,
        settings["report"],
        args.contrast,
        names.misread(map(read_table, args.perceived or [])),
    )
    if args.manifest:
        text += "\n" + manifest.markdown_section(manifest.read_json(args.manifest))
    report.write_markdown(text, args.out)


def cmd_name_validity(args):
    settings = args.settings
    tables = {
        model: read_table(path) for model, path in zip(settings["models"], args.tables, strict=True)
    }
    text = validity.validity_markdown(tables, settings["drop_misperceived"])
    report.write_markdown(text, args.out)


def cmd_impact(args):
    """Impact ratios over every contrast's answers; a question two contrasts share counts once."""
    settings = args.settings
    selections = read_tables(args.selections).drop_duplicates(
        ["wording", "instance_id", "question", "name"]
    )
    table = impact.impact_ratios(
        selections,
        settings["bootstrap_resamples"],
        settings["seed"],
        settings["impact_threshold"],
        settings["confidence"],
    )
    write_table(table, args.out_tsv)
    orders = instance_order(selections["instance_id"]).nunique()
    report.write_markdown(impact.impact_markdown(table, args.model, settings, orders), args.out_md)
    figures.impact_figure(table, args.model, args.out_png, settings["impact_threshold"])


def cmd_overview(args):
    """One line per contrast and model (``settings["cells"]``, in the order of the tables)."""
    settings = args.settings
    cells = settings["cells"]
    if not len(cells) == len(args.metrics) == len(args.tests) == len(args.position):
        raise InputError("--metrics, --tests, --position and the settings' cells differ in number")
    rows = [
        overview.contrast_rows(
            cell["prefix"],
            Contrast.from_dict(cell["contrast"]),
            cell["model"],
            *(read_table(path) for path in paths),
        )
        for cell, *paths in zip(cells, args.metrics, args.tests, args.position, strict=True)
    ]
    impact_tables = {
        model: read_table(path)
        for model, path in zip(settings["models"], args.impact or [], strict=False)
    }
    text = overview.overview(rows, impact_tables, settings["report"], settings["list"])
    report.write_markdown(text, args.out)


def cmd_estimate(args):
    settings = args.settings
    instances = read_table(args.instances)
    by_model = settings["models"]
    sides = args.contrast.sides
    attributes = read_table(args.attributes)
    table = estimate.estimate(
        by_model, instances, attributes, args.store_dir, settings["wordings"], sides
    )
    write_table(table, args.out_tsv)
    power_section = power.power_markdown(
        instances,
        list(by_model),
        settings["report"],
        sides,
        manifest.read_json(args.capacity),
        len(settings["wordings"]),
    )
    report.write_markdown(estimate.markdown(table) + "\n" + power_section, args.out_md)


def cmd_run_estimate(args):
    if not len(args.labels) == len(args.tsv) == len(args.md):
        raise InputError("--labels, --tsv and --md differ in length")
    parts = [
        (label, read_table(tsv), Path(md).read_text())
        for label, tsv, md in zip(args.labels, args.tsv, args.md, strict=True)
    ]
    table, text = estimate.run_estimate(parts)
    write_table(table, args.out_tsv)
    report.write_markdown(text, args.out_md)
