rule occupation_attributes:
    input:
        onet=plan.onet_dir(config),
    output:
        "results/attributes/{soc}.tsv",
    log:
        "logs/occupation_attributes/{soc}.log",
    conda:
        "../../envs/core.yaml"
    params:
        settings=settings({**config["attributes"], **config["onet"]}),
    shell:
        "hiremeornot attributes --settings {params.settings:q} --onet-dir {input.onet:q}"
        " --soc-code {wildcards.soc} --out {output:q} 2> {log:q}"


rule gather_attributes:
    input:
        expand("results/attributes/{soc}.tsv", soc=SOC_CODES),
    output:
        "results/dataset/attributes.tsv",
    log:
        "logs/gather_attributes/all.log",
    conda:
        "../../envs/core.yaml"
    shell:
        "hiremeornot gather --inputs {input:q} --out {output:q} 2> {log:q}"


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
            {**config["names"], "select": config["occupations"]["select"]}
        ),
    shell:
        "hiremeornot dataset --settings {params.settings:q} --occupations {input.occupations:q}"
        " --names-dir $(dirname {input.female:q}) --out-pairs {output.pairs:q}"
        " --out {output.instances:q} 2> {log:q}"
