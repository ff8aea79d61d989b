"""The alignment with the workforce in words (analysis/alignment.py decides; this phrases)."""

from __future__ import annotations

import pandas as pd

from hiremeornot.analysis.alignment import FEWEST_OCCUPATIONS


def alignment_sentence(summary: pd.DataFrame, occupations: pd.DataFrame, audited: int) -> str:
    """One sentence on the headline measure's alignment: the slope per 10 points more women,
    its interval and what it shows, the same over the exact and close matches alone, the
    occupations against their workforce (and how many a model with no preference would put
    there), and what was matched."""
    row = summary.set_index("measure").loc["difference"]
    source = f"{row['source']} ({row['year']}, {row['licence']})"
    matched = f"{int(row['occupations'])} of {audited} occupations matched to a job category"
    if row["outcome"] == "too few occupations":
        return (
            f"**Alignment with the workforce**: not measured: a slope needs at least "
            f"{FEWEST_OCCUPATIONS} occupations matched to a job category, with different "
            f"shares of women; {matched} ({source})."
        )
    against = (
        f"{int(row['against'])} of {int(row['rated'])} occupations favour the gender "
        f"under-represented in the job ({row['against_share']:.0%}, "
        f"[{row['against_low']:.0%}, {row['against_high']:.0%}]; with no preference at all "
        "about half would, by chance)"
    )
    if row["differs"] > 0:
        against += f", {int(row['against_differs'])} of the {int(row['differs'])} that differ"
    going = occupations[occupations["against_workforce"].fillna(False).astype(bool)]
    named = going[going["verdict"] == "differs"]["occupation"].tolist()
    listed = f" (differ and go against it: {', '.join(named)})" if named else ""
    said = {
        "follows the workforce": "**follows the workforce**",
        "goes against the workforce": "**goes against the workforce**",
        "not shown": "shows no alignment it can tell from chance",
    }[row["outcome"]]
    return (
        f"**Alignment with the workforce** ({source}; {matched}, "
        f"{int(row['female_names'])} + {int(row['male_names'])} names): the headline "
        f"difference {said}: it changes by {row['slope'] / 10:+.3f} "
        f"[{row['slope_low'] / 10:+.3f}, {row['slope_high'] / 10:+.3f}] per 10 points more "
        f"women in the job (p = {row['slope_p']:.3g}; r = {row['correlation']:.2f}; the design "
        f"detects {row['detectable_slope'] / 10:.3f} per 10 points 80% of the time); "
        f"{_close_alone(row)}; {against}{listed}. A workforce share is not a stereotype measured "
        "in people's minds."
    )


def _close_alone(row: pd.Series) -> str:
    """The slope over the exact and close matches alone, or why it is not fitted (or needs not
    be: every match is one)."""
    count = int(row["close_occupations"])
    if count == int(row["occupations"]):
        return f"all {count} matches exact or close"
    if pd.isna(row["close_slope"]):
        return f"too few exact or close matches ({count}) to fit without the broad ones"
    return (
        f"over the {count} exact or close matches alone, {_per_ten_points(row, 'close_')} "
        f"(p = {row['close_slope_p']:.3g})"
    )


# What the slope's test shows, as "its choices ..." says it.
CHOICES_SAY = {
    "follows the workforce": "follow the workforce",
    "goes against the workforce": "go against the workforce",
    "not shown": "show no alignment with the workforce it can tell from chance",
}


def alignment_line(summary: pd.DataFrame, occupations_differing: int) -> str:
    """The first page's sentence on the headline difference's alignment: what the test shows,
    the slope per 10 points with its interval and p, and, where it shows one while no single
    occupation differs, that the pattern lies across occupations, not in any one of them."""
    row = summary.set_index("measure").loc["difference"]
    source = (
        row["source"] if str(row["year"]) in row["source"] else f"{row['source']}, {row['year']}"
    )
    matched = f"{int(row['occupations'])} occupations matched to {source}"
    if row["outcome"] == "too few occupations":
        return f"Alignment with the workforce: not measured ({matched})."
    sentence = (
        f"Across occupations, its choices {CHOICES_SAY[row['outcome']]}: the female-minus-male "
        f"difference changes by {_per_ten_points(row)} (p = {row['slope_p']:.2g}; {matched})"
    )
    if row["outcome"] != "not shown" and occupations_differing == 0:
        sentence += (
            ", although no single occupation's difference is shown: the pattern lies across "
            "occupations, not in any one"
        )
    return sentence + ". A workforce share is not a stereotype measured in people's minds."


def alignment_phrase(summary: pd.DataFrame) -> str:
    """The alignment in a few words, for the terminal: what the test shows and the slope."""
    row = summary.set_index("measure").loc["difference"]
    if row["outcome"] == "too few occupations":
        return "alignment with the workforce not measured (too few occupations matched)"
    return (
        f"across occupations its choices {CHOICES_SAY[row['outcome']]} "
        f"({_per_ten_points(row)}, p = {row['slope_p']:.2g})"
    )


def _per_ten_points(row: pd.Series, prefix: str = "") -> str:
    """A slope (``prefix``: which one) per 10 points, with its interval."""
    slope, low, high = (row[f"{prefix}slope{end}"] / 10 for end in ("", "_low", "_high"))
    return f"{slope:+.3f} [{low:+.3f}, {high:+.3f}] per 10 points more women in the job"
