"""Every figure, with matplotlib (the one module that loads it): the paper's Figures 3-5, the
forest plot of the differences, the attribute gaps, the wordings' differences, two runs' paired
changes, the calibration's coverage and the impact ratios."""

from __future__ import annotations

import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from hiremeornot.analysis.stats import ALL_OCCUPATIONS, CONFOUNDED  # noqa: E402
from hiremeornot.atomic import atomic_output  # noqa: E402
from hiremeornot.design.contrasts import Sides  # noqa: E402

LABELS = {"confirmation": "Confirmation (Q1 vs Q2)", "consistency": "Consistency (Q2 vs Q3)"}


def _save(fig: plt.Figure, path: str | Path) -> None:
    with atomic_output(path) as partial:
        fig.savefig(partial, dpi=150, bbox_inches="tight")
    plt.close(fig)


def metric_distribution(
    metrics: pd.DataFrame, metric: str, path: str | Path, subtitle: str
) -> None:
    """Figures 3 and 4: one box per model, one dot per occupation; ``subtitle`` names the
    contrast under the title (empty for the paper's female vs male audit)."""
    models = list(dict.fromkeys(metrics["model"]))
    fig, ax = plt.subplots(figsize=(1.8 + 1.6 * len(models), 4))
    values = [metrics.loc[metrics["model"] == m, metric].to_numpy() for m in models]
    ax.boxplot(values, showfliers=False)
    ax.set_xticks(range(1, len(models) + 1), models)
    rng = np.random.default_rng(0)
    for position, column in enumerate(values, start=1):
        jitter = rng.uniform(-0.15, 0.15, len(column))
        ax.scatter(position + jitter, column, s=12, alpha=0.6, color="tab:blue")
    ax.set_ylim(-0.05, 1.05)
    ax.set_ylabel(LABELS[metric])
    ax.set_title(f"{LABELS[metric]} across occupations" + (f"\n{subtitle}" if subtitle else ""))
    _save(fig, path)


def confirmation_vs_consistency(metrics: pd.DataFrame, path: str | Path, subtitle: str) -> None:
    """Figure 5: per model, Consistency (x) against Confirmation (y), one dot per occupation;
    occupations with the same values share one dot, sized and labelled by their count."""
    models = list(dict.fromkeys(metrics["model"]))
    fig, axes = plt.subplots(1, len(models), figsize=(4 * len(models), 4), squeeze=False)
    for ax, model in zip(axes[0], models, strict=True):
        rows = metrics[metrics["model"] == model].round({"consistency": 6, "confirmation": 6})
        points = rows.groupby(["consistency", "confirmation"]).size().reset_index(name="n")
        ax.scatter(points["consistency"], points["confirmation"], s=14 * points["n"], alpha=0.6)
        for point in points[points["n"] > 1].itertuples():
            ax.annotate(
                str(point.n),
                (point.consistency, point.confirmation),
                fontsize=7,
                ha="center",
                va="center",
            )
        ax.axhline(0.5, color="grey", lw=0.5)
        ax.axvline(0.5, color="grey", lw=0.5)
        ax.set_xlim(-0.05, 1.05)
        ax.set_ylim(-0.05, 1.05)
        ax.set_xlabel(LABELS["consistency"])
        ax.set_ylabel(LABELS["confirmation"])
        ax.set_title(model)
    if subtitle:
        fig.suptitle(subtitle, fontsize=9, y=1.02)
    _save(fig, path)


# How the forest plot draws each verdict: marker, face colour (None: the side's colour; "white":
# hollow) and the legend's words ({side}: the side the difference favours).
VERDICT_MARKS = {
    "differs": ("o", None, "differs, towards {side}"),
    "equivalent": ("D", "tab:green", "equivalent (within the margin)"),
    "inconclusive": ("o", "white", "inconclusive"),
    CONFOUNDED: ("s", "white", "confounded with position"),
}
SIDE_COLOURS = ("tab:red", "tab:blue")  # difference > 0 (side A), < 0 (side B)


def difference_forest(
    points: pd.DataFrame,
    title: str,
    threshold: float,
    footer: list[str],
    path: str | Path,
    sides: Sides,
) -> None:
    """Every occupation's difference as a dot with its interval (differences.forest_points),
    sorted by the difference and coded by verdict: filled where it differs, a diamond where it
    is equivalent, hollow grey where inconclusive; ``footer``: the caveats under the axis."""
    rows = max(len(points), 1)
    fig, ax = plt.subplots(figsize=(7, 1.9 + 0.22 * rows))
    y = np.arange(len(points))
    ax.errorbar(
        points["difference"],
        y,
        xerr=[points["difference"] - points["low"], points["high"] - points["difference"]],
        fmt="none",
        ecolor="grey",
        elinewidth=1,
        capsize=2,
    )
    for verdict, (marker, face, words) in VERDICT_MARKS.items():
        for side, colour, side_words in zip(
            (1, -1), SIDE_COLOURS, (sides.a_words, sides.b_words), strict=True
        ):
            if verdict != "differs" and side == -1:
                continue  # one legend entry for a verdict that favours no side
            shown = points["verdict"] == verdict
            if verdict == "differs":
                shown &= np.sign(points["difference"]) == side
            if not shown.any():
                continue
            edge = colour if verdict == "differs" else face if face != "white" else "grey"
            ax.scatter(
                points.loc[shown, "difference"],
                y[shown.to_numpy()],
                marker=marker,
                s=28,
                facecolors=face or colour,
                edgecolors=edge,
                zorder=3,
                label=f"{words.format(side=side_words)} ({int(shown.sum())})",
            )
    ax.set_yticks(y, points["occupation"], fontsize=8 if rows <= 30 else 6)
    ax.set_ylim(-0.7, rows - 0.3)
    ax.axvline(0, color="black", lw=0.8)
    if threshold > 0:
        for edge in (-threshold, threshold):
            ax.axvline(edge, color="grey", lw=0.6, ls=":")
    ax.set_xlim(-1.05, 1.05)
    ax.set_xlabel(
        f"difference (> 0 favours {sides.a_words}, < 0 {sides.b_words} subjects), interval over "
        "names"
    )
    ax.set_title(textwrap.fill(title, 80), fontsize=9, loc="left")
    if len(points):
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
    # under the axis label, whatever the figure's height (at a fixed height it overlapped it)
    ax.annotate(
        "\n".join(textwrap.fill(line, 110) for line in footer),
        xy=(0, 0),
        xycoords=("figure fraction", ax.xaxis.label),
        xytext=(0, -6),
        textcoords="offset points",
        va="top",
        fontsize=7,
    )
    _save(fig, path)


def attribute_gaps(gaps: pd.DataFrame, model: str, path: str | Path, sides: Sides) -> None:
    """Step 1, pooled over occupations: P(Yes | female) - P(Yes | male) per attribute."""
    pooled = gaps[gaps["occupation"] == ALL_OCCUPATIONS].sort_values("gap")
    labels = [
        f"{a} ({t})" for a, t in zip(pooled["attribute"], pooled["attribute_type"], strict=True)
    ]
    fig, ax = plt.subplots(figsize=(7, 0.8 + 0.22 * max(len(pooled), 1)))
    errors = [pooled["gap"] - pooled["low"], pooled["high"] - pooled["gap"]]
    colors = ["tab:red" if g > 0 else "tab:blue" for g in pooled["gap"]]
    ax.barh(labels, pooled["gap"], xerr=errors, color=colors, capsize=2)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_xlim(-1.05, 1.05)
    ax.tick_params(axis="y", labelsize=7)
    ax.set_xlabel(f"P(Yes | {sides.a_words}) - P(Yes | {sides.b_words}) in Step 1")
    ax.set_title(f"{model}: attributes granted by {sides.attribute}")
    _save(fig, path)


def wording_differences(
    per_wording: pd.DataFrame,
    pooled: pd.DataFrame,
    model: str,
    path: str | Path,
    sides: Sides,
) -> None:
    """Each occupation's difference under each wording with its interval over the names
    (colour), and pooled over the wordings with its interval over names and wordings (black),
    occupations ordered by the pooled difference."""
    pooled = pooled.sort_values("difference")
    rows = {occupation: i for i, occupation in enumerate(pooled["occupation"])}
    wordings = list(dict.fromkeys(per_wording["wording"]))
    fig, ax = plt.subplots(figsize=(7, 1.6 + 0.45 * len(rows)))
    ax.axvline(0, color="grey", linewidth=0.8)
    offsets = np.linspace(-0.3, -0.1, len(wordings)) if len(wordings) > 1 else [-0.2]
    for offset, wording in zip(offsets, wordings, strict=True):
        asked = per_wording[per_wording["wording"] == wording]
        ax.errorbar(
            asked["difference"],
            asked["occupation"].map(rows) + offset,
            xerr=[asked["difference"] - asked["low"], asked["high"] - asked["difference"]],
            fmt="o",
            markersize=4,
            linewidth=0.8,
            label=f"{wording} (interval over names)",
        )
    y = np.arange(len(rows)) + 0.15
    ax.errorbar(
        pooled["difference"],
        y,
        xerr=[pooled["difference"] - pooled["low"], pooled["high"] - pooled["difference"]],
        fmt="D",
        color="black",
        markersize=4,
        label="pooled (interval over names and wordings)",
    )
    ax.set_yticks(np.arange(len(rows)), list(rows))
    ax.set_xlim(-1.05, 1.05)
    ax.set_xlabel(
        f"{sides.a_words} - {sides.b_words} difference (positive favours {sides.a_words} subjects)"
    )
    ax.set_title(f"{model}: the difference under each wording")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    _save(fig, path)


def _change_dots(ax: plt.Axes, changes: pd.DataFrame, occupations: list[str]) -> None:
    """One metric's change per occupation (one row each, in ``occupations`` order from the
    top) with its interval: filled red where significant, open blue otherwise; a line at 0."""
    rows = changes.set_index("occupation").loc[occupations]
    y = np.arange(len(occupations))
    errors = [rows["change"] - rows["low"], rows["high"] - rows["change"]]
    ax.errorbar(rows["change"], y, xerr=errors, fmt="none", ecolor="grey", capsize=2)
    significant = rows["significant"].to_numpy(dtype=bool)
    ax.scatter(rows["change"][significant], y[significant], color="tab:red", zorder=3)
    ax.scatter(
        rows["change"][~significant],
        y[~significant],
        facecolors="white",
        edgecolors="tab:blue",
        zorder=3,
    )
    ax.axvline(0, color="black", lw=0.8)


def paired_changes(changes: pd.DataFrame, a: str, b: str, path: str | Path) -> None:
    """A comparison of two runs: per metric, each occupation's change B - A with its interval;
    filled where significant after the BH correction."""
    metrics = list(dict.fromkeys(changes["metric"]))
    occupations = list(dict.fromkeys(changes["occupation"]))
    fig, axes = plt.subplots(
        1,
        len(metrics),
        figsize=(3.2 * len(metrics), 1.2 + 0.28 * max(len(occupations), 1)),
        sharey=True,
        squeeze=False,
    )
    for ax, metric in zip(axes[0], metrics, strict=True):
        _change_dots(ax, changes[changes["metric"] == metric], occupations)
        limit = 2.05 if metric == "difference" else 1.05
        ax.set_xlim(-limit, limit)
        ax.set_xlabel(f"change in {metric}")
    axes[0][0].set_yticks(np.arange(len(occupations)), occupations, fontsize=7)
    axes[0][0].invert_yaxis()
    fig.suptitle(f"{b} - {a} per occupation (filled: significant after BH)", fontsize=9)
    _save(fig, path)


def intervention(
    intervals: dict[str, pd.DataFrame], changes: pd.DataFrame, title: str, path: str | Path
) -> None:
    """An intervention against its baseline. Left: each occupation's difference in the baseline
    and in the arm with their intervals (``intervals``: the two runs' intervals.tsv by label,
    baseline first). Right: the change arm - baseline with its interval, filled where
    significant after BH; the pooled change last."""
    occupations = list(dict.fromkeys(changes["occupation"]))
    y = np.arange(len(occupations))
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(9, 1.4 + 0.3 * max(len(occupations), 1)), sharey=True
    )
    for offset, (label, table), color in zip(
        (-0.15, 0.15), intervals.items(), ("tab:grey", "tab:blue"), strict=True
    ):
        rows = table[table["metric"] == "difference"].set_index("occupation")
        rows = rows.reindex(occupations)
        errors = [rows["estimate"] - rows["low"], rows["high"] - rows["estimate"]]
        left.errorbar(
            rows["estimate"], y + offset, xerr=errors, fmt="o", color=color, ms=4, label=label
        )
    left.axvline(0, color="black", lw=0.8)
    left.set(xlim=(-1.05, 1.05), xlabel="difference (each arm, its interval)")
    left.legend(fontsize=7, loc="lower right")
    _change_dots(right, changes[changes["metric"] == "difference"], occupations)
    right.set(xlim=(-2.05, 2.05), xlabel="change arm - baseline (filled: significant)")
    left.set_yticks(y, occupations, fontsize=7)
    left.invert_yaxis()
    fig.suptitle(title, fontsize=9)
    _save(fig, path)


def calibration(
    checks: pd.DataFrame, table: pd.DataFrame, nominal: float, path: str | Path
) -> None:
    """Left: every simulated audit's difference estimate (each reading) against its planted
    truth. Right: each quantity's coverage with its Monte-Carlo interval against the nominal
    level."""
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(11, 1.5 + 0.25 * max(len(table), 8)), gridspec_kw={"width_ratios": [1, 1.2]}
    )
    differences = checks[checks["quantity"].str.startswith("difference_")]
    for quantity, rows in differences.groupby("quantity", sort=False):
        left.scatter(rows["truth"], rows["estimate"], s=5, alpha=0.25, label=quantity)
    span = [-1, 1]
    left.plot(span, span, color="black", lw=0.8, ls="--", label="estimate = truth")
    left.set(xlabel="planted truth", ylabel="estimate", title="Differences: estimate vs truth")
    left.legend(fontsize=7, loc="upper left")
    y = np.arange(len(table))
    right.hlines(y, table["coverage_low"], table["coverage_high"], color="tab:blue", lw=1.5)
    right.scatter(table["coverage"], y, color="tab:blue", zorder=3, s=14, label="coverage")
    right.axvline(nominal, color="black", ls="--", lw=0.8, label=f"nominal {nominal:.0%}")
    right.axvline(nominal - 0.02, color="tab:red", ls=":", lw=0.8, label="2 points below")
    right.set_yticks(y, table["quantity"], fontsize=7)
    right.set_ylim(len(table) - 0.5, -0.5)
    right.set(xlabel="share of intervals covering the truth", title="Coverage (line: MC 95%)")
    right.set_xlim(min(0.5, float(table["coverage_low"].min()) - 0.02), 1.005)
    right.legend(fontsize=7, loc="lower left")
    _save(fig, path)


def impact_figure(
    table: pd.DataFrame, model: str, path: str | Path, threshold: float = 0.8
) -> None:
    """One panel per question: each (occupation, group)'s impact ratio with its interval,
    occupations spread within a group's row, those below ``threshold`` in red."""
    questions = sorted(set(table["question"])) or ["(none)"]
    groups = sorted(set(table["group"]))
    rows = {group: i for i, group in enumerate(groups)}
    occupations = list(dict.fromkeys(table["occupation"]))
    spread = dict(zip(occupations, np.linspace(-0.3, 0.3, len(occupations)), strict=True))
    if len(occupations) == 1:
        spread = {occupations[0]: 0.0}
    fig, axes = plt.subplots(
        1,
        len(questions),
        figsize=(1.5 + 3.5 * len(questions), 1.2 + 0.55 * max(len(groups), 1)),
        sharey=True,
        squeeze=False,
    )
    for ax, question in zip(axes[0], questions, strict=True):
        asked = table[table["question"] == question]
        y = asked["group"].map(rows) + asked["occupation"].map(spread)
        below = asked["below_threshold"].to_numpy(dtype=bool)
        color = np.where(below, "tab:red", "tab:blue")
        ax.hlines(y, asked["ratio_low"], asked["ratio_high"], colors=color, lw=0.6, alpha=0.4)
        for mask, label, c in [(~below, "at or above", "tab:blue"), (below, "below", "tab:red")]:
            ax.scatter(
                asked["impact_ratio"][mask],
                y[mask],
                s=8,
                alpha=0.7,
                color=c,
                zorder=3,
                label=f"impact ratio {label} {threshold} (line: 95% interval over names)",
            )
        ax.axvline(threshold, color="black", ls="--", lw=0.8, label=f"threshold {threshold}")
        ax.set_xlim(-0.02, 1.05)
        ax.set_xlabel("impact ratio (rate / highest group rate)")
        ax.set_title(question)
    axes[0][0].set_yticks(range(len(groups)), groups, fontsize=8)
    axes[0][0].set_ylim(len(groups) - 0.5, -0.5)
    handles, labels = axes[0][0].get_legend_handles_labels()
    axes[0][-1].legend(handles, labels, fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1))
    title = f"{model}: selection-rate impact ratios, one point per occupation"
    fig.suptitle(title, fontsize=10, y=1.0, va="bottom")  # above the panels' own titles
    _save(fig, path)
