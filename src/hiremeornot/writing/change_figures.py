"""Figures of two runs' changes: a comparison's paired changes and an intervention against its
baseline."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from hiremeornot.analysis.stats import ALL_OCCUPATIONS
from hiremeornot.writing.figures import add_footer, plt, save


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


def by_change(changes: pd.DataFrame) -> list[str]:
    """The occupations from the largest change of the difference to the smallest (of the first
    metric where the difference is not among them), the pooled row last."""
    metrics = list(dict.fromkeys(changes["metric"]))
    metric = "difference" if "difference" in metrics else next(iter(metrics), None)
    rows = changes[changes["metric"] == metric].sort_values(
        "change", ascending=False, kind="stable"
    )
    order = [o for o in rows["occupation"] if o != ALL_OCCUPATIONS]
    return order + ([ALL_OCCUPATIONS] if ALL_OCCUPATIONS in set(rows["occupation"]) else [])


def paired_changes(
    changes: pd.DataFrame, a: str, b: str, path: str | Path, caveats: list[str]
) -> None:
    """A comparison of two runs: per metric, each occupation's change B - A with its interval
    (sorted by the difference's change, by_change); filled where significant after the BH
    correction; ``caveats`` under it."""
    metrics = list(dict.fromkeys(changes["metric"]))
    occupations = by_change(changes)
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
    add_footer(axes[0][0], caveats, width=40 + 45 * len(metrics))
    save(fig, path)


def intervention(
    intervals: dict[str, pd.DataFrame],
    changes: pd.DataFrame,
    title: str,
    path: str | Path,
    footer: list[str],
) -> None:
    """An intervention against its baseline. Left: each occupation's difference in the baseline
    and in the arm with their intervals (``intervals``: the two runs' intervals.tsv by label,
    baseline first). Right: the change arm - baseline with its interval, filled where
    significant after BH; the pooled change last; ``footer``: the arm's caveats."""
    occupations = by_change(changes)
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
    add_footer(left, footer, width=120)
    save(fig, path)
