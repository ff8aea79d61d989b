# A model's numbers: Confirmation and Consistency, the tests and intervals, the attribute gaps,
# the pooled model, the answer space, the non-answers and the findings (every verdict and design
# fact, as data).


rule model_metrics:
    input:
        instances="results/{contrast}dataset/instances.parquet",
        step2=lambda wc: step_outputs(wc.contrast, "step2", wc.model),
        step3=lambda wc: step_outputs(wc.contrast, "step3", wc.model),
    output:
        outcomes="results/{contrast}{model}/outcomes.tsv",
        metrics="results/{contrast}{model}/metrics.tsv",
        by_order=report(
            "results/{contrast}{model}/difference_by_order.tsv",
            caption="../report/difference_by_order.rst",
            category="Tests and intervals",
            subcategory="{model}",
        ),
    log:
        "logs/model_metrics/{contrast}{model}.log",
    conda:
        "../../envs/core.yaml"
    params:
        sides=contrast_sides,
        contrast=contrast_json,
        settings=settings({"difference": config["report"]["difference"]}),
    shell:
        rule_line("metrics")


rule metrics_table:
    input:
        expand("results/{{contrast}}{model}/metrics.tsv", model=MODELS),
    output:
        report(
            "results/{contrast}metrics.tsv",
            caption="../report/metrics.rst",
            category="Confirmation and Consistency",
        ),
    log:
        "logs/metrics_table/{contrast}all.log",
    conda:
        "../../envs/core.yaml"
    params:
        sides=contrast_sides,
    shell:
        rule_line("gather")


rule model_statistics:
    input:
        outcomes="results/{contrast}{model}/outcomes.tsv",
        step3=lambda wc: step_outputs(wc.contrast, "step3", wc.model),
    output:
        intervals=report(
            "results/{contrast}{model}/intervals.tsv",
            caption="../report/intervals.rst",
            category="Tests and intervals",
            subcategory="{model}",
        ),
        tests=report(
            "results/{contrast}{model}/tests.tsv",
            caption="../report/tests.rst",
            category="Tests and intervals",
            subcategory="{model}",
        ),
        position=report(
            "results/{contrast}{model}/position_bias.tsv",
            caption="../report/position_bias.rst",
            category="Tests and intervals",
            subcategory="{model}",
        ),
    log:
        "logs/model_statistics/{contrast}{model}.log",
    conda:
        "../../envs/core.yaml"
    params:
        sides=contrast_sides,
        contrast=contrast_json,
        settings=settings(plan.analysis_settings(config)),
    shell:
        rule_line("statistics")


rule attribute_gaps:
    input:
        granted="results/{contrast}{model}/granted.parquet",
        findings="results/{contrast}{model}/findings.tsv",
    output:
        table=report(
            "results/{contrast}{model}/attribute_gaps.tsv",
            caption="../report/attribute_gaps_table.rst",
            category="Step 1: attributes",
            subcategory="{model}",
        ),
        png=report(
            "results/{contrast}figures/attribute_gaps_{model}.png",
            caption="../report/attribute_gaps.rst",
            category="Step 1: attributes",
            subcategory="{model}",
        ),
    log:
        "logs/attribute_gaps/{contrast}{model}.log",
    conda:
        "../../envs/core.yaml"
    params:
        sides=contrast_sides,
        contrast=contrast_json,
        settings=settings(REPORT),
    shell:
        rule_line("attribute-gaps")


rule pooled_model:
    input:
        instances="results/{contrast}dataset/instances.parquet",
        step2=lambda wc: step_outputs(wc.contrast, "step2", wc.model),
        step3=lambda wc: step_outputs(wc.contrast, "step3", wc.model),
    output:
        report(
            "results/{contrast}{model}/pooled.tsv",
            caption="../report/pooled.rst",
            category="Tests and intervals",
            subcategory="{model}",
        ),
    log:
        "logs/pooled_model/{contrast}{model}.log",
    conda:
        "../../envs/core.yaml"
    params:
        contrast=contrast_json,
        settings=settings(
            {key: config["report"][key] for key in ("confidence", "alpha")}
        ),
    shell:
        rule_line("pooled")


rule answer_space:
    input:
        lambda wc: model_step_tables(wc.contrast, wc.model),
    output:
        report(
            "results/{contrast}{model}/answer_space.tsv",
            caption="../report/answer_space.rst",
            category="Tests and intervals",
            subcategory="{model}",
        ),
    log:
        "logs/answer_space/{contrast}{model}.log",
    conda:
        "../../envs/core.yaml"
    shell:
        rule_line("answer-space")


rule non_answers:
    input:
        step1=lambda wc: step_outputs(wc.contrast, "step1", wc.model),
        step2=lambda wc: step_outputs(wc.contrast, "step2", wc.model),
        step3=lambda wc: step_outputs(wc.contrast, "step3", wc.model),
    output:
        report(
            "results/{contrast}{model}/non_answers.tsv",
            caption="../report/non_answers.rst",
            category="Tests and intervals",
            subcategory="{model}",
        ),
    log:
        "logs/non_answers/{contrast}{model}.log",
    conda:
        "../../envs/core.yaml"
    params:
        contrast=contrast_json,
        settings=settings({"confidence": config["report"]["confidence"]}),
    shell:
        rule_line("non-answers")


# A model's verdicts and design facts as data (analysis/findings.py): what the summary and the
# difference tables phrase.
rule findings:
    input:
        metrics="results/{contrast}{model}/metrics.tsv",
        tests="results/{contrast}{model}/tests.tsv",
        position="results/{contrast}{model}/position_bias.tsv",
        answer_space="results/{contrast}{model}/answer_space.tsv",
        non_answers="results/{contrast}{model}/non_answers.tsv",
    output:
        report(
            "results/{contrast}{model}/findings.tsv",
            caption="../report/findings.rst",
            category="Tests and intervals",
            subcategory="{model}",
        ),
    log:
        "logs/findings/{contrast}{model}.log",
    conda:
        "../../envs/core.yaml"
    params:
        contrast=contrast_json,
        settings=lambda wc: json.dumps(
            {
                "report": {key: REPORT[key] for key in ("alpha", "wordings")},
                "model": {
                    key: config["models"][wc.model][key]
                    for key in ("backend", "model", "answers_mode")
                },
            },
            sort_keys=True,
        ),
    shell:
        rule_line("findings")
