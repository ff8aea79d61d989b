"""The commands that write what a reader reads: figures, difference tables, the summary, the
name-validity, impact, Local Law 144 and overview reports, and the estimate."""

from __future__ import annotations

import datetime
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from hiremeornot import plan
from hiremeornot.analysis import alignment, impact, ll144, non_answers, stats, wordings
from hiremeornot.analysis.findings import fact, read_findings
from hiremeornot.analysis.power import design_power
from hiremeornot.asking import estimate
from hiremeornot.design.contrasts import (
    Contrast,
)
from hiremeornot.errors import InputError
from hiremeornot.inputs import names
from hiremeornot.inputs.workforce import occupation_shares, read_crosswalk, read_shares
from hiremeornot.provenance import manifest
from hiremeornot.tables_io import (
    read_table,
    read_tables,
    write_table,
)
from hiremeornot.writing import differences, figures, headlines, overview, summary
from hiremeornot.writing.alignment_figure import alignment_figure
from hiremeornot.writing.estimate import estimate_markdown, power_markdown, run_estimate_markdown
from hiremeornot.writing.impact import impact_markdown
from hiremeornot.writing.impact_figure import impact_figure
from hiremeornot.writing.ll144 import ll144_markdown
from hiremeornot.writing.ll144_csv import ll144_csv
from hiremeornot.writing.markdown import write_markdown
from hiremeornot.writing.non_answers import free_questions
from hiremeornot.writing.provenance import markdown_section
from hiremeornot.writing.validity import validity_markdown

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger("hiremeornot")


def cmd_figures(args):
    table = read_table(args.metrics)
    contrast = args.contrast
    label = "" if contrast.is_paper else f"contrast: {contrast.label}"
    found = {model: read_findings(path) for model, path in args.findings.items()}
    footer = headlines.figure_caveats(found, contrast, args.settings)
    figures.metric_distribution(table, "confirmation", args.out_fig3, label, footer)
    figures.metric_distribution(table, "consistency", args.out_fig4, label, footer)
    figures.confirmation_vs_consistency(table, args.out_fig5, label, footer)


def cmd_attribute_gaps(args):
    settings = args.settings
    gaps = stats.attribute_gaps(
        non_answers.answered_pairs(read_table(args.granted)),
        confidence=settings["confidence"],
        sides=args.contrast.sides,
    )
    write_table(gaps, args.out)
    footer = headlines.short_caveats(read_findings(args.findings), args.contrast, settings)
    figures.attribute_gaps(gaps, args.model, args.out_png, args.contrast.sides, footer)


def cmd_difference(args):
    settings = args.settings
    model_metrics, tests = read_table(args.metrics), read_table(args.tests)
    intervals, findings = read_table(args.intervals), read_findings(args.findings)
    threshold = settings["difference_threshold"]
    table = differences.annotated_differences(model_metrics, intervals, tests, threshold)
    contrast = args.contrast
    caveats = differences.design_caveats(findings, settings, contrast)
    differences.write_difference_table(
        table, args.model, settings, caveats, tsv=args.out_tsv, md=args.out_md, contrast=contrast
    )
    figures.difference_forest(
        differences.forest_points(intervals, tests),
        headlines.headline(findings, args.model, contrast),
        threshold,
        headlines.short_caveats(findings, contrast, settings),
        args.out_png,
        contrast.sides,
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
    footer = headlines.short_caveats(read_findings(args.findings), args.contrast, settings)
    figures.wording_differences(per_wording, table, args.model, args.out_png, sides, footer)


def cmd_alignment(args):
    settings, workforce = args.settings, args.settings["workforce"]
    shares = occupation_shares(
        read_crosswalk(args.crosswalk),
        read_shares(args.shares, workforce["percent_of"]),
        settings["occupations"],
        args.crosswalk,
    )
    found = alignment.alignment(
        read_table(args.outcomes),
        shares,
        read_table(args.tests),
        args.contrast.sides,
        settings["report"],
    )
    table = found.summary.assign(**{key: workforce[key] for key in ("source", "year", "licence")})
    write_table(table, args.out)
    write_table(found.occupations, args.out_occupations)
    intervals = read_table(args.intervals)
    bounds = intervals[intervals["metric"] == "difference"][["occupation", "low", "high"]]
    points = found.occupations.merge(bounds, on="occupation", how="left", validate="1:1")
    confidence = settings["report"]["confidence"]
    alignment_figure(points, found.band, table, args.model, args.out_png, confidence)


def cmd_summary(args):
    settings = args.settings
    given = {
        "metrics": args.metrics,
        "tests": args.tests,
        "findings": args.findings,
        "answer_space": args.answer_space,
        "non_answers": args.non_answers,
        "pooled": args.pooled,
        "robustness": args.robustness or {},
        "flips": args.flips or {},
        "truth": args.truth or {},
        "interventions": args.interventions or {},
        "intervention_flips": args.intervention_flips or {},
        "alignment": args.alignment or {},
        "alignment_occupations": args.alignment_occupations or {},
    }
    models = list(settings["models"])
    several = len(settings["report"]["wordings"]) > 1  # the wordings' tables, then
    each = {
        kind: models
        for kind in ("metrics", "tests", "findings", "answer_space", "non_answers", "pooled")
    }
    each |= {kind: models if several else [] for kind in ("robustness", "flips")}
    each["truth"] = plan.simulated_models(settings["models"])
    arms = [model for model, entry in settings["models"].items() if "intervention" in entry]
    each |= {kind: arms for kind in ("interventions", "intervention_flips")}
    aligned = models if settings["report"].get("alignment") else []
    each |= {kind: aligned for kind in ("alignment", "alignment_occupations")}
    for kind, paths in given.items():
        if sorted(paths) != sorted(each[kind]):
            raise InputError(
                f"--{kind.replace('_', '-')}: tables of {sorted(paths)}, but the run needs "
                f"{sorted(each[kind])}"
            )
    tables: dict[str, dict] = {model: {} for model in models}
    for kind, paths in given.items():
        for model, path in paths.items():
            tables[model][kind] = read_findings(path) if kind == "findings" else read_table(path)
    text = summary.summary(
        settings["models"],
        tables,
        settings["report"],
        args.contrast,
        names.misread(map(read_table, args.perceived or [])),
    )
    if args.manifest:
        text += "\n" + markdown_section(manifest.read_json(args.manifest))
    write_markdown(text, args.out)


def cmd_name_validity(args):
    tables = {model: read_table(path) for model, path in args.tables.items()}
    text = validity_markdown(tables, args.settings["drop_misperceived"])
    write_markdown(text, args.out)


def every_contrasts_selections(paths: list[str]):
    """The selections of every contrast; a question two contrasts share counts once."""
    return read_tables(paths).drop_duplicates(["wording", "instance_id", "question", "name"])


def position_confounded(findings: pd.DataFrame) -> bool:
    """Whether the findings say position and the contrast are confounded (one listing order)."""
    return fact(findings, "listing_orders")["outcome"] == "confounded"


def cmd_impact(args):
    """Impact ratios over every contrast's answers."""
    settings = args.settings
    selections = every_contrasts_selections(args.selections)
    table = impact.impact_ratios(
        selections,
        threshold=settings["impact_threshold"],
        confidence=settings["confidence"],
    )
    write_table(table, args.out_tsv)
    confounded = position_confounded(read_findings(args.findings))
    text = impact_markdown(table, args.model, settings, confounded=confounded)
    write_markdown(text, args.out_md)
    impact_figure(table, args.model, args.out_png, settings["impact_threshold"])


def cmd_ll144(args):
    """The Local Law 144 summary of one model over every contrast's answers."""
    settings = args.settings
    selections = every_contrasts_selections(args.selections)
    names = read_table(args.names)
    found = read_findings(args.findings)
    rates = ll144.ll144_rates(
        selections,
        names,
        n_resamples=settings["bootstrap_resamples"],
        seed=settings["seed"],
        confidence=settings["confidence"],
        threshold=settings["impact_threshold"],
    )
    counts = {
        "unknown": ll144.unknown_categories(selections, ll144.name_categories(names)),
        "unscored": ll144.unscored(selections),
        "median": ll144.scoring_median(selections),
        "confounded": position_confounded(found),
        "free": free_questions(found),
    }
    record = manifest.read_json(args.manifest)
    today = datetime.date.today().isoformat()
    write_table(ll144_csv(rates, args.model, record, audit_date=today), args.out_csv)
    text = ll144_markdown(
        rates,
        args.model,
        record,
        selections,
        counts,
        threshold=settings["impact_threshold"],
        confidence=settings["confidence"],
        audit_date=today,
    )
    write_markdown(text, args.out_md)


def cmd_overview(args):
    """One line per contrast and model (``settings["cells"]``, each table keyed by the cell's
    results prefix and model)."""
    settings = args.settings
    rows = []
    for cell in settings["cells"]:
        key = cell["prefix"] + cell["model"]
        paths = [tables.get(key) for tables in (args.metrics, args.tests, args.findings)]
        if None in paths:
            raise InputError(f"--metrics, --tests and --findings: no tables of {key!r}")
        metrics, tests, findings = paths
        rows.append(
            overview.contrast_rows(
                cell["prefix"],
                Contrast.from_dict(cell["contrast"]),
                cell["model"],
                read_table(metrics),
                read_table(tests),
                read_findings(findings),
            )
        )
    impact_tables = {model: read_table(path) for model, path in (args.impact or {}).items()}
    text = overview.overview(rows, impact_tables, settings["report"], settings["list"])
    write_markdown(text, args.out)


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
    power = design_power(
        instances,
        sides,
        alpha=settings["report"]["alpha"],
        differences=settings["report"]["power_differences"],
        wordings=len(settings["wordings"]),
    )
    power_section = power_markdown(power, list(by_model), sides, manifest.read_json(args.capacity))
    write_markdown(estimate_markdown(table) + "\n" + power_section, args.out_md)


def cmd_run_estimate(args):
    if sorted(args.tsv) != sorted(args.md):
        raise InputError(
            f"--tsv {sorted(args.tsv)} and --md {sorted(args.md)} name other contrasts"
        )
    table = estimate.run_estimate({label: read_table(tsv) for label, tsv in args.tsv.items()})
    write_table(table, args.out_tsv)
    texts = {label: Path(args.md[label]).read_text() for label in args.tsv}
    write_markdown(run_estimate_markdown(texts), args.out_md)
