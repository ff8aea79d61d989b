rule ask_model:
    input:
        unpack(step_inputs),
    output:
        tables=expand(
            step_table("{{model}}", "{{step}}", "{wording}", "{{shard}}"),
            wording=WORDINGS,
        ),
        record=job_record("{model}", "{step}", "{shard}"),
    log:
        "logs/ask_model/{model}/{step}/shard-{shard}.log",
    conda:
        lambda wc: plan.conda_env(config, wc.model)
    threads: lambda wc: config["models"][wc.model]["threads"]
    resources:
        mem_mb=lambda wc: config["models"][wc.model]["mem_mb"],
        runtime=lambda wc: config["models"][wc.model]["runtime"],
        gpu=lambda wc: config["models"][wc.model]["gpus"],
        gpu_model=lambda wc: config["models"][wc.model]["gpu_model"],
    params:
        settings=lambda wc: json.dumps(
            plan.step_settings(config, wc.model, wc.step), sort_keys=True
        ),
        step1=step1_tables,
        wordings=output_wordings,
        store_dir=config["store_dir"],
    shell:
        "OMP_NUM_THREADS={threads} hiremeornot step --step {wildcards.step}"
        " --model {wildcards.model} --shard {wildcards.shard} --settings {params.settings:q}"
        " --instances {input.instances:q} --attributes {input.attributes:q} {params.step1}"
        " --store-dir {params.store_dir:q} --wordings {params.wordings}"
        " --out {output.tables:q} --record {output.record:q} 2> {log:q}"


# Every instance's Step-1 answers, joined by key once per model, for the attribute gaps.
rule granted:
    input:
        instances="results/dataset/instances.parquet",
        attributes="results/dataset/attributes.tsv",
        step1=lambda wc: step_outputs("step1", wc.model),
    output:
        "results/{model}/granted.parquet",
    log:
        "logs/granted/{model}.log",
    conda:
        "../../envs/core.yaml"
    shell:
        "hiremeornot granted --instances {input.instances:q} --attributes {input.attributes:q}"
        " --step1 {input.step1:q} --out {output:q} 2> {log:q}"


# Not part of `all`: ask for it before a paid run (see README, "Cost controls").
rule estimate:
    input:
        instances="results/dataset/instances.parquet",
        attributes="results/dataset/attributes.tsv",
    output:
        tsv="results/estimate.tsv",
        md="results/estimate.md",
    log:
        "logs/estimate/all.log",
    conda:
        "../../envs/core.yaml"
    params:
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
        "hiremeornot estimate --settings {params.settings:q} --instances {input.instances:q}"
        " --attributes {input.attributes:q} --store-dir {params.store_dir:q}"
        " --out-tsv {output.tsv:q} --out-md {output.md:q} 2> {log:q} && cat {output.md:q}"
