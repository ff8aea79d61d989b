"""A model's figures, with matplotlib: the paper's Figures 3-5, the forest plot of the
differences, the attribute gaps, the wordings' differences and the calibration's coverage; and
what every figure shares (``save``, ``add_footer``). Two runs' changes are in change_figures, the
impact ratios in impact_figure."""

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


def save(fig: plt.Figure, path: str | Path) -> None:
    with atomic_output(path) as partial:
        fig.savefig(partial, dpi=150, bbox_inches="tight")
    plt.close(fig)


def add_footer(ax: plt.Axes, lines: list[str], width: int = 110) -> None:
    """The caveats under the axis label, whatever the figure's height (at a fixed height they
    overlapped it): a figure pasted alone keeps them."""
    if lines:
        ax.annotate(
            "\n".join(textwrap.fill(line, width) for line in lines),
            xy=(0, 0),
            xycoords=("figure fraction", ax.xaxis.label),
            xytext=(0, -6),
            textcoords="offset points",
            va="top",
            fontsize=7,
        )


def _whiskers(ax: plt.Axes, values: pd.Series, low: pd.Series, high: pd.Series, y) -> None:
    """Each value's interval as a grey line with caps, at heights ``y`` (the dots drawn apart)."""
    errors = [values - low, high - values]
    ax.errorbar(values, y, xerr=errors, fmt="none", ecolor="grey", elinewidth=1, capsize=2)


def metric_distribution(
    metrics: pd.DataFrame, metric: str, path: str | Path, subtitle: str, footer: list[str]
) -> None:
    """Figures 3 and 4: one box per model, one dot per occupation; ``subtitle`` names the
    contrast under the title (empty for the paper's female vs male audit), ``footer`` the
    caveats."""
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
    add_footer(ax, footer, width=40 + 25 * len(models))
    save(fig, path)


# Fig. 5 names up to this many points, the farthest from the median first, and none whose label
# would cover another's (a label's extent in the axes' units).
NAMED_POINTS = 12
LABEL_WIDTH, LABEL_HEIGHT = 0.2, 0.035


def scatter_points(rows: pd.DataFrame, named: int = NAMED_POINTS) -> pd.DataFrame:
    """One model's Fig. 5 points: occupations with the same Consistency and Confirmation share
    one (``n``), labelled by the first of them ("nurse +2" for three); ``named``: whether the
    label is drawn (the farthest from the median first, up to ``named``, none over another)."""
    rounded = rows.round({"consistency": 6, "confirmation": 6})
    points = (
        rounded.sort_values("occupation")
        .groupby(["consistency", "confirmation"])["occupation"]
        .agg(["first", "size"])
        .reset_index()
        .rename(columns={"size": "n"})
    )
    points["label"] = points["first"] + np.where(
        points["n"] > 1, " +" + (points["n"] - 1).astype(str), ""
    )
    distance = np.hypot(
        points["consistency"] - rounded["consistency"].median(),
        points["confirmation"] - rounded["confirmation"].median(),
    )
    chosen: list[int] = []  # the farthest first, none whose label would cover another's
    for index in distance.sort_values(ascending=False, kind="stable").index:
        clear = all(
            abs(points.at[index, "consistency"] - points.at[other, "consistency"]) > LABEL_WIDTH
            or abs(points.at[index, "confirmation"] - points.at[other, "confirmation"])
            > LABEL_HEIGHT
            for other in chosen
        )
        if clear and len(chosen) < named:
            chosen.append(index)
    points["named"] = points.index.isin(chosen)
    return points.drop(columns="first")


def confirmation_vs_consistency(
    metrics: pd.DataFrame, path: str | Path, subtitle: str, footer: list[str]
) -> None:
    """Figure 5: per model, Consistency (x) against Confirmation (y), one dot per occupation,
    named (scatter_points); occupations with the same values share one dot, sized by their
    count; ``footer``: the caveats."""
    models = list(dict.fromkeys(metrics["model"]))
    fig, axes = plt.subplots(1, len(models), figsize=(4.5 * len(models), 4.5), squeeze=False)
    every_named = True
    for ax, model in zip(axes[0], models, strict=True):
        points = scatter_points(metrics[metrics["model"] == model])
        every_named &= bool(points["named"].all())
        ax.scatter(points["consistency"], points["confirmation"], s=14 * points["n"], alpha=0.6)
        for point in points[points["named"]].itertuples():
            ax.annotate(
                point.label,
                (point.consistency, point.confirmation),
                xytext=(4, 3),
                textcoords="offset points",
                fontsize=6,
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
    named = (
        "every point named"
        if every_named
        else "named: the points farthest from the median, where their labels do not overlap"
    )
    add_footer(
        axes[0][0],
        [f"Dot size: occupations sharing the point ('+2': two more); {named}.", *footer],
        width=max(80, 50 * len(models)),
    )
    save(fig, path)


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
    _whiskers(ax, points["difference"], points["low"], points["high"], y)
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
    add_footer(ax, footer)
    save(fig, path)


# The attribute gaps figure draws at most this many attributes, the largest gaps.
MOST_ATTRIBUTES = 25


def gap_rows(gaps: pd.DataFrame, most: int = MOST_ATTRIBUTES) -> pd.DataFrame:
    """The pooled attribute gaps the figure draws: those not exactly zero, the ``most`` largest
    by size, smallest first, each labelled with both groups' rates."""
    pooled = gaps[(gaps["occupation"] == ALL_OCCUPATIONS) & (gaps["gap"] != 0)]
    drawn = pooled.loc[pooled["gap"].abs().sort_values(ascending=False, kind="stable").index]
    drawn = drawn.head(most).sort_values("gap", kind="stable")
    a, b = (column for column in gaps.columns if column.startswith("p_yes_"))
    labels = [
        f"{row.attribute} ({row.attribute_type}): {getattr(row, a):.0%} vs {getattr(row, b):.0%}"
        for row in drawn.itertuples()
    ]
    return drawn.assign(label=labels).reset_index(drop=True)


def attribute_gaps(
    gaps: pd.DataFrame, model: str, path: str | Path, sides: Sides, footer: list[str]
) -> None:
    """Step 1, pooled over occupations: P(Yes | A) - P(Yes | B) per attribute with its interval
    (gap_rows: the non-zero gaps, the largest MOST_ATTRIBUTES), both rates in the label;
    ``footer``: the model's caveats."""
    pooled = gaps[gaps["occupation"] == ALL_OCCUPATIONS]
    drawn = gap_rows(gaps)
    fig, ax = plt.subplots(figsize=(7, 1.4 + 0.22 * max(len(drawn), 1)))
    y = np.arange(len(drawn))
    _whiskers(ax, drawn["gap"], drawn["low"], drawn["high"], y)
    colours = np.where(drawn["gap"] > 0, *SIDE_COLOURS)
    ax.scatter(drawn["gap"], y, color=colours, zorder=3, s=20)
    ax.set_yticks(y, drawn["label"], fontsize=7)
    if drawn.empty:
        ax.text(0.5, 0.5, "every gap is exactly 0", ha="center", transform=ax.transAxes)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_xlim(-1.05, 1.05)
    ax.set_xlabel(
        f"P(Yes | {sides.a_words}) - P(Yes | {sides.b_words}) in Step 1 (label: "
        f"{sides.a_words} vs {sides.b_words})"
    )
    ax.set_title(f"{model}: attributes granted by {sides.attribute}", fontsize=10)
    zero = int((pooled["gap"] == 0).sum())
    shown = (
        f"{len(drawn)} of {len(pooled)} attributes drawn: {zero} with a gap of exactly 0 left "
        "out"
        + (
            f", and of the rest the {MOST_ATTRIBUTES} largest"
            if len(pooled) - zero > len(drawn)
            else ""
        )
        + " (attribute_gaps.tsv has all)."
    )
    add_footer(ax, [shown, *footer], width=100)
    save(fig, path)


def wording_differences(
    per_wording: pd.DataFrame,
    pooled: pd.DataFrame,
    model: str,
    path: str | Path,
    sides: Sides,
    footer: list[str],
) -> None:
    """Each occupation's difference under each wording with its interval over the names
    (colour), and pooled over the wordings with its interval over names and wordings (black),
    occupations ordered by the pooled difference; ``footer``: the model's caveats."""
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
    add_footer(ax, footer)
    save(fig, path)


def calibration(
    checks: pd.DataFrame,
    table: pd.DataFrame,
    nominal: float,
    path: str | Path,
    caveats: list[str],
) -> None:
    """Left: every simulated audit's difference estimate (each reading) against its planted
    truth. Right: each quantity's coverage with its Monte-Carlo interval against the nominal
    level; ``caveats`` under them."""
    fig, (left, right) = plt.subplots(
        1,
        2,
        figsize=(11, 1.5 + 0.25 * max(len(table), 8)),
        gridspec_kw={"width_ratios": [1, 1.2], "wspace": 0.45},
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
    add_footer(left, caveats, width=150)
    save(fig, path)
