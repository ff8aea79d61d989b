"""The impact-ratio figure: each group's and occupation's ratio with its interval over names."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from hiremeornot.writing.figures import add_footer, plt, save

# The impact figure gives each group and occupation a named row up to this many occupations;
# beyond, a row per group, its occupations spread in it and the LOWEST_NAMED lowest named.
ROWS_PER_OCCUPATION = 12
LOWEST_NAMED = 3


def impact_layout(table: pd.DataFrame) -> tuple[pd.Series, dict[float, str], pd.Series]:
    """Where the impact figure draws each row of ``table``: its height (up to
    ROWS_PER_OCCUPATION occupations a row each, by group, lowest ratio first), the y labels,
    and whether the point is named beside it (LOWEST_NAMED)."""
    groups = sorted(set(table["group"]))
    occupations = sorted(set(table["occupation"]))
    if len(occupations) <= ROWS_PER_OCCUPATION:
        # each group's rows from its lowest ratio (the mean over questions) to its highest
        mean = table.groupby(["group", "occupation"])["impact_ratio"].mean().fillna(np.inf)
        order = [(g, o) for g in groups for o in sorted(mean[g].index, key=lambda o: mean[g][o])]
        rows = {key: i for i, key in enumerate(order)}
        y = pd.Series(
            [rows[(g, o)] for g, o in zip(table["group"], table["occupation"], strict=True)],
            index=table.index,
            dtype=float,
        )
        ticks = {float(i): f"{g} · {o}" for (g, o), i in rows.items()}
        return y, ticks, pd.Series(False, index=table.index)
    spread = dict(zip(occupations, np.linspace(-0.3, 0.3, len(occupations)), strict=True))
    y = table["group"].map({g: i for i, g in enumerate(groups)}) + table["occupation"].map(spread)
    rank = table.groupby(["question", "group"])["impact_ratio"].rank(method="first")
    return y, {float(i): g for i, g in enumerate(groups)}, rank <= LOWEST_NAMED


# How each kind of ratio is drawn: face and edge colour.
MARKS = {
    "clearly below": ("tab:red", "tab:red"),
    "below, interval crossing": ("white", "tab:red"),
    "at or above": ("tab:blue", "tab:blue"),
}


def impact_figure(
    table: pd.DataFrame, model: str, path: str | Path, threshold: float = 0.8
) -> None:
    """One panel per question: each (group, occupation)'s impact ratio with its interval
    (impact_layout), filled red where the whole interval lies under ``threshold``, hollow red
    where only the ratio does, blue at or above it."""
    questions = sorted(set(table["question"])) or ["(none)"]
    y, ticks, named = impact_layout(table)
    fig, axes = plt.subplots(
        1,
        len(questions),
        figsize=(2.5 + 3.5 * len(questions), 1.6 + 0.2 * max(len(ticks), 3)),
        sharey=True,
        squeeze=False,
    )
    for ax, question in zip(axes[0], questions, strict=True):
        _draw_question(ax, table, table["question"] == question, y, named, threshold)
        ax.set_title(question)
    axes[0][0].set_yticks(list(ticks), list(ticks.values()), fontsize=7)
    axes[0][0].set_ylim(len(set(ticks)) - 0.5, -0.5)
    handles, labels = axes[0][0].get_legend_handles_labels()
    axes[0][-1].legend(handles, labels, fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1))
    fig.suptitle(f"{model}: selection-rate impact ratios", fontsize=10, y=1.0, va="bottom")
    sorted_rows = len(ticks) > len(set(table["group"]))
    add_footer(
        axes[0][0], _footer(threshold, sorted_rows=sorted_rows), width=60 + 40 * len(questions)
    )
    save(fig, path)


def _draw_question(
    ax, table: pd.DataFrame, asked: pd.Series, y: pd.Series, named: pd.Series, threshold: float
) -> None:
    """One question's ratios (the rows ``asked``) on ``ax``: intervals, marks by MARKS, the
    occupations ``named`` beside their marks and the threshold's line."""
    below, clearly = table["below_threshold"], table["clearly_below"]
    kinds = {
        "clearly below": asked & clearly,
        "below, interval crossing": asked & below & ~clearly,
        "at or above": asked & ~below,
    }
    ax.hlines(
        y[asked],
        table.loc[asked, "ratio_low"],
        table.loc[asked, "ratio_high"],
        colors="grey",
        lw=0.7,
    )
    for kind, shown in kinds.items():
        face, edge = MARKS[kind]
        ax.scatter(
            table.loc[shown, "impact_ratio"],
            y[shown],
            s=16,
            facecolors=face,
            edgecolors=edge,
            zorder=3,
            label=f"{kind} {threshold}",
        )
    for index in table.index[asked & named]:
        ax.annotate(
            table.at[index, "occupation"],
            (table.at[index, "impact_ratio"], y[index]),
            xytext=(3, 2),
            textcoords="offset points",
            fontsize=6,
        )
    ax.axvline(threshold, color="black", ls="--", lw=0.8)
    ax.set_xlim(-0.02, 1.05)
    ax.set_xlabel("impact ratio (rate / highest group rate)")


def _footer(threshold: float, *, sorted_rows: bool) -> list[str]:
    """What the marks mean, what biases the ratios, and (``sorted_rows``) the rows' order."""
    lines = [
        "Line: the interval over names. Filled red: the whole interval under the "
        f"threshold {threshold} (with 5 names or more in the group and the reference); "
        "hollow red: only the ratio under it.",
        "Each ratio divides by the highest group's rate, itself noisy: ratios lean low, "
        "towards the flag.",
    ]
    if sorted_rows:
        lines.append(
            "Rows: each group's occupations from its lowest ratio (the mean over the questions) "
            "to its highest."
        )
    return lines
