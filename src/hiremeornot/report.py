"""Gather per-model metrics into the published tables and the generated summary."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

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
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(text)
    partial.replace(path)


def write_difference_table(table: pd.DataFrame, model: str, threshold: float, tsv: str, md: str):
    """A difference table as TSV and as Markdown with a caption."""
    write_table(table, tsv)
    caption = (
        f"Occupations with |female - male difference| > {threshold} for {model}. Positive values: "
        "the model's behaviour is biased towards female subjects; negative: towards male subjects."
    )
    body = markdown_table(table) if len(table) else "(no occupation above the threshold)\n"
    write_markdown(f"{caption}\n\n{body}", md)


def summary(metrics: pd.DataFrame, models: dict[str, dict], threshold: float) -> str:
    """A short Markdown summary of each model's results."""
    parts = ["# Audit summary\n"]
    for model, rows in metrics.groupby("model", sort=False):
        parts.append(f"## {model}\n")
        if location.is_embedded(models[model]["model"]):
            parts.append(EMBEDDED_NOTE.format(model=model) + "\n")
        above = rows[rows["difference"].abs() > threshold]
        parts.append(
            f"- {len(rows)} occupations, {int(rows['n'].sum())} instances "
            f"(occupation x name pair x order).\n"
            f"- Confirmation: median {rows['confirmation'].median():.3f} "
            f"(range {rows['confirmation'].min():.3f}-{rows['confirmation'].max():.3f}).\n"
            f"- Consistency: median {rows['consistency'].median():.3f} "
            f"(range {rows['consistency'].min():.3f}-{rows['consistency'].max():.3f}).\n"
            f"- {len(above)} occupations with |difference| > {threshold}: "
            f"{int((above['difference'] > 0).sum())} favour female, "
            f"{int((above['difference'] < 0).sum())} favour male subjects.\n"
        )
    return "\n".join(parts)
