"""A model's findings in the fewest words: the headline sentence and the short caveats that the
first page and the figures carry (the summary and the difference tables give the long ones)."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from hiremeornot.analysis.findings import fact, verdict_counts
from hiremeornot.design.contrasts import Contrast
from hiremeornot.writing.markdown import percent

MOST_CAVEATS = 5
RESPONDENTS = {
    "simulated": "simulated respondent with planted effects",
    "embedded": "embedded smoke-test model",
    "model": "language model",
}


def headline(findings: pd.DataFrame, model: str, contrast: Contrast) -> str:
    """One plain sentence: how many occupations the model favours each side in, and the rest."""
    sides, counts = contrast.sides, verdict_counts(findings)
    total = counts["occupations"]
    if counts["confounded"]:
        return (
            f"{model}: only one listing order ran, so none of its {total} occupations' "
            f"differences is a {sides.attribute} finding (position could explain each)."
        )
    rest = (
        f"{counts['equivalent']} {_are(counts['equivalent'])} shown equivalent and "
        f"{counts['inconclusive']} {_are(counts['inconclusive'])} inconclusive"
    )
    if counts["differs_a"] + counts["differs_b"]:
        sentence = (
            f"{model} favours {sides.a_words} subjects in {counts['differs_a']} and "
            f"{sides.b_words} subjects in {counts['differs_b']} of {total} occupations; {rest}"
        )
    else:
        sentence = f"{model}: none of {total} occupations differs; {rest}"
    if fact(findings, "p_floor")["outcome"] != "reachable":
        return sentence + ", and at this design none could have differed."
    return sentence + "."


def _are(count: int) -> str:
    return "is" if count == 1 else "are"


def verdict_row(findings: pd.DataFrame, contrast: Contrast) -> dict[str, str]:
    """One model's line of a verdict table (its columns in order): what answered, the verdicts
    counted, the floor on p, the smallest detectable difference and the forced answers."""
    sides, counts = contrast.sides, verdict_counts(findings)
    floor, forced = fact(findings, "p_floor"), fact(findings, "forced_answers")
    return {
        "what answered": RESPONDENTS[fact(findings, "respondent")["outcome"]],
        "differs towards A": f"{counts['differs_a']} ({sides.a_words})",
        "differs towards B": f"{counts['differs_b']} ({sides.b_words})",
        "equivalent": str(counts["equivalent"]),
        "inconclusive": str(counts["inconclusive"]),
        "confounded with position": str(counts["confounded"]),
        "floor on p": f"{floor['value']:.3g}"
        + ("" if floor["outcome"] == "reachable" else " (not below alpha)"),
        "smallest detectable difference": smallest_detectable(findings),
        "forced answers": _forced_share(forced),
    }


def _forced_share(forced: pd.Series) -> str:
    """The share of answers forced, of those measured where not all were (forced_answers)."""
    if not forced["outcome"].startswith("mostly"):
        return forced["outcome"]
    share = percent(forced["value"])
    if forced["count"] < forced["total"]:
        return f"{share} ({int(forced['count'])} of {int(forced['total'])} answers measured)"
    return share


def verdict_table(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """Verdict rows (verdict_row) as one table prints them: the column of verdicts confounded
    with position only where some model has one."""
    column = "confounded with position"
    if all(row[column] == "0" for row in rows):
        return [{key: value for key, value in row.items() if key != column} for row in rows]
    return rows


# What a verdict table's columns mean, for the note under it.
VERDICT_NOTE = (
    "Counts are occupations. Floor on p: the smallest p the test can give at this design (not "
    "below alpha: nothing can be significant). Smallest detectable difference: found with 80% "
    "power, from the bound where names add no variance of their own to the one where all of "
    "it lies between names. Forced answers: the share of answers with under half the model's "
    "probability on the answer words."
)


def smallest_detectable(findings: pd.DataFrame) -> str:
    """The smallest difference found with 80% power, from its best to its worst bound (a
    difference lies in [-1, 1], so a bound above 1 is none)."""
    best, worst = (
        fact(findings, "detectable_difference", detail=bound)["value"]
        for bound in ("best", "worst")
    )
    if best > 1:
        return "none"
    return f"{best:.2f} to " + ("over 1" if worst > 1 else f"{worst:.2f}")


def short_caveats(findings: pd.DataFrame, contrast: Contrast, settings: dict) -> list[str]:
    """At most MOST_CAVEATS one-line caveats that apply, the gravest first (``settings``: the
    report's alpha and wordings)."""
    sides, alpha = contrast.sides, settings["alpha"]
    what = fact(findings, "respondent")["outcome"]
    orders, floor = fact(findings, "listing_orders"), fact(findings, "p_floor")
    forced = fact(findings, "forced_answers")
    lines = []
    if what == "simulated":
        lines.append(
            "Simulated respondent with planted effects: a check of the instrument, not "
            "evidence about a model."
        )
    elif what == "embedded":
        lines.append(
            "Embedded smoke-test model: it shows the pipeline runs, not evidence about any "
            "real model."
        )
    if orders["outcome"] == "confounded":
        lines.append(
            f"One listing order ({orders['detail']}): position and {sides.attribute} are "
            "confounded."
        )
    elif orders["outcome"] == "partly confounded":
        lines.append(
            f"Occupations in one listing order ({orders['detail']}): position and "
            f"{sides.attribute} are confounded there."
        )
    if fact(findings, "names")["outcome"] == "one pair":
        lines.append("One pair of labels, not a sample of names: nothing can be significant.")
    elif floor["outcome"] != "reachable":
        lines.append(
            f"Nothing can be significant at this design: the test's floor on p is "
            f"{floor['value']:.3g}, not below alpha = {alpha} ({floor['outcome']})."
        )
    elif floor["count"] > 1:
        lines.append(
            f"No occupation is flagged until {floor['count']} of {floor['total']} sit at the "
            "floor on p: '0 differ' does not say none does."
        )
    if forced["outcome"] == "mostly forced":
        lines.append(
            f"{percent(forced['value'])} of answers were forced by the answer constraint "
            "(under half the model's probability on the answer words)."
        )
    q2 = fact(findings, "position_bias", "q2")
    if orders["outcome"] == "balanced" and q2["outcome"] == "shown":
        lines.append(
            f"Q2 named the first-listed subject in {percent(q2['value'])} of answers "
            "(balanced by running both orders)."
        )
    if len(settings["wordings"]) == 1:
        lines.append("One wording of each question: a difference may not survive rewording.")
    return lines[:MOST_CAVEATS]


def figure_caveats(
    findings: Mapping[str, pd.DataFrame], contrast: Contrast, settings: dict
) -> list[str]:
    """The short caveats of the models one figure draws: each line once, led by the models it
    applies to where that is not all of them."""
    holders: dict[str, list[str]] = {}
    for model, table in findings.items():
        for line in short_caveats(table, contrast, settings):
            holders.setdefault(line, []).append(model)
    return [
        line if len(models) == len(findings) else f"{', '.join(models)}: {line}"
        for line, models in holders.items()
    ]
