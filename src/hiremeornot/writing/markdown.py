"""Markdown: one table renderer with one escaping rule, and files written whole or not at all."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from hiremeornot.atomic import atomic_output


def markdown_table(frame: pd.DataFrame, digits: int = 3) -> str:
    """A GitHub-flavoured Markdown table, floats to ``digits`` places; a ``|`` inside a header
    or a cell (an instance id, a model's answer) is escaped, so that it cannot split a cell."""

    def cell(value: object) -> str:
        text = f"{value:.{digits}f}" if isinstance(value, float) else str(value)
        return text.replace("|", "\\|")

    lines = [
        "| " + " | ".join(map(cell, frame.columns)) + " |",
        "|" + "---|" * len(frame.columns),
    ]
    lines += [
        "| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)
    ]
    return "\n".join(lines) + "\n"


def write_markdown(text: str, path: str | Path) -> None:
    with atomic_output(path) as partial:
        partial.write_text(text)


def percent(share: float, places: int = 0) -> str:
    """A share as a percentage, "n/a" for NaN (no answers to share)."""
    return "n/a" if share != share else f"{share:.{places}%}"
