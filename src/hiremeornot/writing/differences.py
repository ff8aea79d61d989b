"""The difference tables: occupations above the threshold with their intervals, tests and
verdicts, and the caveats that say what else could explain a difference."""

from __future__ import annotations

import pandas as pd

from hiremeornot.analysis.findings import fact
from hiremeornot.design.contrasts import Contrast
from hiremeornot.tables_io import write_table
from hiremeornot.writing.markdown import markdown_table, percent, write_markdown
from hiremeornot.writing.non_answers import QUESTION_NAMES, free_questions, named_questions

TEST_FIELDS = ["p_value", "q_value", "significant", "p_equivalence", "q_equivalence", "verdict"]


def annotated_differences(
    metrics: pd.DataFrame, intervals: pd.DataFrame, tests: pd.DataFrame, threshold: float
) -> pd.DataFrame:
    """Occupations whose |difference| exceeds the threshold, with interval, tests and verdict."""
    bounds = intervals[intervals["metric"] == "difference"][["occupation", "low", "high"]]
    table = (
        metrics[["occupation", "difference"]]
        .merge(bounds, on="occupation", validate="1:1")
        .merge(tests[["occupation", *TEST_FIELDS]], on="occupation", validate="1:1")
    )
    above = table[table["difference"].abs() > threshold]
    return above.sort_values(["difference", "occupation"], ascending=[False, True]).reset_index(
        drop=True
    )


def forest_points(intervals: pd.DataFrame, tests: pd.DataFrame) -> pd.DataFrame:
    """Every occupation's difference with its interval and verdict, smallest first (the forest
    plot draws them bottom up, so the largest sits on top)."""
    bounds = intervals[intervals["metric"] == "difference"][["occupation", "low", "high"]]
    table = tests[["occupation", "difference", "verdict"]].merge(
        bounds, on="occupation", validate="1:1"
    )
    return table.sort_values(["difference", "occupation"], ascending=[True, False]).reset_index(
        drop=True
    )


def design_caveats(findings: pd.DataFrame, settings: dict, contrast: Contrast) -> list[str]:
    """What besides the contrasted groups could explain the differences, in words (position,
    names, chance, wording, the answer constraint), from the model's findings (findings.py).
    The first sentence is the position one. ``contrast``: the audit's
    (contrasts.GENDER_CONTRAST for the paper's)."""
    occupations = int(fact(findings, "p_floor")["total"])
    wordings = settings["wordings"]
    chance_note = (
        f"q-values correct for testing {occupations} occupations (Benjamini-Hochberg); "
        f"a |difference| above {settings['difference_threshold']} without a small q-value may "
        "be chance."
    )
    if len(wordings) > 1:
        wording_note = (
            f"The values pool {len(wordings)} wordings of every question ({', '.join(wordings)}); "
            "intervals and tests resample the wordings beside the names, so they speak for "
            "wordings like these. results/<model>/wordings/ reports each wording."
        )
    else:
        wording_note = (
            "Every question used one wording; a difference may not survive rewording it "
            "(prompts.variants, docs/prompts.md)."
        )
    return [
        _position_note(findings, contrast),
        _names_note(findings, settings, contrast),
        chance_note,
        wording_note,
        _constraint_note(free_questions(findings)),
    ]


def _constraint_note(free: list[str]) -> str:
    """What holding answers to the answer space, or asking free (``free``: the questions asked
    so), leaves in the numbers."""
    held = [q for q in QUESTION_NAMES if q not in free]
    if not free:
        return (
            "Every answer was held to its answer space: Q2 offers only the two people, so it "
            "names one of them even where the model would have named neither, and the biased "
            "and q2 readings inherit that forced choice. Q3's both/neither answers and the `_p` "
            "metrics (the model's own probabilities) show how strongly it leaned; how much "
            "probability it put outside the answer words, where its backend shows it, is in "
            "results/<model>/answer_space.tsv."
        )
    note = (
        f"{named_questions(free)} {_was(free)} asked free, without the answer constraint: a "
        "reply that refused, hedged or gave no answer is a non-answer, and the differences are "
        "on the instances answered whole, a selected sample where one group's questions went "
        "unanswered more (results/<model>/non_answers.tsv gives the rates per group). Free "
        "replies carry no probabilities, so the `_p` metrics do not speak for them."
    )
    if "q2" in held:
        note += (
            " Q2 was held to its answer space: it offers only the two people, so it names one "
            "of them even where the model would have named neither."
        )
    elif held:
        note += f" {named_questions(held)} {_was(held)} held to the answer space."
    return note


def _was(questions: list[str]) -> str:
    return "was" if len(questions) == 1 else "were"


def _position_note(findings: pd.DataFrame, contrast: Contrast) -> str:
    """Whether the listing orders balance position, or confound it with the contrast."""
    sides = contrast.sides
    orders = fact(findings, "listing_orders")
    share = percent(orders["value"])
    what = sides.attribute
    balanced = (
        f"the mean of the {sides.a_words}-first and the {sides.b_words}-first listing (Q2 named "
        f"the first-listed subject in {share} of its answers; the balance cancels that position "
        "effect)"
    )
    if orders["outcome"] == "balanced":
        position_note = f"Differences are order-balanced: {balanced}."
    elif orders["outcome"] == "partly confounded":
        some = int(orders["total"])
        position_note = (
            f"**Position and {what} are confounded in {some} "
            f"{'occupation' if some == 1 else 'occupations'}**, whose answered instances are in "
            f"one listing order only ({orders['detail']}): "
            "their differences may be a preference for the first-listed name, and their "
            f"verdicts say so. The other occupations' differences are {balanced}."
        )
    else:
        run = orders["detail"].split(" / ")
        firsts = "/".join(
            dict(zip(sides.orders, (sides.a_words, sides.b_words), strict=True)).get(o, o)
            for o in run
        )
        run_both = "female_first, male_first" if contrast.is_paper else "a_first, b_first"
        position_note = (
            f"**Position and {what} are confounded:** only the order "
            f"{orders['detail']} was run, so the {firsts} name was always listed "
            f"first, and Q2 named the first-listed subject in {share} of its answers. A "
            "difference here may be a preference for the first-listed name: it is not a "
            f"{what} finding. Run `names.orders: [{run_both}]`."
        )
    return position_note


def _names_note(findings: pd.DataFrame, settings: dict, contrast: Contrast) -> str:
    """The names as a sample, and whether the test's floor on p lets any occupation differ."""
    sides = contrast.sides
    names, reach = fact(findings, "names"), fact(findings, "p_floor")
    a_names, b_names = int(names["count"]), int(names["total"])
    occupations, floor = int(reach["total"]), reach["value"]
    wordings = settings["wordings"]
    names_note = (
        f"Intervals and tests treat the {a_names} {sides.a_words} and {b_names} "
        f"{sides.b_words} names as a sample of names (the variance clustered by both); names "
        "unlike these may behave differently."
    )
    if reach["outcome"] != "reachable":
        if reach["outcome"] == "too few wordings":
            limit, remedy = (
                f"{len(wordings)} wordings pooled as a random factor",
                "Use more wordings, or read each wording's results (results/<model>/wordings/).",
            )
        else:
            longer = "`names.list: unqover`" if contrast.is_paper else "a longer name list"
            limit, remedy = (
                f"{min(a_names, b_names)} names on the smaller side",
                f"Use more names (`names.pairs: all`, or {longer}).",
            )
        names_note += (
            f" With {limit} the test's floor on p (2^(1-k), the exact sign test's smallest p "
            f"with k independent units) is {floor:.3g}, not below alpha = {settings['alpha']}: "
            "**no occupation can be significant in these tables' tests, whatever the model "
            f"does.** {remedy}"
        )
    else:
        needed = int(reach["count"])
        names_note += (
            f" The test sets a floor of {floor:.3g} on p (2^(1-k), the exact sign test's "
            "smallest p with k independent units; a choice of the test, not a limit of the "
            f"design). With Benjamini-Hochberg across {occupations} occupations, "
            + (
                f"an occupation can be flagged only once {needed} of them sit at that floor: one "
                "or two strongly biased occupations among many may go unflagged, and '0 differ' "
                "does not say that none does."
                if needed > 1
                else "an occupation at that floor can be flagged on its own."
            )
        )
    if names["outcome"] == "one pair":
        names_note = (
            f"The control has one pair of labels ({sides.a_words}, {sides.b_words}), not a "
            "sample of names: its intervals span every value and **no occupation can be "
            "significant**. Read it beside the contrasts of names (results/contrasts.md), not "
            "on its own."
        )
    return names_note


def write_difference_table(
    table: pd.DataFrame,
    model: str,
    settings: dict,
    caveats: list[str],
    *,
    tsv: str,
    md: str,
    contrast: Contrast,
) -> None:
    """A difference table as TSV and as Markdown with a caption and the caveats."""
    write_table(table, tsv)
    sides = contrast.sides
    a, b = sides.a_words, sides.b_words
    caption = (
        f"Occupations with |{a} - {b} difference| > {settings['difference_threshold']} for "
        f"{model} (reading: {settings['difference']}, docs/method.md). Positive values: the "
        f"model's behaviour favours {a} subjects; negative: {b} subjects. low-high: "
        f"{settings['confidence']:.0%} interval over the names; p_value: test of a zero "
        "difference; q_value: Benjamini-Hochberg across occupations; p_equivalence / "
        f"q_equivalence: two one-sided tests of |difference| < {settings['equivalence_margin']}; "
        f"verdict: differs (q_value < {settings['alpha']}), equivalent (q_equivalence < "
        f"{settings['alpha']}) or inconclusive."
    )
    notes = "\n".join(f"- {line}" for line in caveats)
    body = markdown_table(table) if len(table) else "(no occupation above the threshold)\n"
    write_markdown(f"{caption}\n\n{notes}\n\n{body}", md)
