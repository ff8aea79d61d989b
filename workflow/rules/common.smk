import json
import shlex

from hiremeornot import plan
from hiremeornot.errors import InputError

try:
    plan.check_config(config, source="config")
except InputError as error:
    raise WorkflowError(f"hiremeornot: {error}") from None

MODELS = list(config["models"])
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
    inputs = {"instances": "results/dataset/instances.parquet"}
    if wildcards.step == "step1":
        inputs["attributes"] = "results/dataset/attributes.tsv"
    else:
        inputs["step1"] = (
            f"results/{wildcards.model}/step1/shard-{wildcards.shard}.parquet"
        )
    return inputs


def previous_step_option(wildcards, input):
    """--attributes FILE for Step 1, --step1 FILE for Steps 2 and 3."""
    key = "attributes" if wildcards.step == "step1" else "step1"
    return f"--{key} {shlex.quote(input[key])}"


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
    ]
