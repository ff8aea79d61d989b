# The words and pictures that phrase the findings: figures, difference tables, the summary and
# the first page.


rule figures:
    input:
        metrics="results/{contrast}metrics.tsv",
        findings=expand("results/{{contrast}}{model}/findings.tsv", model=MODELS),
    output:
        fig3=report(
            "results/{contrast}figures/fig3_confirmation.png",
            caption="../report/fig3.rst",
            category="Confirmation and Consistency",
        ),
        fig4=report(
            "results/{contrast}figures/fig4_consistency.png",
            caption="../report/fig4.rst",
            category="Confirmation and Consistency",
        ),
        fig5=report(
            "results/{contrast}figures/fig5_confirmation_vs_consistency.png",
            caption="../report/fig5.rst",
            category="Confirmation and Consistency",
        ),
    log:
        "logs/figures/{contrast}all.log",
    conda:
        "../../envs/core.yaml"
    params:
        sides=contrast_sides,
        contrast=contrast_json,
        settings=settings(REPORT),
        findings=lambda wc: keyed(
            {model: f"results/{wc.contrast}{model}/findings.tsv" for model in MODELS}
        ),
    shell:
        rule_line("figures")


rule difference_table:
    input:
        metrics="results/{contrast}{model}/metrics.tsv",
        intervals="results/{contrast}{model}/intervals.tsv",
        tests="results/{contrast}{model}/tests.tsv",
        findings="results/{contrast}{model}/findings.tsv",
    output:
        tsv=report(
            "results/{contrast}tables/difference_{model}.tsv",
            caption="../report/difference.rst",
            category="Difference tables",
            subcategory="{model}",
        ),
        md="results/{contrast}tables/difference_{model}.md",
        png=report(
            "results/{contrast}tables/difference_{model}.png",
            caption="../report/difference_figure.rst",
            category="Difference tables",
            subcategory="{model}",
        ),
    log:
        "logs/difference_table/{contrast}{model}.log",
    conda:
        "../../envs/core.yaml"
    params:
        sides=contrast_sides,
        contrast=contrast_json,
        settings=settings(REPORT),
    shell:
        rule_line("difference")


rule summary:
    input:
        tables=lambda wc: [
            path for paths in summary_tables(wc).values() for path in paths.values()
        ],
        manifest="results/{contrast}manifest.json",
        perceived=perceived_names(),
    output:
        report(
            "results/{contrast}summary.md",
            caption="../report/summary.rst",
            category="Summary",
        ),
    log:
        "logs/summary/{contrast}all.log",
    conda:
        "../../envs/core.yaml"
    params:
        **keyed_params("summary", summary_tables),
        sides=contrast_sides,
        contrast=contrast_json,
        settings=lambda wc: json.dumps(
            {
                "models": plan.without_resources(config["models"]),
                "report": {
                    **REPORT,
                    "alignment": plan.aligned(config, CONTRASTS[wc.contrast]),
                },
            },
            sort_keys=True,
        ),
    shell:
        rule_line("summary")


# The run's first page (writing/first_page.py): the findings of every contrast and model, read
# from the findings tables, and a link to everything else; and the same headlines for the
# first screen of `snakemake --report` (the Snakefile's report directive reads it).
rule first_page:
    input:
        tables=[
            path for paths in first_page_inputs().values() for path in paths.values()
        ],
        published=published_outputs(),
    output:
        html=report(
            "results/index.html",
            caption="../report/first_page.rst",
            category="First page",
        ),
        rst="results/report_front.rst",
    log:
        "logs/first_page/all.log",
    conda:
        "../../envs/core.yaml"
    params:
        **keyed_params("first-page", first_page_inputs()),
        settings=settings(
            {
                "report": REPORT,
                "cells": [
                    {"prefix": prefix, "contrast": contrast.as_dict(), "model": model}
                    for prefix, contrast in CONTRASTS.items()
                    for model in MODELS
                ],
            }
        ),
    shell:
        rule_line("first-page")


# Each occupation's result against who holds the job (gender contrasts, workforce.crosswalk).
rule alignment:
    input:
        outcomes="results/{contrast}{model}/outcomes.tsv",
        tests="results/{contrast}{model}/tests.tsv",
        intervals="results/{contrast}{model}/intervals.tsv",
        shares=plan.workforce_shares(config),
        crosswalk=config["workforce"]["crosswalk"] or [],
    output:
        table=report(
            "results/{contrast}{model}/alignment.tsv",
            caption="../report/alignment_table.rst",
            category="Alignment with the workforce",
            subcategory="{model}",
        ),
        occupations="results/{contrast}{model}/workforce.tsv",
        png=report(
            "results/{contrast}figures/alignment_{model}.png",
            caption="../report/alignment.rst",
            category="Alignment with the workforce",
            subcategory="{model}",
        ),
    log:
        "logs/alignment/{contrast}{model}.log",
    conda:
        "../../envs/core.yaml"
    params:
        contrast=contrast_json,
        settings=settings(
            {
                "report": {
                    k: REPORT[k] for k in ("difference", "confidence", "alpha")
                },
                "workforce": {
                    k: config["workforce"][k]
                    for k in ("percent_of", "source", "year", "licence")
                },
                "occupations": plan.selected_occupations(config)["title"].tolist(),
            }
        ),
    shell:
        rule_line("alignment")
