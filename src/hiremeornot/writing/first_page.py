"""The run's first page (results/index.html): per contrast and model the headline, the verdicts
with what the design can detect, the forest plot and the caveats, then the Local Law 144 tables,
the interventions and a link to everything else. One self-contained file: figures embedded, no
remote script, font or style, so it opens offline and can be mailed. It phrases the findings
(analysis/findings.py) and computes nothing of its own."""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import jinja2
import pandas as pd

from hiremeornot.analysis.findings import verdict_counts
from hiremeornot.design.contrasts import Contrast
from hiremeornot.writing.alignment import alignment_line
from hiremeornot.writing.headlines import (
    VERDICT_NOTE,
    headline,
    short_caveats,
    verdict_row,
    verdict_table,
)
from hiremeornot.writing.non_answers import non_answer_phrase

TEMPLATES = jinja2.Environment(
    loader=jinja2.PackageLoader("hiremeornot.writing"),
    autoescape=jinja2.select_autoescape(["html", "html.j2"]),
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
# The Local Law 144 table's columns on the first page (the CSV has them all).
LL144_COLUMNS = [
    "characteristic",
    "category",
    "measure",
    "answers",
    "names",
    "rate",
    "impact ratio",
]


@dataclass
class Cell:
    """One contrast and model as the first page shows it."""

    contrast: str
    model: str
    headline: str
    verdicts: dict[str, str]  # headlines.verdict_row
    caveats: list[str]
    forest: str  # the forest plot as a data: URI
    table: str  # the difference table's Markdown, relative to results/
    anchor: str
    alignment: str  # the alignment with the workforce in one sentence, "" where not measured
    alignment_figure: str  # its figure, relative to results/
    non_answers: str  # what free questions left unanswered, "" where every one was constrained
    non_answers_table: str  # its table, relative to results/


def data_uri(path: str | Path) -> str:
    """A PNG as a data: URI, so that the page needs no file beside it."""
    encoded = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return f"data:image/png;base64,{encoded}"


def cell(
    findings: pd.DataFrame,
    *,
    model: str,
    contrast: Contrast,
    prefix: str,
    settings: Mapping,
    forest: str | Path,
    alignment: pd.DataFrame | None = None,
) -> Cell:
    """One contrast and model from its findings, its forest plot and, for a gender contrast
    with a workforce table, its alignment summary (analysis/alignment.py)."""
    counts = verdict_counts(findings)
    return Cell(
        contrast=contrast.title,
        model=model,
        headline=headline(findings, model, contrast),
        verdicts=verdict_row(findings, contrast),
        caveats=short_caveats(findings, contrast, settings),
        forest=data_uri(forest),
        table=f"{prefix}tables/difference_{model}.md",
        anchor=f"{prefix}{model}".replace("/", "-"),
        alignment=""
        if alignment is None
        else alignment_line(alignment, counts["differs_a"] + counts["differs_b"]),
        alignment_figure=f"{prefix}figures/alignment_{model}.png",
        non_answers=_sentence(non_answer_phrase(findings, contrast.sides)),
        non_answers_table=f"{prefix}{model}/non_answers.tsv",
    )


def _sentence(phrase: str | None) -> str:
    """A phrase as a sentence, "" for none."""
    return f"{phrase[0].upper()}{phrase[1:]}." if phrase else ""


def ll144_rows(table: pd.DataFrame) -> list[dict[str, str]]:
    """The Local Law 144 CSV's rows as the first page prints them: rate and impact ratio with
    their intervals ("not measured" where the CSV leaves a value empty)."""
    rows = []
    for row in table.itertuples(index=False):
        values = row._asdict()
        rows.append(
            {
                "characteristic": values["protected_characteristic"],
                "category": values["category"],
                "measure": values["measure"],
                "answers": str(values["number_of_applicants"]),
                "names": str(values["distinct_names"]),
                "rate": _interval(values["rate"], values["rate_low"], values["rate_high"]),
                "impact ratio": _interval(
                    values["impact_ratio"], values["impact_ratio_low"], values["impact_ratio_high"]
                ),
            }
        )
    return rows


def _interval(value: float, low: float, high: float) -> str:
    if value != value:
        return "not measured"
    if low != low:
        return f"{value:.3f}"
    return f"{value:.3f} [{low:.3f}, {high:.3f}]"


def link_groups(paths: Sequence[str]) -> list[tuple[str, list[str]]]:
    """Every published file relative to results/, grouped by its folder (the run's first)."""
    groups: dict[str, list[str]] = {}
    for path in sorted(paths):
        relative = PurePosixPath(path).relative_to("results")
        folder = str(relative.parent) if str(relative.parent) != "." else "the run"
        groups.setdefault(folder, []).append(str(relative))
    return sorted(groups.items(), key=lambda item: (item[0] != "the run", item[0]))


def first_page(
    cells: Sequence[Cell],
    *,
    ll144: Mapping[str, pd.DataFrame],
    interventions: Mapping[str, str | Path],
    links: Sequence[str],
    settings: Mapping,
) -> str:
    """The page's HTML (``ll144``: each model's CSV; ``interventions``: each arm's figure;
    ``interventions``: each arm's figure, its report beside it; ``links``: every published
    file; all paths under results/)."""
    arms = [
        (arm, data_uri(png), str(PurePosixPath(png).relative_to("results").with_suffix(".md")))
        for arm, png in interventions.items()
    ]
    return TEMPLATES.get_template("first_page.html.j2").render(
        cells=cells,
        rows=list(zip(cells, verdict_table([c.verdicts for c in cells]), strict=True)),
        ll144={model: ll144_rows(table) for model, table in ll144.items()},
        ll144_columns=LL144_COLUMNS,
        interventions=arms,
        links=link_groups(links),
        alpha=settings["alpha"],
        margin=settings["equivalence_margin"],
        verdict_note=VERDICT_NOTE,
    )


def report_front(cells: Sequence[Cell]) -> str:
    """The first screen of ``snakemake --report`` (reStructuredText): each model's headline and
    a link to the first page, which the report lists under "First page"."""
    lines = [
        "What this audit found",
        "=====================",
        "",
        "Open the first page, `index.html`_, for the verdicts, the forest plots "
        "and the caveats of every model; the rule graph beside this shows how they were made.",
        "",
    ]
    for entry in cells:
        what = entry.verdicts["what answered"]
        lines.append(f"- {_rst(entry.headline)} ({_rst(what)}; {_rst(entry.contrast)})")
        for said in (entry.alignment, entry.non_answers):
            if said:
                lines.append(f"  {_rst(said)}")
    return "\n".join(lines) + "\n"


def _rst(text: str) -> str:
    """Text with reStructuredText's inline markup characters escaped."""
    for character in "\\*`_|":
        text = text.replace(character, "\\" + character)
    return text
