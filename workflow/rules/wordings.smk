# With several prompt wordings (prompts.variants): each wording's results and their agreement.
rule wording_robustness:
    input:
        outcomes="results/{model}/outcomes.tsv",
        intervals="results/{model}/intervals.tsv",
        tests="results/{model}/tests.tsv",
    output:
        metrics=report(
            "results/{model}/wordings/metrics.tsv",
            caption="../report/wording_metrics.rst",
            category="Wording robustness",
            subcategory="{model}",
        ),
        robustness=report(
            "results/{model}/wordings/robustness.tsv",
            caption="../report/wording_robustness.rst",
            category="Wording robustness",
            subcategory="{model}",
        ),
        png=report(
            "results/figures/wordings_{model}.png",
            caption="../report/wording_figure.rst",
            category="Wording robustness",
            subcategory="{model}",
        ),
    log:
        "logs/wording_robustness/{model}.log",
    conda:
        "../../envs/core.yaml"
    params:
        settings=settings(REPORT),
    shell:
        "hiremeornot wordings --settings {params.settings:q} --model {wildcards.model}"
        " --outcomes {input.outcomes:q} --intervals {input.intervals:q} --tests {input.tests:q}"
        " --out-metrics {output.metrics:q} --out-robustness {output.robustness:q}"
        " --out-png {output.png:q} 2> {log:q}"
