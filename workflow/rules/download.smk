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
        "hiremeornot download-onet --settings {params.settings:q} --out {output:q} 2> {log:q}"


rule download_names:
    output:
        female=f"{plan.DOWNLOADS}/{{names}}/word_lists/nouns/subjects/female",
        male=f"{plan.DOWNLOADS}/{{names}}/word_lists/nouns/subjects/male",
    log:
        "logs/download_names/{names}.log",
    conda:
        "../../envs/core.yaml"
    params:
        settings=lambda wc: json.dumps({"url": config["sources"]["names"][wc.names]}),
    shell:
        "hiremeornot download-names --settings {params.settings:q}"
        " --out $(dirname {output.female:q}) 2> {log:q}"
