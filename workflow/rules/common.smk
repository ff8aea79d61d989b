import json
import shlex

from hiremeornot import plan
from hiremeornot.errors import InputError

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
    gather_attributes,
    model_metrics,
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
    soc=r"\d\d-\d{4}\.\d\d",
    step="step1|step2|step3",


def settings(value):
    """A params value: deterministic JSON, kept out of Snakemake's wildcard formatting."""
    return lambda wildcards: json.dumps(value, sort_keys=True)


def shards(model):
    return range(plan.shard_count(config, model))


def step_outputs(step, model):
    return expand(
        f"results/{{model}}/{step}/shard-{{shard}}.parquet",
        model=model,
        shard=shards(model),
    )


def step_inputs(wildcards):
    """Step 1 reads the plan; Steps 2 and 3 also read every Step-1 shard of the model."""
    inputs = {
        "instances": "results/dataset/instances.parquet",
        "attributes": "results/dataset/attributes.tsv",
    }
    if wildcards.step != "step1":
        inputs["step1"] = step_outputs("step1", wildcards.model)
    return inputs


def step1_option(wildcards, input):
    """--step1 FILE... for Steps 2 and 3."""
    if wildcards.step == "step1":
        return ""
    return "--step1 " + " ".join(shlex.quote(path) for path in input.step1)


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
