"""Command line: one sub-command per workflow step, so every rule is a one-line shell call.

Each command takes file paths and a ``--settings`` JSON string holding just the configuration
that step depends on (so Snakemake re-runs a step only when its own settings change).
"""

from __future__ import annotations

import argparse
import json
import logging
import resource
import sys
import time
from pathlib import Path

from hiremeornot import (
    answer_space,
    calibration,
    calibration_report,
    compare,
    download,
    drift,
    estimate,
    export,
    figures,
    impact,
    manifest,
    metrics,
    names,
    occupations,
    onet,
    overview,
    plan,
    pooled,
    power,
    report,
    stats,
    store_maintenance,
    truth,
    validity,
    wordings,
)
from hiremeornot.backends import BackendError, gguf_cache, load_backend, model_identity
from hiremeornot.backends.location import locate_model
from hiremeornot.config import load_config
from hiremeornot.contrasts import (
    GENDER_CONTRAST,
    Contrast,
    contrast_pairs,
    control_pairs,
    list_capacity,
)
from hiremeornot.dataset import build_instances, instance_order
from hiremeornot.errors import InputError
from hiremeornot.respondent import Respondent
from hiremeornot.steps import run_step, write_granted
from hiremeornot.tables_io import (
    STEPS,
    read_table,
    read_tables,
    stamp_table,
    step_table_parts,
    write_table,
)

log = logging.getLogger("hiremeornot")


def cmd_download_onet(args, settings):
    download.download_onet(settings["url"], settings["release"], args.out, settings["sha256"])


def cmd_download_names(args, settings):
    download.download_names(settings["url"], settings["files"], args.out)


def cmd_prepare_model(args, settings):
    """Convert a GGUF model (e.g. the embedded one) once, so its jobs load it in a second."""
    folder, gguf_file = locate_model(args.model, args.gguf_file)
    if gguf_file:
        log.info("%s: converted weights in %s", args.model, gguf_cache.converted(folder, gguf_file))


def cmd_attributes(args, settings):
    table = onet.extract_attributes(
        args.onet_dir, args.soc_codes, settings["per_type"], suppressed=settings["suppressed"]
    )
    write_table(table, args.out)


def cmd_gather(args, settings):
    write_table(read_tables(args.inputs), args.out)


def cmd_answer_space(args, settings):
    tables = [(step_table_parts(path)[1], read_table(path)) for path in args.tables]
    write_table(answer_space.mass_distribution(tables), args.out)


def cmd_pooled(args, settings):
    table = pooled.pooled_effects(
        read_tables(args.step2),
        read_tables(args.step3),
        read_table(args.instances),
        args.contrast.sides,
        settings,
    )
    write_table(table, args.out)


def cmd_dataset(args, settings):
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
        listed = names.read_name_list(args.data_root, settings["source"], settings["list"])
        names.check_answer_words(listed, settings["answers"])
        misread = listed["name"].isin(_misread(args.perceived))
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


def cmd_step(args, settings):
    paths = {"instances": args.instances, "attributes": args.attributes}
    if args.step != "step1":
        if not args.step1:
            raise InputError(f"{args.step} needs --step1 (the model's Step-1 tables)")
        paths["step1"] = args.step1
    if len(args.wordings) != len(args.out):
        raise InputError(f"--wordings {args.wordings} and --out {args.out} differ in length")
    outputs = dict(zip(args.wordings, args.out, strict=True))
    started = manifest.now()
    summary = run_step(
        args.step,
        args.model,
        settings,
        args.shard,
        paths,
        outputs,
        args.store_dir,
        args.contrast,
    )
    record = manifest.job_record(
        args.model,
        args.step,
        args.shard,
        summary,
        started,
        manifest.now(),
        model_identity(settings["model"]),
    )
    for path in args.out:  # the run manifest reads each job's record from its tables
        stamp_table(path, record)
    manifest.write_json({**record, "tables": outputs}, args.record)
    log.info(summary.line(f"{args.model} {args.step} shard {args.shard}"))


def _design(args, settings) -> truth.Design:
    """The design of a truth or calibrate command: its instances, attributes, contrast and
    wordings."""
    return truth.Design(
        read_table(args.instances),
        read_table(args.attributes),
        args.contrast.sides,
        args.contrast.groups,
        settings["wordings"],
    )


def cmd_truth(args, settings):
    design = _design(args, settings)
    table = truth.planted_truth(Respondent(settings["respondent"]), design)
    write_table(table, args.out)


def cmd_calibrate(args, settings):
    """R simulated audits of the design; the coverage and verdict tables, in words, a figure."""
    design = _design(args, settings)
    respondent = Respondent(settings["respondent"])
    report_settings = settings["report"]
    audits = args.audits or report_settings["calibration_audits"]
    checks, verdicts, seconds = calibration.calibrate(
        respondent, design, report_settings, audits, report_settings["seed"]
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
    }
    position = calibration.position_residue(respondent, design)
    text = calibration_report.markdown(
        args.model, described, coverage, rates, position, report_settings, seconds
    )
    report.write_markdown(text, args.out_md)
    figures.calibration(checks, coverage, report_settings["confidence"], args.out_png)
    log.info(
        "%s: %d audits in %.0f s (%.0f s per hundred)",
        args.model,
        audits,
        seconds,
        100 * seconds / max(audits, 1),
    )


def cmd_estimate(args, settings):
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


def cmd_run_estimate(args, settings):
    if not len(args.labels) == len(args.tsv) == len(args.md):
        raise InputError("--labels, --tsv and --md differ in length")
    parts = [
        (label, read_table(tsv), Path(md).read_text())
        for label, tsv, md in zip(args.labels, args.tsv, args.md, strict=True)
    ]
    table, text = estimate.run_estimate(parts)
    write_table(table, args.out_tsv)
    report.write_markdown(text, args.out_md)


def cmd_metrics(args, settings):
    step2 = read_tables(args.step2)
    step3 = read_tables(args.step3)
    sides = args.contrast.sides
    outcomes = metrics.instance_outcomes(step2, step3, read_table(args.instances), sides)
    write_table(outcomes, args.out_outcomes)
    table = metrics.occupation_metrics(outcomes, settings["difference"], sides)
    table.insert(0, "model", args.model)
    write_table(table, args.out)
    by_order = metrics.difference_by_order(outcomes, settings["difference"], sides)
    write_table(by_order, args.out_by_order)


def cmd_granted(args, settings):
    write_granted(args.instances, args.attributes, args.step1, args.out, args.contrast.sides)


def cmd_figures(args, settings):
    table = read_table(args.metrics)
    label = "" if args.contrast.is_paper else f"contrast: {args.contrast.label}"
    figures.metric_distribution(table, "confirmation", args.fig3, label)
    figures.metric_distribution(table, "consistency", args.fig4, label)
    figures.confirmation_vs_consistency(table, args.fig5, label)


def cmd_statistics(args, settings):
    sides = args.contrast.sides
    outcomes = read_table(args.outcomes)
    intervals, tests = stats.occupation_statistics(
        outcomes, settings["difference"], settings, sides
    )
    write_table(intervals, args.out_intervals)
    write_table(tests, args.out_tests)
    step3 = read_tables(args.step3)
    write_table(stats.position_bias(step3, sides), args.out_position)


def cmd_attribute_gaps(args, settings):
    gaps = stats.attribute_gaps(
        read_table(args.granted),
        settings["bootstrap_resamples"],
        settings["confidence"],
        settings["seed"],
        args.contrast.sides,
    )
    write_table(gaps, args.out)
    figures.attribute_gaps(gaps, args.model, args.out_png, args.contrast.sides)


def cmd_difference(args, settings):
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


def cmd_summary(args, settings):
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
        _misread(args.perceived),
    )
    if args.manifest:
        text += "\n" + manifest.markdown_section(manifest.read_json(args.manifest))
    report.write_markdown(text, args.out)


def cmd_wordings(args, settings):
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


def cmd_validate_names(args, settings):
    listed = names.read_name_list(args.data_root, settings["source"], settings["list"])
    table, summary = validity.validate_names(
        args.model,
        settings["model"],
        listed,
        settings["validity"],
        settings["source"]["races"],
        args.store_dir,
    )
    write_table(table, args.out)
    log.info(summary.line(f"{args.model} names"))


def cmd_name_validity(args, settings):
    tables = {
        model: read_table(path) for model, path in zip(settings["models"], args.tables, strict=True)
    }
    text = validity.validity_markdown(tables, settings["drop_misperceived"])
    report.write_markdown(text, args.out)


def cmd_selections(args, settings):
    listed = names.read_name_list(args.data_root, settings["source"], settings["list"])
    table = impact.contrast_selections(
        read_tables(args.step2),
        read_tables(args.step3),
        read_table(args.instances),
        dict(zip(listed["name"], names.group_labels(listed), strict=True)),
        args.contrast.sides,
    )
    write_table(table, args.out)


def cmd_impact(args, settings):
    """Impact ratios over every contrast's answers; a question two contrasts share counts once."""
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
    impact.impact_figure(table, args.model, args.out_png, settings["impact_threshold"])


def cmd_overview(args, settings):
    """One line per contrast and model (``settings["cells"]``, in the order of the tables)."""
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


def cmd_manifest(args, settings):
    built = manifest.build_manifest(
        settings,
        repo=args.repo,
        data_root=args.data_root,
        inputs=[*manifest.onet_files(args.onet_dir), *args.inputs],
        dataset=args.dataset,
        tables=args.tables,
        store_dir=args.store_dir,
    )
    built["contrast"] = {**args.contrast.as_dict(), "label": args.contrast.label}
    manifest.write_json(built, args.out)


def cmd_export(args, settings):
    files = export.export_run(
        args.manifest,
        args.tables,
        args.instances,
        args.attributes,
        args.out_dir,
        args.contrast,
    )
    log.info("%d rows in %d files", sum(f["rows"] for f in files), len(files))


def _misread(perceived: list[str] | None) -> list[str]:
    """The names some model misreads, from the --perceived tables (none without them)."""
    return validity.misread({path: read_table(path) for path in perceived or []})


def _recorded_contrast(given: Contrast, results: Path) -> Contrast:
    """``--contrast``, or where it is left at female vs male, the contrast the manifest of the
    result folder records (a folder under results/contrasts/ audits another)."""
    path = results / "manifest.json"
    if given != GENDER_CONTRAST or not path.is_file():
        return given
    recorded = manifest.read_json(path).get("contrast")
    return Contrast.from_dict(recorded) if recorded else given


def _run_label(model: str, results: str, other_model: str) -> str:
    """A run's name in a comparison: its model, and its folder where both runs are one model's."""
    return model if model != other_model else f"{model} ({results})"


def cmd_compare(args, settings):
    """Compare two runs: two models of one config, or two result folders of one model."""
    report_settings = settings or load_config(args.configfile)["report"]
    a_label = args.a_label or _run_label(args.a_model, args.a_results, args.b_model)
    b_label = args.b_label or _run_label(args.b_model, args.b_results, args.a_model)
    if a_label == b_label:
        raise InputError(f"both runs are {a_label!r}: compare two models or two result folders")
    sides = _recorded_contrast(args.contrast, Path(args.a_results)).sides
    a = compare.load_run(Path(args.a_results) / args.a_model, a_label, sides, args.a_tables)
    b = compare.load_run(Path(args.b_results) / args.b_model, b_label, sides, args.b_tables)
    result = compare.compare(a, b, report_settings)
    write_table(result.changes, args.out_tsv)
    if args.out_changed:
        write_table(compare.changed_questions(result), args.out_changed)
    figures.paired_changes(result.changes, a_label, b_label, args.out_png)
    report.write_markdown(compare.markdown(result), args.out_md)
    total = result.flips[result.flips["step"] == "all"].iloc[0]
    log.info("%d of %d identical questions flipped", total["flipped"], total["identical"])


def cmd_drift(args, settings):
    """Ask a sample of a model's stored questions again, bypassing the store."""
    config = load_config(args.configfile)
    if args.model not in config["models"]:
        raise InputError(
            f"--model: unknown model {args.model!r}; "
            f"{args.configfile} has {sorted(config['models'])}"
        )
    model_settings = config["models"][args.model]
    state_dir = Path(args.out_md).with_suffix(".batches")  # the Batch API's journal, if used
    result = drift.check_drift(
        args.store_dir or config["store_dir"],
        args.model,
        model_settings,
        args.sample,
        args.seed,
        lambda: load_backend(model_settings["backend"], model_settings, state_dir=state_dir),
    )
    write_table(result.table, args.out_tsv)
    report.write_markdown(drift.markdown(result), args.out_md)
    found = drift.findings(result)
    log.info("%d of %d answers agree with the store", found["agree"], found["n"])


def cmd_store_check(args, settings):
    problems = store_maintenance.check(args.store_dir, args.model)
    for line in problems:
        log.error(line)
    if problems:
        bad = sorted({line.split(": ", 1)[0] for line in problems})
        raise InputError(f"{len(bad)} bad store segment(s): {', '.join(bad)}")
    log.info("every segment is sound")


def cmd_store_compact(args, settings):
    store_maintenance.compact(Path(args.store_dir) / args.model, args.min_age_s)


def cmd_store_rebuild(args, settings):
    config = load_config(args.configfile)
    store_maintenance.rebuild(args.store_dir, args.model, args.results, config, args.unrecorded)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hiremeornot", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    def command(name, func, *options, within=sub):
        p = within.add_parser(name)
        p.add_argument("--settings", type=json.loads, default={}, help="JSON settings")
        p.add_argument(
            "--contrast",
            type=lambda text: Contrast.from_dict(json.loads(text)),
            default=GENDER_CONTRAST,
            help="JSON {a: group, b: group, held: [...]} (default: female vs male)",
        )
        for flags, kwargs in options:
            p.add_argument(*flags, **kwargs)
        p.set_defaults(func=func)

    one = {"required": True}
    many = {"nargs": "+", "required": True}
    perceived = {"nargs": "+", "help": "names.drop_misperceived: results/names/*.tsv"}
    command("download-onet", cmd_download_onet, (["--out"], one))
    command("download-names", cmd_download_names, (["--out"], one))
    command("prepare-model", cmd_prepare_model, (["--model"], one), (["--gguf-file"], {}))
    command(
        "attributes",
        cmd_attributes,
        (["--onet-dir"], one),
        (["--soc-codes"], many),
        (["--out"], one),
    )
    command("gather", cmd_gather, (["--inputs"], many), (["--out"], one))
    command(
        "dataset",
        cmd_dataset,
        (["--occupations"], one),
        (["--data-root"], one),
        (["--perceived"], perceived),
        (["--out-pairs"], one),
        (["--out-capacity"], one),
        (["--out"], one),
    )
    command(
        "step",
        cmd_step,
        (["--step"], {"choices": STEPS, "required": True}),
        (["--model"], one),
        (["--shard"], {"type": int, "required": True}),
        (["--instances"], one),
        (["--attributes"], one),
        (["--step1"], {"nargs": "+"}),
        (["--store-dir"], one),
        (["--wordings"], many),
        (["--out"], many),
        (["--record"], one),
    )
    command(
        "metrics",
        cmd_metrics,
        (["--model"], one),
        (["--instances"], one),
        (["--step2"], many),
        (["--step3"], many),
        (["--out-outcomes"], one),
        (["--out-by-order"], one),
        (["--out"], one),
    )
    command(
        "granted",
        cmd_granted,
        (["--instances"], one),
        (["--attributes"], one),
        (["--step1"], many),
        (["--out"], one),
    )
    command(
        "figures",
        cmd_figures,
        (["--metrics"], one),
        (["--fig3"], one),
        (["--fig4"], one),
        (["--fig5"], one),
    )
    command(
        "statistics",
        cmd_statistics,
        (["--outcomes"], one),
        (["--step3"], many),
        (["--out-intervals"], one),
        (["--out-tests"], one),
        (["--out-position"], one),
    )
    command(
        "attribute-gaps",
        cmd_attribute_gaps,
        (["--model"], one),
        (["--granted"], one),
        (["--out"], one),
        (["--out-png"], one),
    )
    command(
        "difference",
        cmd_difference,
        (["--model"], one),
        (["--metrics"], one),
        (["--intervals"], one),
        (["--tests"], one),
        (["--position"], one),
        (["--out-tsv"], one),
        (["--out-md"], one),
        (["--out-png"], one),
    )
    command(
        "estimate",
        cmd_estimate,
        (["--instances"], one),
        (["--capacity"], one),
        (["--attributes"], one),
        (["--store-dir"], one),
        (["--out-tsv"], one),
        (["--out-md"], one),
    )
    command(
        "run-estimate",
        cmd_run_estimate,
        (["--labels"], many),
        (["--tsv"], many),
        (["--md"], many),
        (["--out-tsv"], one),
        (["--out-md"], one),
    )
    design = [(["--instances"], one), (["--attributes"], one)]
    command("truth", cmd_truth, *design, (["--out"], one))
    command(
        "calibrate",
        cmd_calibrate,
        (["--model"], one),
        *design,
        (["--audits"], {"type": int, "help": "default: report.calibration_audits"}),
        (["--out-tsv"], one),
        (["--out-verdicts"], one),
        (["--out-md"], one),
        (["--out-png"], one),
    )
    command(
        "summary",
        cmd_summary,
        (["--metrics"], many),
        (["--tests"], many),
        (["--position"], many),
        (["--answer-space"], many),
        (["--pooled"], many),
        (["--manifest"], {"help": "results/manifest.json: adds the Run manifest section"}),
        (["--robustness"], {"nargs": "+", "help": "each model's wordings/robustness.tsv"}),
        (["--flips"], {"nargs": "+", "help": "each model's wordings/flips.tsv"}),
        (["--perceived"], perceived),
        (["--truth"], {"nargs": "+", "help": "each simulated model's truth.tsv, in order"}),
        (["--out"], one),
    )
    command(
        "wordings",
        cmd_wordings,
        (["--model"], one),
        (["--outcomes"], one),
        (["--intervals"], one),
        (["--tests"], one),
        (["--granted"], one),
        (["--out-metrics"], one),
        (["--out-robustness"], one),
        (["--out-flips"], one),
        (["--out-png"], one),
    )
    command(
        "validate-names",
        cmd_validate_names,
        (["--model"], one),
        (["--data-root"], one),
        (["--store-dir"], one),
        (["--out"], one),
    )
    command("name-validity", cmd_name_validity, (["--tables"], many), (["--out"], one))
    command("answer-space", cmd_answer_space, (["--tables"], many), (["--out"], one))
    command(
        "pooled",
        cmd_pooled,
        (["--instances"], one),
        (["--step2"], many),
        (["--step3"], many),
        (["--out"], one),
    )
    command(
        "selections",
        cmd_selections,
        (["--data-root"], one),
        (["--instances"], one),
        (["--step2"], many),
        (["--step3"], many),
        (["--out"], one),
    )
    command(
        "impact",
        cmd_impact,
        (["--model"], one),
        (["--selections"], many),
        (["--out-tsv"], one),
        (["--out-md"], one),
        (["--out-png"], one),
    )
    command(
        "overview",
        cmd_overview,
        (["--metrics"], many),
        (["--tests"], many),
        (["--position"], many),
        (["--impact"], {"nargs": "+", "help": "each model's impact ratios, where they were run"}),
        (["--out"], one),
    )
    command(
        "manifest",
        cmd_manifest,
        (["--repo"], one),
        (["--data-root"], one),
        (["--onet-dir"], one),
        (["--inputs"], many),
        (["--dataset"], many),
        (["--tables"], many),
        (["--store-dir"], one),
        (["--out"], one),
    )
    command(
        "export",
        cmd_export,
        (["--manifest"], one),
        (["--tables"], many),
        (["--instances"], one),
        (["--attributes"], one),
        (["--out-dir"], one),
    )

    def run_options(side: str) -> list:
        """The options naming one run of a comparison: its model and result folder."""
        return [
            ([f"--{side}-model"], one),
            ([f"--{side}-results"], {"default": "results", "help": "holds <model>/"}),
            ([f"--{side}-tables"], {"nargs": "+", "help": "its step tables (default: all)"}),
            ([f"--{side}-label"], {"help": "its name in the report"}),
        ]

    command(
        "compare",
        cmd_compare,
        *run_options("a"),
        *run_options("b"),
        (["--configfile"], {"default": "config.yaml", "help": "report settings, w/o --settings"}),
        (["--out-md"], one),
        (["--out-tsv"], one),
        (["--out-png"], one),
        (["--out-changed"], {"default": None, "help": "every question answered otherwise"}),
    )
    command(
        "drift",
        cmd_drift,
        (["--configfile"], {"default": "config.yaml"}),
        (["--model"], one),
        (["--store-dir"], {"default": None, "help": "default: the config's store_dir"}),
        (["--sample"], {"type": int, "default": 50, "help": "questions to ask again"}),
        (["--seed"], {"type": int, "default": 0}),
        (["--out-md"], one),
        (["--out-tsv"], one),
    )
    store = sub.add_parser("store", help="check, compact or rebuild a response store")
    maintenance = store.add_subparsers(dest="store_command", required=True)
    folder = (["--store-dir"], one)
    command("check", cmd_store_check, folder, (["--model"], {}), within=maintenance)
    command(
        "compact",
        cmd_store_compact,
        folder,
        (["--model"], one),
        (["--min-age-s"], {"type": float, "default": 600.0, "help": "skip younger segments"}),
        within=maintenance,
    )
    command(
        "rebuild",
        cmd_store_rebuild,
        folder,
        (["--model"], one),
        (["--results"], one),
        (["--configfile"], one),
        (
            ["--unrecorded"],
            {
                "action": "store_true",
                "help": "also tables written before their settings were recorded, trusting "
                "that they were asked with the config's",
            },
        ),
        within=maintenance,
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    args = _parser().parse_args(argv)
    start = time.monotonic()
    try:
        args.func(args, args.settings)
    except (InputError, BackendError) as exc:
        print(f"hiremeornot: {exc}", file=sys.stderr)
        return 1
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    log.info(
        "%s done in %.1f s, peak memory %.0f MB", args.command, time.monotonic() - start, peak_mb
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
