# Not part of `all`: ask for it, e.g. `snakemake results/compare/<A>_vs_<B>.md` for two models of
# this config (docs/compare.md; two result folders of one model: `hiremeornot compare`).
rule compare:
    input:
        a_tables=lambda wc: model_step_tables(wc.contrast, wc.a),
        b_tables=lambda wc: model_step_tables(wc.contrast, wc.b),
        a_outcomes="results/{contrast}{a}/outcomes.tsv",
        b_outcomes="results/{contrast}{b}/outcomes.tsv",
        a_granted="results/{contrast}{a}/granted.parquet",
        b_granted="results/{contrast}{b}/granted.parquet",
    output:
        md="results/{contrast}compare/{a}_vs_{b}.md",
        tsv="results/{contrast}compare/{a}_vs_{b}.tsv",
        changed="results/{contrast}compare/{a}_vs_{b}_changed.tsv",
        png=report(
            "results/{contrast}compare/{a}_vs_{b}.png",
            caption="../report/compare.rst",
            category="Comparisons",
        ),
    log:
        "logs/compare/{contrast}{a}_vs_{b}.log",
    wildcard_constraints:
        a="|".join(re.escape(model) for model in MODELS),
        b="|".join(re.escape(model) for model in MODELS),
    conda:
        "../../envs/core.yaml"
    params:
        contrast=contrast_json,
        settings=settings(plan.analysis_settings(config)),
    shell:
        rule_line("compare")
