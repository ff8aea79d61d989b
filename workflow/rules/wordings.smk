# With several prompt wordings (prompts.variants): each wording's results and their agreement.
rule wording_robustness:
    input:
        outcomes="results/{contrast}{model}/outcomes.tsv",
        intervals="results/{contrast}{model}/intervals.tsv",
        tests="results/{contrast}{model}/tests.tsv",
        granted="results/{contrast}{model}/granted.parquet",
        findings="results/{contrast}{model}/findings.tsv",
    output:
        metrics=report(
            "results/{contrast}{model}/wordings/metrics.tsv",
            caption="../report/wording_metrics.rst",
            category="Wording robustness",
            subcategory="{model}",
        ),
        robustness=report(
            "results/{contrast}{model}/wordings/robustness.tsv",
            caption="../report/wording_robustness.rst",
            category="Wording robustness",
            subcategory="{model}",
        ),
        flips=report(
            "results/{contrast}{model}/wordings/flips.tsv",
            caption="../report/wording_flips.rst",
            category="Wording robustness",
            subcategory="{model}",
        ),
        png=report(
            "results/{contrast}figures/wordings_{model}.png",
            caption="../report/wording_figure.rst",
            category="Wording robustness",
            subcategory="{model}",
        ),
    log:
        "logs/wording_robustness/{contrast}{model}.log",
    conda:
        "../../envs/core.yaml"
    params:
        sides=contrast_sides,
        contrast=contrast_json,
        settings=settings(REPORT),
    shell:
        rule_line("wordings")
