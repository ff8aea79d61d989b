rule model_metrics:
    input:
        step2=lambda wc: step_outputs("step2", wc.model),
        step3=lambda wc: step_outputs("step3", wc.model),
    output:
        instances="results/{model}/outcomes.tsv",
        metrics="results/{model}/metrics.tsv",
    log:
        "logs/model_metrics/{model}.log",
    conda:
        "../../envs/core.yaml"
    shell:
        "hiremeornot metrics --model {wildcards.model} --step2 {input.step2:q}"
        " --step3 {input.step3:q} --out-instances {output.instances:q}"
        " --out {output.metrics:q} 2> {log:q}"


rule figures:
    input:
        expand("results/{model}/metrics.tsv", model=MODELS),
    output:
        table="results/metrics.tsv",
        fig3=report(
            "results/figures/fig3_confirmation.png",
            caption="../report/fig3.rst",
            category="Figures",
        ),
        fig4=report(
            "results/figures/fig4_consistency.png",
            caption="../report/fig4.rst",
            category="Figures",
        ),
        fig5=report(
            "results/figures/fig5_confirmation_vs_consistency.png",
            caption="../report/fig5.rst",
            category="Figures",
        ),
    log:
        "logs/figures/all.log",
    conda:
        "../../envs/core.yaml"
    shell:
        "hiremeornot figures --metrics {input:q} --out-table {output.table:q}"
        " --fig3 {output.fig3:q} --fig4 {output.fig4:q} --fig5 {output.fig5:q} 2> {log:q}"


rule difference_table:
    input:
        "results/{model}/metrics.tsv",
    output:
        tsv="results/tables/difference_{model}.tsv",
        md="results/tables/difference_{model}.md",
        png=report(
            "results/tables/difference_{model}.png",
            caption="../report/difference.rst",
            category="Difference tables",
        ),
    log:
        "logs/difference_table/{model}.log",
    conda:
        "../../envs/core.yaml"
    params:
        settings=settings(config["report"]),
    shell:
        "hiremeornot difference --settings {params.settings:q} --model {wildcards.model}"
        " --metrics {input:q} --out-tsv {output.tsv:q} --out-md {output.md:q}"
        " --out-png {output.png:q} 2> {log:q}"


rule summary:
    input:
        expand("results/{model}/metrics.tsv", model=MODELS),
    output:
        "results/summary.md",
    log:
        "logs/summary/all.log",
    conda:
        "../../envs/core.yaml"
    params:
        settings=settings({"models": config["models"], **config["report"]}),
    shell:
        "hiremeornot summary --settings {params.settings:q} --metrics {input:q}"
        " --out {output:q} 2> {log:q}"
