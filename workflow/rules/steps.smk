# The model jobs: each step's questions asked of a model (one job per model, step and shard),
# the Step-1 answers joined per model, and the cost estimate before a paid run.


rule ask_model:
    input:
        unpack(step_inputs),
    output:
        tables=expand(
            step_table(
                "{{contrast}}", "{{model}}", "{{step}}", "{wording}", "{{shard}}"
            ),
            wording=WORDINGS,
        ),
        record=job_record("{contrast}", "{model}", "{step}", "{shard}"),
    log:
        "logs/ask_model/{contrast}{model}/{step}/shard-{shard}.log",
    conda:
        lambda wc: plan.conda_env(config, wc.model)
    threads: model_setting("threads")
    resources:
        **MODEL_JOB_RESOURCES,
    params:
        command=lambda wc: plan.command(config, wc.model),
        contrast=contrast_json,
        settings=lambda wc: json.dumps(
            plan.step_settings(config, wc.model, wc.step), sort_keys=True
        ),
        step1=step1_tables,
        store_dir=config["store_dir"],
        progress="logs/progress/{contrast}{model}/{step}-shard-{shard}.json",
    shell:
        rule_line("step", program="OMP_NUM_THREADS={threads} {params.command}")


# Every instance's Step-1 answers, joined by key once per model, for the attribute gaps.
rule granted:
    input:
        instances="results/{contrast}dataset/instances.parquet",
        attributes="results/dataset/attributes.tsv",
        step1=lambda wc: step_outputs(wc.contrast, "step1", wc.model),
    output:
        "results/{contrast}{model}/granted.parquet",
    log:
        "logs/granted/{contrast}{model}.log",
    conda:
        "../../envs/core.yaml"
    params:
        contrast=contrast_json,
    shell:
        rule_line("granted")


# Not part of `all`: ask for it before a paid run (docs/backends/openai.md, "Cost controls").
# results/estimate.md is the whole run's: the contrast's own for the paper's audit, else every
# contrast's (run_estimate below).
rule estimate:
    input:
        instances="results/{contrast}dataset/instances.parquet",
        capacity="results/{contrast}dataset/capacity.json",
        attributes="results/dataset/attributes.tsv",
    output:
        tsv="results/{contrast}estimate.tsv",
        md="results/{contrast}estimate.md",
    log:
        "logs/estimate/{contrast}all.log",
    conda:
        "../../envs/core.yaml"
    params:
        contrast=contrast_json,
        settings=settings(
            {
                "models": {
                    model: {
                        step: plan.step_settings(config, model, step)
                        for step in ["step1", "step2", "step3"]
                    }
                    for model in MODELS
                },
                "report": config["report"],
                "wordings": WORDINGS,
            }
        ),
        store_dir=config["store_dir"],
    shell:
        rule_line("estimate") + " && cat {output.md:q}"


if "" not in CONTRASTS:

    localrules:
        run_estimate,

    rule run_estimate:
        input:
            tsv=[f"results/{prefix}estimate.tsv" for prefix in CONTRASTS],
            md=[f"results/{prefix}estimate.md" for prefix in CONTRASTS],
        output:
            tsv="results/estimate.tsv",
            md="results/estimate.md",
        log:
            "logs/estimate/run.log",
        conda:
            "../../envs/core.yaml"
        params:
            **keyed_params(
                "run-estimate",
                {
                    ext: {
                        c.label: f"results/{prefix}estimate.{ext}"
                        for prefix, c in CONTRASTS.items()
                    }
                    for ext in ("tsv", "md")
                },
            ),
        shell:
            rule_line("run-estimate") + " && cat {output.md:q}"
