"""Gather per-model metrics into the published tables and the generated summary."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from hiremeornot.atomic import atomic_output
from hiremeornot.backends import location
from hiremeornot.tables_io import write_table

EMBEDDED_NOTE = (
    "**{model} is the embedded smoke-test model (SmolLM2-135M-Instruct).** It makes the pipeline "
    "run anywhere in minutes, but its answers are not evidence about any real model: do not read "
    "these numbers as findings."
)


def markdown_table(frame: pd.DataFrame, digits: int = 3) -> str:
    """A GitHub-flavoured Markdown table."""

    def cell(value: object) -> str:
        return f"{value:.{digits}f}" if isinstance(value, float) else str(value)

    lines = ["| " + " | ".join(frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    lines += [
        "| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)
    ]
    return "\n".join(lines) + "\n"


def write_markdown(text: str, path: str | Path) -> None:
    with atomic_output(path) as partial:
        partial.write_text(text)


def annotated_differences(
    metrics: pd.DataFrame, intervals: pd.DataFrame, tests: pd.DataFrame, threshold: float
) -> pd.DataFrame:
    """Occupations whose |difference| exceeds the threshold, with interval and paired test."""
    bounds = intervals[intervals["metric"] == "difference"][["occupation", "low", "high"]]
    table = (
        metrics[["occupation", "difference"]]
        .merge(bounds, on="occupation", validate="1:1")
        .merge(tests[["occupation", "p_value", "q_value", "significant"]], on="occupation")
    )
    above = table[table["difference"].abs() > threshold]
    return above.sort_values(["difference", "occupation"], ascending=[False, True]).reset_index(
        drop=True
    )


def write_difference_table(table: pd.DataFrame, model: str, settings: dict, tsv: str, md: str):
    """A difference table as TSV and as Markdown with a caption."""
    write_table(table, tsv)
    caption = (
        f"Occupations with |female - male difference| > {settings['difference_threshold']} for "
        f"{model}. Positive values: the model's behaviour is biased towards female subjects; "
        f"negative: towards male subjects. low-high: {settings['confidence']:.0%} bootstrap "
        "interval over name pairs; p_value: exact paired test (biased towards female vs male); "
        "q_value: Benjamini-Hochberg across occupations; "
        f"significant: q_value < {settings['alpha']}."
    )
    body = markdown_table(table) if len(table) else "(no occupation above the threshold)\n"
    write_markdown(f"{caption}\n\n{body}", md)


def _share(part: float, whole: float) -> str:
    return f"{part / whole:.0%}" if whole else "n/a"


def model_summary(
    rows: pd.DataFrame, tests: pd.DataFrame, position: pd.DataFrame, settings: dict
) -> str:
    """The findings of one model, as Markdown bullet points."""
    threshold, alpha = settings["difference_threshold"], settings["alpha"]
    above = rows[rows["difference"].abs() > threshold]
    significant = tests[tests["significant"]].sort_values("difference")
    named = [
        f"{o} ({d:+.2f})"
        for o, d in zip(significant["occupation"], significant["difference"], strict=True)
    ]
    lines = [
        f"{len(rows)} occupations, {int(rows['n'].sum())} instances "
        "(occupation x name pair x order).",
        f"Confirmation: median {rows['confirmation'].median():.3f} "
        f"(range {rows['confirmation'].min():.3f}-{rows['confirmation'].max():.3f}); "
        f"from the probabilities: median {rows['confirmation_p'].median():.3f}.",
        f"Consistency: median {rows['consistency'].median():.3f} "
        f"(range {rows['consistency'].min():.3f}-{rows['consistency'].max():.3f}); "
        f"from the probabilities: median {rows['consistency_p'].median():.3f}.",
        f"{len(above)} occupations with |difference| > {threshold}: "
        f"{int((above['difference'] > 0).sum())} favour female, "
        f"{int((above['difference'] < 0).sum())} favour male subjects.",
        f"{len(significant)} occupations differ significantly (exact paired test, "
        f"Benjamini-Hochberg q < {alpha})" + (f": {', '.join(named)}." if len(named) else "."),
    ]
    for question in ("q2", "q3"):
        asked = position[position["question"] == question]
        share = _share(asked["first_listed"].sum(), asked["n_named"].sum())
        lines.append(
            f"{question.upper()} named the first-listed subject in {share} of the answers that "
            "named someone (0.5 means no position bias)."
        )
    return "\n".join(f"- {line}" for line in lines) + "\n"


def summary(
    models: dict[str, dict], tables: dict[str, dict[str, pd.DataFrame]], settings: dict
) -> str:
    """A short Markdown summary of each model's results."""
    parts = ["# Audit summary\n"]
    for model, frames in tables.items():
        parts.append(f"## {model}\n")
        if location.is_embedded(models[model]["model"]):
            parts.append(EMBEDDED_NOTE.format(model=model) + "\n")
        parts.append(
            model_summary(frames["metrics"], frames["tests"], frames["position"], settings)
        )
    return "\n".join(parts)
