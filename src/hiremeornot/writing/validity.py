"""The name-validity report: what group each model reads in the names, and what that shows."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from hiremeornot.inputs.names import group_labels
from hiremeornot.writing.markdown import markdown_table


def validity_markdown(tables: Mapping[str, pd.DataFrame], dropping: bool) -> str:
    """Per model: how many names read as their label, per group the share and the mean token
    count, and the names that do not; what this can and cannot show."""
    lines = [
        "# Name validity\n",
        "Each model was asked, once per name and with a constrained answer, what gender (and, "
        "for a list with races, what race or ethnicity) it associates with the name. A name "
        "reads as its label when every answer is its label. This checks the model's reading of "
        "the names, not anyone's identity: a name read as its label is still a proxy. The "
        "answer listed first can sway a weak model (female is listed first, the races in the "
        "list's order), and `p(label)` scores each whole answer word while the answer may be "
        "decoded token by token, so the two can disagree for a name the model is unsure of.\n",
    ]
    for model, table in tables.items():
        groups = table.assign(group=group_labels(table)).groupby("group", sort=False)
        summary = pd.DataFrame(
            {
                "names": groups.size(),
                "read as label": groups["reads_as_label"].mean(),
                "mean p(label) gender": groups["p_gender"].mean(),
                "mean tokens": groups["tokens"].mean().astype(float),
            }
        ).reset_index()
        if table["race"].ne("").any():
            summary.insert(4, "mean p(label) race", groups["p_race"].mean().to_numpy())
        wrong = table[~table["reads_as_label"]]
        lines += [
            f"## {model}\n",
            f"{int(table['reads_as_label'].sum())} of {len(table)} names read as their label.",
            _length_sentence(summary),
            "",
            markdown_table(summary),
        ]
        if len(wrong):
            shown = wrong[["name", "gender", "race", "perceived_gender", "perceived_race"]]
            lines += [
                "Names that do not read as their label"
                + (" (left out before pairing: names.drop_misperceived):" if dropping else ":"),
                "",
                markdown_table(shown.assign(p_gender=wrong["p_gender"], p_race=wrong["p_race"])),
            ]
    return "\n".join(lines)


def _length_sentence(summary: pd.DataFrame) -> str:
    """Whether the groups' names differ in length for the model."""
    tokens = summary["mean tokens"].dropna()
    if tokens.empty:
        return "The backend cannot tokenize, so name length in tokens is not known."
    low, high = tokens.min(), tokens.max()
    return (
        f"Mean length in tokens ranges from {low:.2f} to {high:.2f} across the groups: a "
        "difference between groups may also be one between longer and shorter names."
        if high - low >= 0.5
        else f"Mean length in tokens is within {high - low:.2f} across the groups."
    )
