# One job reads the O*NET files once for every selected occupation (a second or two of work).
rule attributes:
    input:
        onet_dir=plan.onet_dir(config),
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
        soc_codes=SOC_CODES,
    shell:
        rule_line("attributes")


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
        rule_line("name-list")


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
    shell:
        rule_line("dataset")
