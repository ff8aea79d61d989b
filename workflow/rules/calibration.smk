# A simulated model's planted truth beside every estimate, and the known-answer calibration of
# the design (docs/calibration.md). The calibration is not part of `all`: ask for it,
# `snakemake results/calibration/<model>.md`.


rule truth:
    input:
        **WORKFORCE_INPUTS,
        instances="results/{contrast}dataset/instances.parquet",
        attributes="results/dataset/attributes.tsv",
    output:
        report(
            "results/{contrast}{model}/truth.tsv",
            caption="../report/truth.rst",
            category="Calibration",
            subcategory="{model}",
        ),
    log:
        "logs/truth/{contrast}{model}.log",
    conda:
        "../../envs/core.yaml"
    params:
        contrast=contrast_json,
        settings=lambda wc: json.dumps(
            plan.simulation_settings(config, wc.model), sort_keys=True
        ),
    shell:
        rule_line("truth")


rule calibrate:
    input:
        **WORKFORCE_INPUTS,
        instances="results/{contrast}dataset/instances.parquet",
        attributes="results/dataset/attributes.tsv",
    output:
        tsv="results/{contrast}calibration/{model}.tsv",
        verdicts="results/{contrast}calibration/{model}_verdicts.tsv",
        md="results/{contrast}calibration/{model}.md",
        png=report(
            "results/{contrast}calibration/{model}.png",
            caption="../report/calibration.rst",
            category="Calibration",
            subcategory="{model}",
        ),
    log:
        "logs/calibrate/{contrast}{model}.log",
    conda:
        "../../envs/core.yaml"
    threads: 2
    params:
        contrast=contrast_json,
        settings=lambda wc: json.dumps(
            {**plan.simulation_settings(config, wc.model), "report": config["report"]},
            sort_keys=True,
        ),
    shell:
        rule_line("calibrate")
