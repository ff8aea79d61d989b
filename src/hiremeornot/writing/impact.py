"""The impact-ratio table in words: how to read it, and what besides the groups could explain a
low ratio."""

from __future__ import annotations

import pandas as pd

from hiremeornot.analysis.impact import MIN_NAMES
from hiremeornot.writing.markdown import markdown_table


def impact_markdown(table: pd.DataFrame, model: str, settings: dict, *, confounded: bool) -> str:
    """The impact-ratio table of one model in words: how to read it, what besides the groups
    could explain a low ratio, and the rows below the threshold. ``settings`` is the config's
    ``report`` section; ``confounded``: the findings' listing orders (one order ran)."""
    threshold = settings["impact_threshold"]
    below = table[table["below_threshold"]]
    clearly = int(below["clearly_below"].sum())
    cells = len(table.dropna(subset=["impact_ratio"]))
    names = int(table["n_names"].min()) if len(table) else 0
    position = (
        "Both listing orders are pooled, so the first-listed position favours no group."
        if not confounded
        else "**Only one listing order was run: in Q2 and Q3 a group's rate mixes the group with "
        "its position in the prompt.**"
    )
    lines = [
        f"# Selection-rate impact ratios: {model}\n",
        "Per occupation, question and group: the selection rate (Q1, the primary one: the share "
        "of answers that judge the person qualified; Q3: the share of questions naming a member "
        "of the group in which the model chose that member or 'both'; Q2: the same with no "
        "neutral answer, a head-to-head share between the two people of each question rather "
        "than a selection rate in the Uniform Guidelines' sense), and the impact ratio, the rate "
        f"divided by the highest group's rate (`reference`). A ratio below {threshold} is flagged "
        "(`below_threshold`), the four-fifths rule of US employment-selection guidance; "
        f"`clearly_below` marks ratios whose whole {settings['confidence']:.0%} interval over the "
        f"names lies below it, where the group and the reference have {MIN_NAMES} names or more "
        "(an interval over fewer names cannot place a ratio). The intervals count both people "
        "of every answer as sampled names (the one it selects or not, and the other person of "
        "its pair); where a group has so few names that no test could exclude anything (5 or "
        "fewer at 95%) they are the whole range.\n",
        f"- {len(below)} of {cells} ratios are below {threshold}; the whole interval of "
        f"{clearly} of them lies below it.",
        "- The four-fifths rule is a screening heuristic, not a significance test. With "
        f"{cells} ratios, some fall below {threshold} by chance alone; the groups have as few as "
        f"{names} names, so a ratio rests on few names: read the intervals, not the flags.",
        "- In Q2 and Q3 the model chooses between two people, so a group's rate depends on whom "
        "it was paired with (`paired_with`): a group met only by a favoured group looks "
        "disfavoured. Compare groups that met the same opponents, or read Q1, which asks about "
        "one person at a time (its prompt still names both people of the pair).",
        lean_line(table, "group"),
        f"- {position}",
        "- Names stand in for the groups: a name's group is the label of its source list, an "
        "approximation (people of every group bear every name), and names also carry other "
        "signals (age, class, familiarity to the model).",
        "",
    ]
    if len(below):
        shown = below.sort_values("impact_ratio")[
            ["occupation", "question", "group", "n_names", "rate", "reference", "impact_ratio"]
            + ["ratio_low", "ratio_high", "ratio_lean", "clearly_below"]
        ]
        lines += [f"## Ratios below {threshold}\n", markdown_table(shown)]
    return "\n".join(lines)


def lean_line(table: pd.DataFrame, unit: str) -> str:
    """The bullet on how low the ratios read: the reference is the highest of noisy rates."""
    lean = table["ratio_lean"].dropna()
    if lean.empty:
        return (
            f"- How low a ratio can read at a tie with the reference is not known here: no "
            f"{unit} and its reference both have {MIN_NAMES} names or more (or one {unit} is "
            "rated). The reference is the highest of noisy rates, so the ratios lean low."
        )
    return (
        f"- Each ratio divides by the highest {unit}'s rate, itself noisy and picked for being "
        f"high, so a ratio under 1 reads low: where the {unit}'s true rate equals the "
        f"reference's, by up to `ratio_lean` on average ({_spread(lean)}), by far less where "
        "they lie apart. "
        "A ratio within its lean of the threshold may be a tie that the choice of the "
        "reference pulled down."
    )


def _spread(values: pd.Series) -> str:
    """The range and median of some numbers, or the one number where they are all alike."""
    low, high = f"{values.min():.3f}", f"{values.max():.3f}"
    if low == high:
        return f"here {low}"
    return f"here {low} to {high}, median {values.median():.3f}"
