from hiremeornot.manifest import recorded_config


# What produced the numbers: code, environment, config, input hashes, model identities, counts.
rule manifest:
    input:
        onet=plan.onet_dir(config),
        read=rules.dataset.input,
        dataset=[
            "results/dataset/instances.parquet",
            "results/dataset/pairs.tsv",
            "results/dataset/attributes.tsv",
        ],
        tables=every_step_table(),
    output:
        report(
            "results/manifest.json",
            caption="../report/manifest.rst",
            category="Run manifest",
        ),
    log:
        "logs/manifest/all.log",
    conda:
        "../../envs/core.yaml"
    params:
        settings=settings(recorded_config(config)),
        repo=workflow.basedir,
        data_root=data_root_of,
        store_dir=config["store_dir"],
    shell:
        "hiremeornot manifest --settings {params.settings:q} --repo {params.repo:q}"
        " --data-root {params.data_root:q} --onet-dir {input.onet:q} --inputs {input.read:q}"
        " --dataset {input.dataset:q} --tables {input.tables:q}"
        " --store-dir {params.store_dir:q} --out {output:q} 2> {log:q}"


# Every answer as JSON Lines, one file per model and step, and the datasheet README.md.
rule export:
    input:
        manifest="results/manifest.json",
        instances="results/dataset/instances.parquet",
        attributes="results/dataset/attributes.tsv",
        tables=every_step_table(),
    output:
        jsonl=expand(
            "results/export/{model}/{step}.jsonl",
            model=MODELS,
            step=["step1", "step2", "step3"],
        ),
        readme=report(
            "results/export/README.md",
            caption="../report/export.rst",
            category="Run manifest",
        ),
    log:
        "logs/export/all.log",
    conda:
        "../../envs/core.yaml"
    shell:
        "hiremeornot export --manifest {input.manifest:q} --tables {input.tables:q}"
        " --instances {input.instances:q} --attributes {input.attributes:q}"
        " --out-dir $(dirname {output.readme:q}) 2> {log:q}"
