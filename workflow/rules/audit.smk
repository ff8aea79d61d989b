from hiremeornot.provenance.manifest import recorded_config


# What produced the numbers: code, environment, config, input hashes, model identities, counts.
rule manifest:
    input:
        onet=plan.onet_dir(config),
        # the files the design was read from (as the dataset job read them, through the list's
        # table)
        read=[
            config["occupations"]["table"],
            *plan.name_list_files(config),
            *perceived_names(),
        ],
        dataset=[
            "results/{contrast}dataset/instances.parquet",
            "results/{contrast}dataset/pairs.tsv",
            "results/dataset/attributes.tsv",
        ],
        tables=every_step_table,
    output:
        report(
            "results/{contrast}manifest.json",
            caption="../report/manifest.rst",
            category="Run manifest",
        ),
    log:
        "logs/manifest/{contrast}all.log",
    conda:
        "../../envs/core.yaml"
    params:
        contrast=contrast_json,
        settings=settings(recorded_config(config)),
        repo=workflow.basedir,
        data_root=data_root_of,
        store_dir=config["store_dir"],
    shell:
        "hiremeornot manifest --contrast {params.contrast:q} --settings {params.settings:q} --repo {params.repo:q}"
        " --data-root {params.data_root:q} --onet-dir {input.onet:q} --inputs {input.read:q}"
        " --dataset {input.dataset:q} --tables {input.tables:q}"
        " --store-dir {params.store_dir:q} --out {output:q} 2> {log:q}"


# Every answer as JSON Lines, one file per model and step, and the datasheet README.md.
rule export:
    input:
        manifest="results/{contrast}manifest.json",
        instances="results/{contrast}dataset/instances.parquet",
        attributes="results/dataset/attributes.tsv",
        tables=every_step_table,
    output:
        jsonl=expand(
            "results/{{contrast}}export/{model}/{step}.jsonl",
            model=MODELS,
            step=["step1", "step2", "step3"],
        ),
        readme=report(
            "results/{contrast}export/README.md",
            caption="../report/export.rst",
            category="Run manifest",
        ),
    log:
        "logs/export/{contrast}all.log",
    conda:
        "../../envs/core.yaml"
    params:
        contrast=contrast_json,
    shell:
        "hiremeornot export --contrast {params.contrast:q} --manifest {input.manifest:q} --tables {input.tables:q}"
        " --instances {input.instances:q} --attributes {input.attributes:q}"
        " --out-dir $(dirname {output.readme:q}) 2> {log:q}"
