# The record of a run: its manifest (what produced the numbers, from what) and the export of
# every question and answer for a third party.

from hiremeornot.provenance.manifest import recorded_config


# What produced the numbers: code, environment, config, input hashes, model identities, counts.
rule manifest:
    input:
        onet_dir=plan.onet_dir(config),
        # the files the design was read from (as the dataset job read them, through the list's
        # table), and the workforce's share table and crosswalk where the contrast is aligned
        inputs=lambda wc: [
            config["occupations"]["table"],
            *plan.name_list_files(config),
            *perceived_names(),
            *(path for paths in WORKFORCE_INPUTS.values() for path in paths(wc)),
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
        rule_line("manifest")


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
        out_dir=lambda wc, output: str(Path(output.readme).parent),
    shell:
        rule_line("export")
