import json
import re
import sys
import time
from pathlib import Path

from hiremeornot import arms, checks, placement, plan, tables_io
from hiremeornot.cli.rule_lines import keyed_options, rule_line
from hiremeornot.config import models_merged_in
from hiremeornot.errors import InputError
from hiremeornot.inputs.names import FORMAT_FILES, name_files

plan.find_commands_beside_this_interpreter()

try:
    for warning in checks.check_config_files(workflow.configfiles, sys.argv):
        logger.warning(f"hiremeornot: {warning}")
    merged = models_merged_in(config.get("models", {}), workflow.overwrite_configfiles)
    if merged and workflow.is_main_process:
        logger.warning(f"hiremeornot: {merged}")
    checks.check_config(config, source="config")
    if workflow.is_main_process:
        for warning in checks.config_warnings(config):
            logger.warning(f"hiremeornot: {warning}")
        for message in tables_io.set_aside_damaged_tables("results"):
            logger.warning(f"hiremeornot: {message}")
except InputError as error:
    raise WorkflowError(f"hiremeornot: {error}") from None

# The config's models, then each one's arm under every intervention run (<model>+<id>: a model
# of its own under results/ and in the store, its settings carrying the instruction).
RUN_STARTED = time.time()  # the closing block counts the model jobs since
try:  # a planted alignment's shares of women, from the workforce block
    config["models"] = plan.with_planted_shares(config)
except InputError as error:
    raise WorkflowError(f"hiremeornot: {error}") from None
AUDITED = list(config["models"])
ARMS = arms.intervention_arms(config)
config["models"] = arms.with_arms(config)
MODELS = list(config["models"])
SIMULATED = plan.simulated_models(config["models"])
try:  # the targets asked for on the command line (Snakemake has not parsed them yet)
    if workflow.is_main_process:
        placement.check_targets(sys.argv[1:], MODELS, SIMULATED)
except InputError as error:
    raise WorkflowError(f"hiremeornot: {error}") from None
# The contrasts by the prefix of their results under results/: "" for the paper's female vs
# male audit of a gender-only list, contrasts/<id>/ for each otherwise (names.contrast).
CONTRASTS = plan.run_contrasts(config)
NAMED = plan.named_contrasts(config)  # less the neutral control (control.neutral)
WORDINGS = config["prompts"]["variants"]
# The report's settings and the wordings it pools (its caveats name them).
REPORT = {**plan.analysis_settings(config), "wordings": WORDINGS}


# Cheap rules run on the submitting host, not as cluster jobs (downloads need its internet).
localrules:
    all,
    download_onet,
    download_names,
    download_workforce,
    alignment,
    attributes,
    name_list,
    dataset,
    granted,
    model_metrics,
    metrics_table,
    model_statistics,
    attribute_gaps,
    figures,
    difference_table,
    summary,
    answer_space,
    non_answers,
    findings,
    pooled_model,
    estimate,
    wording_robustness,
    manifest,
    export,
    compare,
    intervention,
    selections,
    impact_ratios,
    ll144,
    overview,
    first_page,
    name_validity,
    truth,


OCCUPATIONS = plan.selected_occupations(config)
SOC_CODES = sorted(set(OCCUPATIONS["soc_code"]))


wildcard_constraints:
    contrast=f"({'|'.join(re.escape(prefix) for prefix in CONTRASTS)})",
    model="|".join(re.escape(model) for model in MODELS),
    shard=r"\d+",
    step="step1|step2|step3",


def settings(value):
    """A params value: deterministic JSON, kept out of Snakemake's wildcard formatting."""
    return lambda wildcards: json.dumps(value, sort_keys=True)


def model_setting(key):
    """A rule's threads or resource: the model's setting ``key``."""
    return lambda wildcards: config["models"][wildcards.model][key]


# What a model job (ask_model, validate_names) asks the scheduler for, from its model's settings.
MODEL_JOB_RESOURCES = {
    "mem_mb": model_setting("mem_mb"),
    "runtime": model_setting("runtime"),
    "gpu": model_setting("gpus"),
    "gpu_model": model_setting("gpu_model"),
}


def aligned_input(path):
    """An input function: ``path`` where the job's contrast is set against who holds each
    job (plan.aligned), else nothing."""
    return lambda wildcards: (
        [path] if plan.aligned(config, CONTRASTS[wildcards.contrast]) else []
    )


# The alignment's share table and crosswalk, for a simulated model's truth and calibration.
WORKFORCE_INPUTS = {
    "shares": aligned_input(plan.workforce_shares(config)),
    "crosswalk": aligned_input(config["workforce"]["crosswalk"]),
}


def contrast_json(wildcards):
    """The --contrast option of a rule's command: the groups of its contrast."""
    return json.dumps(CONTRASTS[wildcards.contrast].as_dict(), sort_keys=True)


def contrast_sides(wildcards):
    """The groups of the job's contrast (contrasts.Sides): the report's captions name them."""
    return CONTRASTS[wildcards.contrast].sides


def shards(model, step):
    """The shard numbers of a model's step: step1_shards for Step 1, occupation shards else."""
    if step == "step1":
        return range(config["models"][model]["step1_shards"])
    return range(plan.shard_count(config, model))


def step_table(contrast, model, step, wording, shard):
    return f"results/{contrast}{model}/{step}/{wording}/shard-{shard}.parquet"


def job_record(contrast, model, step, shard):
    """The record a model job writes beside its tables: what it asked and wrote."""
    return f"results/{contrast}{model}/{step}/shard-{shard}.json"


def step_outputs(contrast, step, model):
    """Every table of a model's step in a contrast: one per wording run and shard."""
    return [
        step_table(contrast, model, step, wording, shard)
        for wording in WORDINGS
        for shard in shards(model, step)
    ]


def model_step_tables(contrast, model):
    """Every step table of one model in a contrast, Steps 1-3."""
    return [
        path
        for step in ["step1", "step2", "step3"]
        for path in step_outputs(contrast, step, model)
    ]


def every_step_table(wildcards):
    """Every step table of every model in a contrast (each holds its job's record)."""
    return [
        path
        for model in MODELS
        for path in model_step_tables(wildcards.contrast, model)
    ]


def names_root_of(wildcards, input):
    """The data root: the first name-list file's path less the list's layout within it (read
    from the input, not the config: where a storage plugin or a node without the shared file
    system gives the job a local copy, the input's path is the one that holds; snakemake --lint
    asks for this)."""
    return plan.root_above(input.names[0], name_files(plan.name_source(config))[0])


def data_root_of(wildcards, input):
    """The folder with the upstream layout: two levels above the O*NET release folder."""
    return input.onet_dir.rsplit("/", 2)[0]


def step_inputs(wildcards):
    """Every step reads the plan and the attributes; Steps 2 and 3 also read the model's
    Step-1 answers, through the Step-1 jobs' records.

    The records, not the Step-1 tables, are the inputs: their paths do not depend on the
    wordings run, so dropping a wording from prompts.variants changes no input of these jobs and
    re-runs none of them, while every Step-1 job that runs rewrites its record and so re-runs
    them (the tables they read are named by step1_tables).
    """
    inputs = {
        "instances": f"results/{wildcards.contrast}dataset/instances.parquet",
        "attributes": "results/dataset/attributes.tsv",
    }
    if wildcards.step != "step1":
        inputs["step1"] = [
            job_record(wildcards.contrast, wildcards.model, "step1", shard)
            for shard in shards(wildcards.model, "step1")
        ]
    return inputs


def step1_tables(wildcards, output):
    """The Step-1 tables of the wordings a Step-2/3 job asks (those of its outputs); none for
    Step 1. Derived from the outputs, so not compared between runs: dropping a wording leaves
    the remaining outputs up to date."""
    if wildcards.step == "step1":
        return []
    return [
        step_table(wildcards.contrast, wildcards.model, "step1", wording, shard)
        for wording in (Path(path).parent.name for path in output.tables)
        for shard in shards(wildcards.model, "step1")
    ]


# A model's tables that the summary and the overview read its verdicts from, by their option.
VERDICT_TABLES = {
    "metrics": "metrics.tsv",
    "tests": "tests.tsv",
    "findings": "findings.tsv",
}


def summary_tables(wildcards):
    """Each table the summary reads, by its option and model: every model's metrics, tests,
    findings, answer space, non-answers and pooled model; its wording tables when several wordings
    are run; each simulated model's planted truth; each intervention arm's changes and flips.
    """
    per_model = {
        **VERDICT_TABLES,
        "answer-space": "answer_space.tsv",
        "non-answers": "non_answers.tsv",
        "pooled": "pooled.tsv",
    }
    if len(WORDINGS) > 1:
        per_model |= {
            "robustness": "wordings/robustness.tsv",
            "flips": "wordings/flips.tsv",
        }
    tables = {
        flag: {model: f"results/{wildcards.contrast}{model}/{name}" for model in MODELS}
        for flag, name in per_model.items()
    }
    tables["truth"] = {
        model: f"results/{wildcards.contrast}{model}/truth.tsv" for model in SIMULATED
    }
    if plan.aligned(config, CONTRASTS[wildcards.contrast]):
        for flag, name in (
            ("alignment", "alignment"),
            ("alignment-occupations", "workforce"),
        ):
            tables[flag] = {
                model: f"results/{wildcards.contrast}{model}/{name}.tsv"
                for model in MODELS
            }
    armed = [arms.arm_model(model, arm) for model in AUDITED for arm in ARMS]
    for flag, suffix in (("interventions", ""), ("intervention-flips", "_flips")):
        tables[flag] = {
            arm: f"results/{wildcards.contrast}interventions/{arm}{suffix}.tsv"
            for arm in armed
        }
    return tables


def overview_tables():
    """The tables of each contrast and model the overview reads, by option, keyed by the
    results prefix and model (as its settings' cells name them)."""
    return {
        flag: {
            f"{prefix}{model}": f"results/{prefix}{model}/{name}"
            for prefix in CONTRASTS
            for model in MODELS
        }
        for flag, name in VERDICT_TABLES.items()
    }


def validity_tables():
    """Each model's name-validity table (names.validate), by model (an arm asks none)."""
    return {model: f"results/names/{model}.tsv" for model in AUDITED}


def keyed(paths):
    """The ``KEY=PATH`` items of the dict ``paths``, a keyed option's value: each path says
    what it belongs to (the command reads no order)."""
    return [f"{key}={path}" for key, path in paths.items()]


def keyed_params(command, tables):
    """The params of every keyed option of ``command`` (cli/rule_lines.py), an empty list where
    ``tables`` has none: ``tables`` gives each option's {key: path} by the option's name, as a
    dict or a function of the job's wildcards."""
    of = tables if callable(tables) else (lambda wildcards: tables)
    return {
        name.replace("-", "_"): lambda wildcards, name=name: keyed(
            of(wildcards).get(name, {})
        )
        for name in keyed_options(command)
    }


def input_or_nothing(name):
    """A params value: the job's input ``name`` as a list, empty where the job has none."""
    return lambda wildcards, input: [input[name]] if name in input.keys() else []


def contrast_outputs(contrast):
    """What the audit of one contrast publishes, under results/<contrast>."""
    return [
        f"results/{contrast}{path}"
        for path in [
            "summary.md",
            "metrics.tsv",
            "figures/fig3_confirmation.png",
            "figures/fig4_consistency.png",
            "figures/fig5_confirmation_vs_consistency.png",
            *expand(
                "tables/difference_{model}.{ext}",
                model=MODELS,
                ext=["tsv", "md", "png"],
            ),
            *expand("{model}/position_bias.tsv", model=MODELS),
            *expand("{model}/truth.tsv", model=SIMULATED),
            *expand("figures/attribute_gaps_{model}.png", model=MODELS),
            *[
                f"figures/alignment_{model}.png"
                for model in MODELS
                if plan.aligned(config, CONTRASTS[contrast])
            ],
            *[f"figures/wordings_{model}.png" for model in MODELS if len(WORDINGS) > 1],
            *intervention_outputs(),
            "manifest.json",
            "export/README.md",
        ]
    ]


def intervention_outputs():
    """Each arm's report against its baseline, under results/<contrast>interventions/."""
    return [
        f"interventions/{arms.arm_model(model, arm)}.{ext}"
        for model in AUDITED
        for arm in ARMS
        for ext in ["md", "png"]
    ]


def published_outputs():
    """Each contrast's outputs; with contrasts under results/contrasts/, also each model's
    impact ratios and Local Law 144 summary over all of them; with several contrasts (or the
    control), the overview."""
    outputs = [path for contrast in CONTRASTS for path in contrast_outputs(contrast)]
    outputs += [
        path for ext in ["tsv", "md", "png"] for path in impact_outputs(ext).values()
    ]
    outputs += [
        f"results/ll144/{m}.{ext}"
        for m in impact_outputs("md")
        for ext in ["md", "csv"]
    ]
    if len(CONTRASTS) > 1 or "" not in CONTRASTS:
        outputs.append("results/contrasts.md")
    if config["names"]["validate"]:
        outputs.append("results/names/validity.md")
    return outputs


def get_final_output():
    """What the run publishes, its first page (which links to the rest) and the damaged
    tables set aside and not re-made yet (the main process only: a cluster job runs one rule
    and need not walk results/)."""
    remake = tables_io.tables_to_remake("results") if workflow.is_main_process else []
    return published_outputs() + ["results/index.html"] + remake


def report_front():
    """The report's first screen: the first page's headlines, or what to run before them."""
    made = Path("results/report_front.rst")
    return str(made.resolve()) if made.exists() else "workflow/report/workflow.rst"


def first_page_inputs():
    """What the first page shows, by its option: each contrast and model's findings and
    forest plot (keyed by the results prefix and model), its alignment with the workforce where
    measured, each model's Local Law 144 table and each arm's figure."""
    cells = {(prefix, model) for prefix in CONTRASTS for model in MODELS}
    return {
        "findings": {
            f"{prefix}{model}": f"results/{prefix}{model}/findings.tsv"
            for prefix, model in sorted(cells)
        },
        "forest": {
            f"{prefix}{model}": f"results/{prefix}tables/difference_{model}.png"
            for prefix, model in sorted(cells)
        },
        "alignment": {
            f"{prefix}{model}": f"results/{prefix}{model}/alignment.tsv"
            for prefix, model in sorted(cells)
            if plan.aligned(config, CONTRASTS[prefix])
        },
        "ll144": {m: f"results/ll144/{m}.csv" for m in impact_outputs("md")},
        "interventions": {
            f"{prefix}{path[len('interventions/') : -len('.png')]}": f"results/{prefix}{path}"
            for prefix in CONTRASTS
            for path in intervention_outputs()
            if path.endswith(".png")
        },
    }


def perceived_names():
    """Each model's reading of the names, where names.drop_misperceived leaves some out."""
    if not config["names"]["drop_misperceived"]:
        return []
    return expand("results/names/{model}.tsv", model=AUDITED)


def impact_outputs(ext):
    """Each model's impact ratios where the run has contrasts under results/contrasts/ (for the
    paper's female vs male audit, only on request), by model."""
    return {} if "" in NAMED else {m: f"results/impact/{m}.{ext}" for m in MODELS}


def arm_folder(wildcards):
    """The result folder of the arm of an intervention job."""
    return (
        f"results/{wildcards.contrast}{arms.arm_model(wildcards.model, wildcards.arm)}"
    )


def arm_selections(wildcards):
    """Both runs' selections where the contrast names groups (not the neutral control)."""
    if wildcards.contrast not in NAMED:
        return {}
    return {
        "base_selections": f"results/{wildcards.contrast}{wildcards.model}/selections.parquet",
        "arm_selections": f"{arm_folder(wildcards)}/selections.parquet",
    }
