import json
import shlex

from hiremeornot import plan
from hiremeornot.errors import InputError

plan.find_commands_beside_this_interpreter()

try:
    plan.check_config(config, source="config")
except InputError as error:
    raise WorkflowError(f"hiremeornot: {error}") from None

MODELS = list(config["models"])


# Cheap rules run on the submitting host, not as cluster jobs (downloads need its internet).
localrules:
    all,
    download_onet,
    download_names,
    attributes,
    dataset,
    granted,
    model_metrics,
    metrics_table,
    model_statistics,
    attribute_gaps,
    figures,
    difference_table,
    summary,
    estimate,


OCCUPATIONS = plan.selected_occupations(config)
SOC_CODES = sorted(set(OCCUPATIONS["soc_code"]))


wildcard_constraints:
    model="|".join(MODELS),
    shard=r"\d+",
    step="step1|step2|step3",


def settings(value):
    """A params value: deterministic JSON, kept out of Snakemake's wildcard formatting."""
    return lambda wildcards: json.dumps(value, sort_keys=True)


def shards(model, step):
    """The shard numbers of a model's step: step1_shards for Step 1, occupation shards else."""
    if step == "step1":
        return range(config["models"][model]["step1_shards"])
    return range(plan.shard_count(config, model))


def step_outputs(step, model):
    return expand(
        f"results/{{model}}/{step}/shard-{{shard}}.parquet",
        model=model,
        shard=shards(model, step),
    )


def step_inputs(wildcards):
    """Step 1 reads the plan; Steps 2 and 3 read it and the model's Step-1 answers by key."""
    inputs = {"instances": "results/dataset/instances.parquet"}
    if wildcards.step == "step1":
        inputs["attributes"] = "results/dataset/attributes.tsv"
    else:
        inputs["granted"] = f"results/{wildcards.model}/granted.parquet"
    return inputs


def step_input_options(wildcards, input):
    """--attributes FILE for Step 1, --granted FILE for Steps 2 and 3."""
    if wildcards.step == "step1":
        return f"--attributes {shlex.quote(input.attributes)}"
    return f"--granted {shlex.quote(input.granted)}"


def get_final_output():
    return [
        "results/summary.md",
        "results/metrics.tsv",
        "results/figures/fig3_confirmation.png",
        "results/figures/fig4_consistency.png",
        "results/figures/fig5_confirmation_vs_consistency.png",
        *expand(
            "results/tables/difference_{model}.{ext}",
            model=MODELS,
            ext=["tsv", "md", "png"],
        ),
        *expand("results/{model}/position_bias.tsv", model=MODELS),
        *expand("results/figures/attribute_gaps_{model}.png", model=MODELS),
    ]
