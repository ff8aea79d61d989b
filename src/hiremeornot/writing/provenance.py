"""The run's provenance in words: the manifest's section of the summary and the export's
datasheet."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import jinja2
import pandas as pd

from hiremeornot.design.contrasts import CONTROL, Contrast, Sides
from hiremeornot.provenance.export import OPTIONAL_FIELDS, fields
from hiremeornot.writing.markdown import markdown_table
from hiremeornot.writing.summary import EMBEDDED_NOTE

TEMPLATES = jinja2.Environment(
    loader=jinja2.PackageLoader("hiremeornot.writing"),
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
    undefined=jinja2.StrictUndefined,
)


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
    "words above, held to the answer space (or, for a step asked free, read from the model's "
    "reply: the `reply` and `rule` columns); they are not hiring decisions, and say nothing "
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
    """The export's README.md (templates/datasheet.md.j2): what was asked, of which models,
    under which licences (``contrast``: the audit's, contrasts.GENDER_CONTRAST for the paper's)."""
    sides = contrast.sides
    config = manifest["config"]
    models = manifest["models"]
    occupations = config["occupations"]["select"]
    return TEMPLATES.get_template("datasheet.md.j2").render(
        front_matter=front_matter(files),
        audited="gender stereotypes"
        if contrast.is_paper
        else f"stereotypes by {sides.attribute} ({contrast.label})",
        manifest=manifest,
        manifest_sha256=manifest_sha256,
        dirty={True: " (with uncommitted changes)", False: "", None: ""}[
            manifest["project"]["git"]["dirty"]
        ],
        embedded_notes=[
            EMBEDDED_NOTE.format(model=name)
            for name, model in models.items()
            if model["weights"]["kind"] == "embedded"
        ],
        steps=[STEP_TEXT[step] for step in ("step1", "step2", "step3")],
        config=config,
        occupations=occupations if occupations == "all" else ", ".join(occupations),
        prompts_and_answers=json.dumps(
            {"prompts": config["prompts"], "answers": config["answers"]}, indent=2
        ),
        models_table=_table(
            ["model", "backend", "model id", "weights", "served as", "settings"],
            [
                [name, model["backend"], model["model"], weights_summary(model["weights"])]
                + [_served(model["served"])]
                + ["`" + json.dumps(model["identity"], sort_keys=True) + "`"]
                for name, model in models.items()
            ],
        ),
        files_table=_table(
            ["file", "rows", "SHA-256"],
            [[f"`{f['path']}`", f["rows"], f"`{f['sha256']}`"] for f in files],
        ),
        counts_table=_table(
            ["model", "step", "rows", "distinct questions", "asked of the model", "from the store"],
            [
                [name, step, s["rows"], s.get("questions", 0), s.get("asked", 0)]
                + [s.get("from_store", 0)]
                for name, model in models.items()
                for step, s in model["steps"].items()
            ],
        ),
        fields_table=_table(["field", "meaning"], [[f"`{n}`", d] for n, d in fields(sides)]),
        extra_fields=[
            (name, OPTIONAL_FIELDS.get(name, "see docs/outputs.md")) for name in extra_fields
        ],
        sources_table=_table(
            ["source", "what", "licence", "upstream", "version", "attribution"],
            [
                [s["source"], s["title"], s["licence"], s["upstream"], s["version"]]
                + [s["attribution"]]
                for s in manifest["sources"]
            ],
        ),
        caveats=caveats(sides),
        example=files[0]["path"] if files else "<model>/<step>.jsonl",
        example_config=config_name(files[0]) if files else "<model>_<step>",
    )


def _served(served: Sequence[Mapping[str, Any]]) -> str:
    """What served a model's answers, as the API reported it ("-" for a local model)."""
    return (
        ", ".join(
            f"{s['served_model'] or 'unnamed'} ({s['system_fingerprint'] or 'no fingerprint'})"
            f": {s['answers']} answers"
            for s in served
        )
        or "-"
    )
