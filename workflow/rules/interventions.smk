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
        base_results=lambda wc: f"results/{wc.contrast}{wc.model}",
        arm_results=arm_folder,
        base_selections=input_or_nothing("base_selections"),
        arm_selections=input_or_nothing("arm_selections"),
    shell:
        rule_line("intervention")
