# Used only when local_data is null: fetch the public inputs into results/downloads/.


rule download_onet:
    output:
        directory(f"{plan.DOWNLOADS}/onet/{{release}}"),
    log:
        "logs/download_onet/{release}.log",
    conda:
        "../../envs/core.yaml"
    params:
        settings=settings(config["sources"]["onet"]),
    shell:
        rule_line("download-onet")


# The files of the name list in use, in its repository's layout, from its pinned commit.
rule download_names:
    output:
        [f"{plan.DOWNLOADS}/{path}" for path in name_files(plan.name_source(config))],
    log:
        f"logs/download_names/{config['names']['list']}.log",
    conda:
        "../../envs/core.yaml"
    params:
        settings=settings(
            {
                "url": plan.name_source(config)["url"],
                "files": list(FORMAT_FILES[plan.name_source(config)["format"]]),
            }
        ),
        out=lambda wc, output: plan.root_above(
            output[0], FORMAT_FILES[plan.name_source(config)["format"]][0]
        ),
    shell:
        rule_line("download-names")


# The default share table of who holds each job (workforce.shares null).
rule download_workforce:
    output:
        f"{plan.DOWNLOADS}/{plan.WORKFORCE_FILE}",
    log:
        "logs/download_workforce/all.log",
    conda:
        "../../envs/core.yaml"
    params:
        settings=settings({"url": config["workforce"]["url"]}),
    shell:
        rule_line("download-workforce")
