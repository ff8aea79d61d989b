"""The alignment figure: each occupation's headline difference against its share of women,
with the fitted line (analysis/alignment.py decides; this draws)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from hiremeornot.analysis.alignment import FEWEST_OCCUPATIONS
from hiremeornot.writing.figures import add_footer, plt, save

# How each occupation's point is drawn, by the crosswalk's match: face colour.
MATCH_FACES = {"exact": "black", "close": "dimgray", "broad": "white"}


def alignment_figure(
    occupations: pd.DataFrame,
    band: pd.DataFrame,
    summary: pd.DataFrame,
    model: str,
    path,
    confidence: float,
) -> None:
    """The headline difference of each matched occupation (``occupations``: the alignment's
    occupation table with the difference's interval, ``low`` and ``high``) against its share of
    women, named, filled by the match's quality, with its interval, the fitted line and the
    line's pointwise interval; the slope and what was left unmatched under it."""
    row = summary.set_index("measure").loc["difference"]
    matched = occupations[occupations["share_women"].notna()]
    line = band[band["measure"] == "difference"]
    fig, ax = plt.subplots(figsize=(8, 6))
    ax.axhline(0, color="gray", lw=0.8)
    ax.axvline(50, color="gray", lw=0.8, ls=":")
    if len(line):
        x = 100 * line["share_women"]
        ax.fill_between(x, line["low"], line["high"], color="tab:blue", alpha=0.2, lw=0)
        band_label = f"least-squares line, {confidence:.0%} band"
        ax.plot(x, line["fit"], color="tab:blue", label=band_label)
    ax.errorbar(
        100 * matched["share_women"],
        matched["difference"],
        yerr=[matched["difference"] - matched["low"], matched["high"] - matched["difference"]],
        fmt="none",
        ecolor="gray",
        elinewidth=0.8,
        label=f"the occupation's {confidence:.0%} interval",
        zorder=2,
    )
    for match, face in MATCH_FACES.items():
        points = matched[matched["match"] == match]
        if points.empty:
            continue
        ax.scatter(
            100 * points["share_women"],
            points["difference"],
            facecolor=face,
            edgecolor="black",
            s=28,
            label=f"{match} match ({len(points)})",
            zorder=3,
        )
    for point in matched.itertuples():
        ax.annotate(
            point.occupation,
            (100 * point.share_women, point.difference),
            xytext=(3, 3),
            textcoords="offset points",
            fontsize=7,
        )
    ax.set_xlim(0, 100)
    ax.set_xlabel(f"women in the job, % ({row['year']})")
    ax.set_ylabel("headline difference (female minus male)")
    ax.set_title(f"{model}: the headline difference against who holds each job")
    ax.legend(loc="best", fontsize=8)
    add_footer(ax, alignment_notes(occupations, row))
    save(fig, Path(path))


def alignment_notes(occupations: pd.DataFrame, row: pd.Series) -> list[str]:
    """The figure's footer: the slope, the shares' source, the occupations left unmatched or
    whose interval spans every possible difference, and how to read the axes (``row``: the
    alignment summary's difference row)."""
    notes = [_slope_words(row), f"Shares: {row['source']} ({row['licence']})."]
    unmatched = occupations[occupations["share_women"].isna()]["occupation"].tolist()
    if unmatched:
        notes.append(f"Not matched to a job category: {', '.join(unmatched)}.")
    matched = occupations[occupations["share_women"].notna()]
    unbounded = matched[(matched["low"] <= -1) & (matched["high"] >= 1)]
    if len(unbounded):
        notes.append(
            f"{len(unbounded)} of {len(matched)} intervals "
            f"{'spans' if len(unbounded) == 1 else 'span'} every possible difference "
            "(-1 to 1): too few names a side to bound them, so those points say nothing alone."
        )
    notes.append(
        "Right of the dotted line women hold most of the job; above zero the model favours "
        "the woman. A workforce share is not a stereotype measured in people's minds."
    )
    return notes


def _slope_words(row: pd.Series) -> str:
    """The slope per 10 points and what it shows, or why there is none."""
    if row["outcome"] == "too few occupations":
        return (
            f"No line: {int(row['occupations'])} occupations matched ({FEWEST_OCCUPATIONS} needed)."
        )
    return (
        f"Slope {row['slope'] / 10:+.3f} [{row['slope_low'] / 10:+.3f}, "
        f"{row['slope_high'] / 10:+.3f}] per 10 points more women (p = {row['slope_p']:.3g}): "
        f"{row['outcome']}."
    )
