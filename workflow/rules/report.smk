rule model_metrics:
    input:
        instances="results/dataset/instances.parquet",
        step2=lambda wc: step_outputs("step2", wc.model),
        step3=lambda wc: step_outputs("step3", wc.model),
    output:
        outcomes="results/{model}/outcomes.tsv",
        metrics="results/{model}/metrics.tsv",
        by_order=report(
            "results/{model}/difference_by_order.tsv",
            caption="../report/difference_by_order.rst",
            category="Tests and intervals",
            subcategory="{model}",
        ),
    log:
        "logs/model_metrics/{model}.log",
    conda:
        "../../envs/core.yaml"
    params:
        settings=settings({"difference": config["report"]["difference"]}),
    shell:
        "hiremeornot metrics --settings {params.settings:q} --model {wildcards.model}"
        " --instances {input.instances:q} --step2 {input.step2:q}"
        " --step3 {input.step3:q} --out-outcomes {output.outcomes:q}"
        " --out-by-order {output.by_order:q} --out {output.metrics:q} 2> {log:q}"


rule metrics_table:
    input:
        expand("results/{model}/metrics.tsv", model=MODELS),
    output:
        report(
            "results/metrics.tsv",
            caption="../report/metrics.rst",
            category="Confirmation and Consistency",
        ),
    log:
        "logs/metrics_table/all.log",
    conda:
        "../../envs/core.yaml"
    shell:
        "hiremeornot gather --inputs {input:q} --out {output:q} 2> {log:q}"


rule figures:
    input:
        "results/metrics.tsv",
    output:
        fig3=report(
            "results/figures/fig3_confirmation.png",
            caption="../report/fig3.rst",
            category="Confirmation and Consistency",
        ),
        fig4=report(
            "results/figures/fig4_consistency.png",
            caption="../report/fig4.rst",
            category="Confirmation and Consistency",
        ),
        fig5=report(
            "results/figures/fig5_confirmation_vs_consistency.png",
            caption="../report/fig5.rst",
            category="Confirmation and Consistency",
        ),
    log:
        "logs/figures/all.log",
    conda:
        "../../envs/core.yaml"
    shell:
        "hiremeornot figures --metrics {input:q}"
        " --fig3 {output.fig3:q} --fig4 {output.fig4:q} --fig5 {output.fig5:q} 2> {log:q}"


rule model_statistics:
    input:
        outcomes="results/{model}/outcomes.tsv",
        step3=lambda wc: step_outputs("step3", wc.model),
    output:
        intervals=report(
            "results/{model}/intervals.tsv",
            caption="../report/intervals.rst",
            category="Tests and intervals",
            subcategory="{model}",
        ),
        tests=report(
            "results/{model}/tests.tsv",
            caption="../report/tests.rst",
            category="Tests and intervals",
            subcategory="{model}",
        ),
        position=report(
            "results/{model}/position_bias.tsv",
            caption="../report/position_bias.rst",
            category="Tests and intervals",
            subcategory="{model}",
        ),
    log:
        "logs/model_statistics/{model}.log",
    conda:
        "../../envs/core.yaml"
    params:
        settings=settings(config["report"]),
    shell:
        "hiremeornot statistics --settings {params.settings:q} --outcomes {input.outcomes:q}"
        " --step3 {input.step3:q} --out-intervals {output.intervals:q}"
        " --out-tests {output.tests:q} --out-position {output.position:q} 2> {log:q}"


rule attribute_gaps:
    input:
        "results/{model}/granted.parquet",
    output:
        table=report(
            "results/{model}/attribute_gaps.tsv",
            caption="../report/attribute_gaps_table.rst",
            category="Step 1: attributes",
            subcategory="{model}",
        ),
        png=report(
            "results/figures/attribute_gaps_{model}.png",
            caption="../report/attribute_gaps.rst",
            category="Step 1: attributes",
            subcategory="{model}",
        ),
    log:
        "logs/attribute_gaps/{model}.log",
    conda:
        "../../envs/core.yaml"
    params:
        settings=settings(config["report"]),
    shell:
        "hiremeornot attribute-gaps --settings {params.settings:q} --model {wildcards.model}"
        " --granted {input:q} --out {output.table:q} --out-png {output.png:q} 2> {log:q}"


rule difference_table:
    input:
        metrics="results/{model}/metrics.tsv",
        intervals="results/{model}/intervals.tsv",
        tests="results/{model}/tests.tsv",
        position="results/{model}/position_bias.tsv",
    output:
        tsv=report(
            "results/tables/difference_{model}.tsv",
            caption="../report/difference.rst",
            category="Difference tables",
            subcategory="{model}",
        ),
        md="results/tables/difference_{model}.md",
        png=report(
            "results/tables/difference_{model}.png",
            caption="../report/difference.rst",
            category="Difference tables",
            subcategory="{model}",
        ),
    log:
        "logs/difference_table/{model}.log",
    conda:
        "../../envs/core.yaml"
    params:
        settings=settings(REPORT),
    shell:
        "hiremeornot difference --settings {params.settings:q} --model {wildcards.model}"
        " --metrics {input.metrics:q} --intervals {input.intervals:q} --tests {input.tests:q}"
        " --position {input.position:q} --out-tsv {output.tsv:q} --out-md {output.md:q}"
        " --out-png {output.png:q} 2> {log:q}"


rule summary:
    input:
        metrics=expand("results/{model}/metrics.tsv", model=MODELS),
        tests=expand("results/{model}/tests.tsv", model=MODELS),
        position=expand("results/{model}/position_bias.tsv", model=MODELS),
        manifest="results/manifest.json",
        robustness=robustness_tables(),
    output:
        report(
            "results/summary.md",
            caption="../report/summary.rst",
            category="Summary",
        ),
    log:
        "logs/summary/all.log",
    conda:
        "../../envs/core.yaml"
    params:
        settings=settings({"models": config["models"], "report": REPORT}),
        robustness=lambda wc, input: option("--robustness", input.robustness),
    shell:
        "hiremeornot summary --settings {params.settings:q} --metrics {input.metrics:q}"
        " --tests {input.tests:q} --position {input.position:q} {params.robustness}"
        " --manifest {input.manifest:q} --out {output:q} 2> {log:q}"
