"""The run's provenance in words: the manifest's section of the summary and the export's
datasheet."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from hiremeornot.design.contrasts import CONTROL, Contrast, Sides
from hiremeornot.provenance.export import OPTIONAL_FIELDS, fields
from hiremeornot.writing.markdown import markdown_table
from hiremeornot.writing.summary import EMBEDDED_NOTE


def weights_summary(weights: Mapping[str, Any]) -> str:
    """A short phrase naming a model's weights (for the summary and the datasheet)."""
    kind = weights["kind"]
    files = weights.get("files") or []
    if kind in ("embedded", "local") and files:
        first = f"{files[0]['path']} SHA-256 {files[0]['sha256'][:12]}"
        more = f" and {len(files) - 1} more files" if len(files) > 1 else ""
        package = f"{weights['package']}, " if kind == "embedded" else ""
        return f"{package}{first}{more}"
    if kind == "hub":
        commit = weights.get("commit")
        return f"hub {weights['id']} at {commit[:12]}" if commit else f"hub {weights['id']}"
    if kind == "api":
        return f"API model {weights['model']}"
    if kind == "simulated":
        return "simulated respondent, its planted effects in the config"
    return f"unavailable: {weights.get('reason', '')}"


def markdown_section(manifest: Mapping[str, Any]) -> str:
    """The summary's short "Run manifest" section."""
    git = manifest["project"]["git"]
    commit = (git["commit"] or "unknown")[:12]
    dirty = {True: "yes", False: "no", None: "unknown"}[git["dirty"]]
    seeds_text = ", ".join(f"{k}={v}" for k, v in manifest["seeds"].items()) or "none"
    licences = sorted(
        {f"{s['source']} ({s['licence'].split(';')[0]})" for s in manifest["sources"]}
    )
    lines = [
        f"Code: hiremeornot {manifest['project']['version']} at commit {commit} "
        f"(uncommitted changes: {dirty}); Python {manifest['environment']['python']}.",
        f"Config SHA-256 {manifest['config_sha256'][:16]}; seeds: {seeds_text}.",
        f"Inputs: {len(manifest['inputs'])} files, each with its SHA-256; sources: "
        f"{', '.join(licences) or 'none known'}.",
    ]
    for name, model in manifest["models"].items():
        served = ", ".join(
            f"{s['served_model'] or 'unnamed'} (fingerprint {s['system_fingerprint'] or 'none'})"
            for s in model["served"]
        )
        lines.append(
            f"{name} ({model['backend']}, {weights_summary(model['weights'])}"
            + (f"; served as {served}" if served else "")
            + f"): {model['questions']} distinct questions in {model['jobs']} jobs, "
            f"{model['asked']} asked of the model, {model['from_store']} answered from the store."
        )
    run = manifest["run"]
    lines.append(f"Jobs from {run['started']} to {run['finished']} (UTC).")
    body = "\n".join(f"- {line}" for line in lines)
    return (
        "## Run manifest\n\n`results/manifest.json` records what produced these numbers; "
        "`results/export/` holds every answer (docs/outputs.md).\n\n" + body + "\n"
    )


STEP_TEXT = {
    "step1": "Step 1: for each O*NET skill, knowledge and ability of an occupation, does the "
    "subject have it? (Yes/No; the two names set the context)",
    "step2": "Step 2, Q1: given only the attributes Step 1 granted them, is each subject "
    "qualified for the occupation? (Yes/No)",
    "step3": "Step 3: Q2, which of the two is more qualified (the two names), and Q3, who will "
    "get the job (the two names, both, neither), with both subjects' granted attributes",
}


def caveats(sides: Sides) -> list[str]:
    """What the export does not show, in words."""
    if sides.attribute == CONTROL:
        names = (
            f"The neutral control: the two people are named {sides.a_words} and "
            f"{sides.b_words}, not by names; what these answers show comes from position, the "
            "labels and the wording."
        )
    elif sides.attribute == "gender":
        names = (
            "Gender is not observed: each name stands for a gender because it comes from the "
            "female or the male list of its source. Names also carry other signals (age, "
            "ethnicity, class, familiarity to the model), and the lists are short, English and "
            "binary."
        )
    else:
        names = (
            f"Group is not observed: each name stands for {sides.a_words} or {sides.b_words} "
            "because its source list labels it so. Names as a proxy for race or ethnicity are "
            "an approximation: people of every group bear every name, and names also carry "
            "other signals (age, class, region, familiarity to the model)."
        )
    templated, *others = _GENERAL_CAVEATS
    return [names, templated, _order_caveat(sides.attribute), *others]


def _order_caveat(what: str) -> str:
    return (
        "The answer listed first and the name listed first can sway an answer: both listing "
        "orders are present where the config ran both (field order); compare them before "
        f"reading a gap as a {what} effect."
    )


_GENERAL_CAVEATS = [
    "These are a model's answers to templated questions, in the wordings and with the answer "
    "words above, held to the answer space; they are not hiring decisions, and say nothing "
    "about how the model behaves in open-ended use, with real CVs, or with other wordings.",
    "Log-probabilities are not comparable across backends (docs/outputs.md): compare answers, "
    "or the probabilities normalised over the answer space.",
    "The input hashes identify the exact files read; an offline copy of a source may differ "
    "from its upstream release (compare the hashes).",
]


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    return markdown_table(pd.DataFrame(list(rows), columns=list(header), dtype=object))


def config_name(entry: Mapping[str, Any]) -> str:
    """The ``datasets`` configuration of one exported file: ``<model>_<step>``."""
    return f"{entry['model']}_{entry['step']}"


def front_matter(files: Sequence[Mapping[str, Any]]) -> str:
    """The dataset card's YAML header: one ``datasets`` configuration per file, so that
    ``load_dataset("results/export", "<model>_<step>")`` loads it (each step has its own
    fields' types, so the files are not splits of one configuration)."""
    lines = ["---", "configs:"]
    for entry in files:
        lines += [
            f"- config_name: {json.dumps(config_name(entry))}",
            f"  data_files: {json.dumps(entry['path'])}",
        ]
    return "\n".join([*lines, "---"]) + "\n"


def datasheet(
    manifest: Mapping[str, Any],
    files: Sequence[Mapping[str, Any]],
    manifest_sha256: str,
    contrast: Contrast,
    extra_fields: Sequence[str] = (),
) -> str:
    """The export's README.md: what was asked, of which models, under which licences
    (``contrast``: the audit's, contrasts.GENDER_CONTRAST for the paper's)."""
    sides = contrast.sides
    audited = (
        "gender stereotypes"
        if contrast.is_paper
        else f"stereotypes by {sides.attribute} ({contrast.label})"
    )
    config = manifest["config"]
    git = manifest["project"]["git"]
    dirty = {True: " (with uncommitted changes)", False: "", None: ""}[git["dirty"]]
    embedded = [
        name for name, model in manifest["models"].items() if model["weights"]["kind"] == "embedded"
    ]
    parts = [
        front_matter(files),
        "# hiremeornot: every answer of one audit run\n",
        f"Questions asked of language models to audit {audited} in hiring decisions "
        "(the multi-step verification of *Hire Me or Not?*), with every answer and the "
        "log-probability of every choice. Generated from the run manifest "
        f"(`manifest.json`, SHA-256 `{manifest_sha256}`) on {manifest['created']}, by "
        f"hiremeornot {manifest['project']['version']} at commit {git['commit']}{dirty}; "
        f"config SHA-256 `{manifest['config_sha256']}`.\n",
    ]
    parts += [EMBEDDED_NOTE.format(model=model) + "\n" for model in embedded]
    example = files[0]["path"] if files else "<model>/<step>.jsonl"
    example_config = config_name(files[0]) if files else "<model>_<step>"
    occupations = config["occupations"]["select"]
    names = config["names"]
    parts += [
        "## What was asked\n",
        "\n".join(f"- {STEP_TEXT[s]}." for s in ("step1", "step2", "step3")) + "\n",
        f"Occupations: {occupations if occupations == 'all' else ', '.join(occupations)} "
        f"(top {config['attributes']['per_type']} attributes of each type by O*NET Importance). "
        f"Names: list `{names['list']}`, {names['pairs']} pairs (seed {names['seed']}), "
        f"orders {', '.join(names['orders'])}.\n",
        "Prompt templates and answer words (the config's `prompts` and `answers`):\n",
        "```json\n"
        + json.dumps({"prompts": config["prompts"], "answers": config["answers"]}, indent=2)
        + "\n```\n",
        "## Of which models\n",
        _table(
            ["model", "backend", "model id", "weights", "served as", "settings"],
            [
                [
                    name,
                    model["backend"],
                    model["model"],
                    weights_summary(model["weights"]),
                    ", ".join(
                        f"{s['served_model'] or 'unnamed'} "
                        f"({s['system_fingerprint'] or 'no fingerprint'})"
                        f": {s['answers']} answers"
                        for s in model["served"]
                    )
                    or "-",
                    "`" + json.dumps(model["identity"], sort_keys=True) + "`",
                ]
                for name, model in manifest["models"].items()
            ],
        ),
        "## Files\n",
        _table(
            ["file", "rows", "SHA-256"],
            [[f"`{f['path']}`", f["rows"], f"`{f['sha256']}`"] for f in files],
        ),
        "## Counts\n",
        _table(
            ["model", "step", "rows", "distinct questions", "asked of the model", "from the store"],
            [
                [name, step, s["rows"], s.get("questions", 0), s.get("asked", 0)]
                + [s.get("from_store", 0)]
                for name, model in manifest["models"].items()
                for step, s in model["steps"].items()
            ],
        ),
        f"The jobs ran from {manifest['run']['started']} to {manifest['run']['finished']} "
        "(UTC). A question answered from the store was asked of the same model, with the same "
        "settings, prompt and answer space, in an earlier run.\n",
        "## Fields\n",
        "Every line is one JSON object with these fields (`null` where a field does not apply "
        "to the step):\n",
        _table(["field", "meaning"], [[f"`{n}`", d] for n, d in fields(sides)]),
    ]
    if extra_fields:
        parts.append(
            "Further columns of the step tables, as they are:\n\n"
            + "\n".join(
                f"- `{name}`: {OPTIONAL_FIELDS.get(name, 'see docs/outputs.md')}"
                for name in extra_fields
            )
            + "\n"
        )
    parts += [
        "## Input sources and licences\n",
        _table(
            ["source", "what", "licence", "upstream", "version", "attribution"],
            [
                [s["source"], s["title"], s["licence"], s["upstream"], s["version"]]
                + [s["attribution"]]
                for s in manifest["sources"]
            ],
        ),
        "The SHA-256 of every input file read is in `manifest.json` (`inputs`).\n",
        "## Caveats\n",
        "\n".join(f"- {caveat}" for caveat in caveats(sides)) + "\n",
        "## Loading\n",
        "Each file is one `datasets` configuration, `<model>_<step>` (the steps' fields have "
        "different types, so load them one at a time):\n",
        "```python\n"
        "from datasets import load_dataset\n"
        f'answers = load_dataset("results/export", "{example_config}")\n'
        f'# or: load_dataset("json", data_files="results/export/{example}")\n'
        f'# or: pandas.read_json("results/export/{example}", lines=True)\n'
        "```\n",
    ]
    return "\n".join(parts)
