# Selection-rate impact ratios and the Local Law 144 summary per model over every contrast of
# names (docs/method.md). Part of `all` for runs with contrasts under results/contrasts/; for the
# paper's female vs male audit, ask for them: `snakemake results/impact/<model>.md
# results/ll144/<model>.md`. The neutral control has no groups.


# Every answer of one contrast's audit about one named person, with the person's group.
rule selections:
    input:
        names="results/dataset/names.parquet",
        instances="results/{contrast}dataset/instances.parquet",
        step2=lambda wc: step_outputs(wc.contrast, "step2", wc.model),
        step3=lambda wc: step_outputs(wc.contrast, "step3", wc.model),
    output:
        "results/{contrast}{model}/selections.parquet",
    log:
        "logs/selections/{contrast}{model}.log",
    conda:
        "../../envs/core.yaml"
    params:
        contrast=contrast_json,
    shell:
        rule_line("selections")


rule impact_ratios:
    input:
        selections=lambda wc: [
            f"results/{contrast}{wc.model}/selections.parquet" for contrast in NAMED
        ],
        # whether both listing orders ran: one decision, the findings' (every contrast runs
        # the same orders)
        findings=f"results/{next(iter(NAMED))}{{model}}/findings.tsv",
    output:
        tsv=report(
            "results/impact/{model}.tsv",
            caption="../report/impact_table.rst",
            category="Impact ratios",
            subcategory="{model}",
        ),
        md="results/impact/{model}.md",
        png=report(
            "results/impact/{model}.png",
            caption="../report/impact_figure.rst",
            category="Impact ratios",
            subcategory="{model}",
        ),
    log:
        "logs/impact_ratios/{model}.log",
    conda:
        "../../envs/core.yaml"
    params:
        settings=settings(plan.analysis_settings(config)),
    shell:
        rule_line("impact")


# The numbers of a NYC Local Law 144 bias-audit summary: rates and impact ratios per sex,
# race/ethnicity and intersectional category, the data and its dates (docs/outputs.md).
rule ll144:
    input:
        selections=lambda wc: [
            f"results/{contrast}{wc.model}/selections.parquet" for contrast in NAMED
        ],
        names="results/dataset/names.parquet",
        manifest=f"results/{next(iter(NAMED))}manifest.json",
        findings=f"results/{next(iter(NAMED))}{{model}}/findings.tsv",
    output:
        md=report(
            "results/ll144/{model}.md",
            caption="../report/ll144.rst",
            category="Local Law 144 summary",
            subcategory="{model}",
        ),
        csv=report(
            "results/ll144/{model}.csv",
            caption="../report/ll144.rst",
            category="Local Law 144 summary",
            subcategory="{model}",
        ),
    log:
        "logs/ll144/{model}.log",
    conda:
        "../../envs/core.yaml"
    params:
        settings=settings(plan.analysis_settings(config)),
    shell:
        rule_line("ll144")


# A run with several contrasts (or the neutral control): one line per contrast and model, the
# control beside the contrasts of names, and the impact ratios.
rule overview:
    input:
        tables=[path for paths in overview_tables().values() for path in paths.values()],
        impact=list(impact_outputs("tsv").values()),
    output:
        report(
            "results/contrasts.md",
            caption="../report/overview.rst",
            category="Summary",
        ),
    log:
        "logs/overview/all.log",
    conda:
        "../../envs/core.yaml"
    params:
        **keyed_params(
            "overview", {**overview_tables(), "impact": impact_outputs("tsv")}
        ),
        settings=settings(
            {
                "report": plan.analysis_settings(config),
                "list": config["names"]["list"],
                "models": MODELS,
                "cells": [
                    {"prefix": prefix, "contrast": contrast.as_dict(), "model": model}
                    for prefix, contrast in CONTRASTS.items()
                    for model in MODELS
                ],
            }
        ),
    shell:
        rule_line("overview")
