# One job reads the O*NET files once for every selected occupation (a second or two of work).
rule attributes:
    input:
        onet=plan.onet_dir(config),
    output:
        "results/dataset/attributes.tsv",
    log:
        "logs/attributes/all.log",
    conda:
        "../../envs/core.yaml"
    params:
        # the release too: a changed release re-extracts (its folder is the input, and
        # Snakemake does not re-run a job whose input path alone changed)
        settings=settings(
            {
                **config["attributes"],
                **config["onet"],
                "release": config["sources"]["onet"]["release"],
            }
        ),
        soc_codes=" ".join(SOC_CODES),
    shell:
        "hiremeornot attributes --settings {params.settings:q} --onet-dir {input.onet:q}"
        " --soc-codes {params.soc_codes} --out {output:q} 2> {log:q}"


# The name list read once, for the dataset, names and selections jobs.
rule name_list:
    input:
        names=plan.name_list_files(config),
    output:
        "results/dataset/names.parquet",
    log:
        "logs/name_list/all.log",
    conda:
        "../../envs/core.yaml"
    params:
        settings=settings(
            {
                "list": config["names"]["list"],
                "source": plan.name_reading(config),
                "answers": config["answers"],
            }
        ),
        data_root=names_root_of,
    shell:
        "hiremeornot name-list --settings {params.settings:q} --data-root {params.data_root:q}"
        " --out {output:q} 2> {log:q}"


# One per contrast: the pairs of its two groups (names.contrast) and their instances.
rule dataset:
    input:
        occupations=config["occupations"]["table"],
        names="results/dataset/names.parquet",
        perceived=perceived_names(),
    output:
        pairs="results/{contrast}dataset/pairs.tsv",
        capacity="results/{contrast}dataset/capacity.json",
        instances="results/{contrast}dataset/instances.parquet",
    log:
        "logs/dataset/{contrast}all.log",
    conda:
        "../../envs/core.yaml"
    params:
        settings=lambda wc: json.dumps(
            {
                **plan.pairing_settings(config),
                "orders": plan.listing_orders(config, CONTRASTS[wc.contrast].sides),
                "select": config["occupations"]["select"],
            },
            sort_keys=True,
        ),
        contrast=contrast_json,
        perceived=lambda wc, input: option("--perceived", input.perceived),
    shell:
        "hiremeornot dataset --settings {params.settings:q} --contrast {params.contrast:q}"
        " {params.perceived}"
        " --occupations {input.occupations:q} --names {input.names:q}"
        " --out-pairs {output.pairs:q} --out-capacity {output.capacity:q}"
        " --out {output.instances:q} 2> {log:q}"
