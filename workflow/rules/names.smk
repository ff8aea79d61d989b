# names.validate: what each model reads in each name of the list (docs/names.md#validity).


# A model job: every name's questions, asked once per model and kept in the store.
rule validate_names:
    input:
        names="results/dataset/names.parquet",
    output:
        "results/names/{model}.tsv",
    log:
        "logs/validate_names/{model}.log",
    conda:
        lambda wc: plan.conda_env(config, wc.model)
    threads: model_setting("threads")
    resources:
        **MODEL_JOB_RESOURCES,
    params:
        command=lambda wc: plan.command(config, wc.model),
        settings=lambda wc: json.dumps(
            plan.validity_settings(config, wc.model), sort_keys=True
        ),
        store_dir=config["store_dir"],
    shell:
        rule_line(
            "validate-names", program="OMP_NUM_THREADS={threads} {params.command}"
        )


rule name_validity:
    input:
        list(validity_tables().values()),
    output:
        report(
            "results/names/validity.md",
            caption="../report/name_validity.rst",
            category="Names",
        ),
    log:
        "logs/name_validity/all.log",
    conda:
        "../../envs/core.yaml"
    params:
        settings=settings({"drop_misperceived": config["names"]["drop_misperceived"]}),
        tables=keyed(validity_tables()),
    shell:
        rule_line("name-validity")
