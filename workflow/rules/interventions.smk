# With interventions (interventions.run): each arm, the model <model>+<id> of common.smk, set
# against its baseline <model> (docs/method.md#interventions). The arm's own results are every
# model's, under results/<contrast><model>+<id>/.


rule intervention:
    input:
        unpack(arm_selections),
        base_tables=lambda wc: model_step_tables(wc.contrast, wc.model),
        arm_tables=lambda wc: model_step_tables(
            wc.contrast, arms.arm_model(wc.model, wc.arm)
        ),
        base=expand(
            "results/{{contrast}}{{model}}/{table}",
            table=["outcomes.tsv", "granted.parquet", "tests.tsv", "intervals.tsv"],
        ),
        arm=lambda wc: [
            f"{arm_folder(wc)}/{table}"
            for table in [
                "outcomes.tsv",
                "granted.parquet",
                "tests.tsv",
                "intervals.tsv",
                "findings.tsv",  # its caveats, in the figure's footer
            ]
        ],
    output:
        md="results/{contrast}interventions/{model}+{arm}.md",
        tsv=report(
            "results/{contrast}interventions/{model}+{arm}.tsv",
            caption="../report/intervention_table.rst",
            category="Interventions",
            subcategory="{model}+{arm}",
        ),
        rates=report(
            "results/{contrast}interventions/{model}+{arm}_rates.tsv",
            caption="../report/intervention_rates.rst",
            category="Interventions",
            subcategory="{model}+{arm}",
        ),
        flips="results/{contrast}interventions/{model}+{arm}_flips.tsv",
        changed="results/{contrast}interventions/{model}+{arm}_changed.tsv",
        png=report(
            "results/{contrast}interventions/{model}+{arm}.png",
            caption="../report/intervention_figure.rst",
            category="Interventions",
            subcategory="{model}+{arm}",
        ),
    log:
        "logs/intervention/{contrast}{model}+{arm}.log",
    wildcard_constraints:
        model="|".join(re.escape(model) for model in AUDITED),
        arm="|".join(ARMS) or "(?!)",
    conda:
        "../../envs/core.yaml"
    params:
        contrast=contrast_json,
        settings=lambda wc: json.dumps(
            {
                "report": plan.analysis_settings(config),
                "wordings": WORDINGS,
                "instruction": config["interventions"]["instructions"][wc.arm],
            },
            sort_keys=True,
        ),
        arm_results=arm_folder,
        selections=lambda wc, input: (
            f"--base-selections {shlex.quote(input.base_selections)}"
            f" --arm-selections {shlex.quote(input.arm_selections)}"
            if "base_selections" in input.keys()
            else ""
        ),
    shell:
        "hiremeornot intervention --contrast {params.contrast:q} --settings {params.settings:q}"
        " --model {wildcards.model} --arm {wildcards.arm}"
        " --base-results results/{wildcards.contrast}{wildcards.model} --base-tables {input.base_tables:q}"
        " --arm-results {params.arm_results:q} --arm-tables {input.arm_tables:q} {params.selections}"
        " --out-md {output.md:q} --out-tsv {output.tsv:q} --out-rates {output.rates:q}"
        " --out-flips {output.flips:q} --out-changed {output.changed:q} --out-png {output.png:q} 2> {log:q}"
