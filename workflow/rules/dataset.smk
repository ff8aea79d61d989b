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
        settings=settings({**config["attributes"], **config["onet"]}),
        soc_codes=" ".join(SOC_CODES),
    shell:
        "hiremeornot attributes --settings {params.settings:q} --onet-dir {input.onet:q}"
        " --soc-codes {params.soc_codes} --out {output:q} 2> {log:q}"


rule dataset:
    input:
        occupations=config["occupations"]["table"],
        female=f"{plan.names_dir(config)}/female",
        male=f"{plan.names_dir(config)}/male",
    output:
        pairs="results/dataset/pairs.tsv",
        instances="results/dataset/instances.parquet",
    log:
        "logs/dataset/all.log",
    conda:
        "../../envs/core.yaml"
    params:
        settings=settings(
            {
                **config["names"],
                "select": config["occupations"]["select"],
                "answers": config["answers"],
            }
        ),
    shell:
        "hiremeornot dataset --settings {params.settings:q} --occupations {input.occupations:q}"
        " --names-dir $(dirname {input.female:q}) --out-pairs {output.pairs:q}"
        " --out {output.instances:q} 2> {log:q}"
