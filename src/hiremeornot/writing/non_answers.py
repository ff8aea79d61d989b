"""Free questions' non-answers in words (analysis/non_answers.py and its findings): how often each
question went unanswered, whether one group's questions did more, and what the metrics rest on."""

from __future__ import annotations

import pandas as pd

from hiremeornot.analysis.findings import CLASSIFIER_AGREEMENT, fact
from hiremeornot.analysis.non_answers import (
    ABOUT_ONE,
    AGREES,
    ALL,
    CLASSIFIED,
    CLASSIFIER_AGREES,
    COMPARED,
    INSTANCES,
    KINDS,
)
from hiremeornot.design.contrasts import Sides

QUESTION_NAMES = {"step1": "Step 1", "q1": "Q1", "q2": "Q2", "q3": "Q3"}
DOUBTFUL = f"; under {CLASSIFIER_AGREEMENT:.0%} alike, its readings are doubtful"


def free_questions(findings: pd.DataFrame) -> list[str]:
    """The questions (step1, q1, q2, q3) the model was asked free."""
    rows = findings[(findings["finding"] == "non_answers") & (findings["outcome"] != "not asked")]
    return [question for question in rows["question"] if question in QUESTION_NAMES]


def named_questions(questions: list[str]) -> str:
    """Questions by name: "Q2 and Q3", "Step 1, Q1 and Q2"."""
    names = [QUESTION_NAMES[q] for q in questions]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def non_answer_sentence(table: pd.DataFrame, findings: pd.DataFrame, sides: Sides) -> str | None:
    """The summary's sentence on the questions asked free (None where none was)."""
    free = free_questions(findings)
    if not free:
        return None
    overall = table[table["occupation"] == ALL].set_index(["question", "kind"])
    rates = "; ".join(_rates(overall, question) for question in free)
    compared = [q for q in free if q in COMPARED]
    gaps = {q: fact(findings, "non_answer_gap", q) for q in compared}
    said = [
        _gap(overall.loc[(q, "any")], gap, sides)
        for q, gap in gaps.items()
        if overall.loc[(q, "any"), "count"]  # nothing to compare where none went unanswered
    ]
    if any(gap["outcome"] == "shown" for gap in gaps.values()):
        said.append("Who the model answers for is itself a finding.")
    agreed = [
        f"{QUESTION_NAMES[q]} {overall.loc[(q, AGREES), 'rate']:.0%} of "
        f"{int(overall.loc[(q, AGREES), 'asked'])}"
        for q in free
        if (q, AGREES) in overall.index and overall.loc[(q, AGREES), "asked"]
    ]
    if agreed:
        said.append(
            "Where the store also held the constrained answer, the free answer was the same in "
            f"{', '.join(agreed)} compared (`constrained` in the step tables)."
        )
    doubtful = fact(findings, "free_classifier")["outcome"] == "doubtful"
    if classified := _classifier_sentence(overall, free, doubtful):
        said.append(classified)
    instances = fact(findings, "non_answers", INSTANCES)
    kept = int(instances["total"] - instances["count"])
    text = (
        f"Free answers ({', '.join(QUESTION_NAMES[q] for q in free)} asked without the "
        f"constraint, each reply read by the documented parser): not answered {rates} "
        f"(results/<model>/non_answers.tsv). {' '.join(said)} "
        f"Every other number here is on the {kept} of {int(instances['total'])} instances "
        f"whose Q1-Q3 were all answered ({instances['value']:.0%} left out)"
    )
    if instances["count"]:
        text += (
            ": where the model answers for one group less often, the answered instances are a "
            "selected sample, and their differences are those of the questions it chose to answer"
        )
    return text + "."


def _classifier_sentence(overall: pd.DataFrame, free: list[str], doubtful: bool) -> str | None:
    """What the second model that read the replies did (None where none did): the replies it
    read that the parser could not, and how often it read the parser's others alike
    (``doubtful``: under CLASSIFIER_AGREEMENT, the free_classifier finding)."""
    read = [q for q in free if (q, CLASSIFIED) in overall.index]
    if not read:
        return None
    mended = ", ".join(
        f"{QUESTION_NAMES[q]} {int(overall.loc[(q, CLASSIFIED), 'count'])} of "
        f"{int(overall.loc[(q, CLASSIFIED), 'asked'])}"
        for q in read
    )
    alike = ", ".join(
        f"{QUESTION_NAMES[q]} {row['rate']:.0%} of {int(row['asked'])}"
        for q in read
        if (row := overall.loc[(q, CLASSIFIER_AGREES)])["asked"]
    )
    return (
        f"A second model (the `free_classifier`) read the replies the parser could not "
        f"({mended} replies; rule `classifier` in the step tables), and its readings count in "
        f"the rates above; where the parser read a reply, the classifier read it alike in "
        f"{alike or 'none compared'}: the parser's replies are the easier ones, so this is the "
        "most its own readings can be trusted"
        + (
            f"{DOUBTFUL}, and so are the rates its readings entered. Measure a classifier "
            "before an audit relies on it (benchmarks/classifier_accuracy.py)."
            if doubtful
            else "."
        )
    )


def _rates(overall: pd.DataFrame, question: str) -> str:
    """``Q1 18.8% (refused 11.8%, other 6.9%, unparsed 0.0%)``."""
    kinds = ", ".join(f"{kind} {overall.loc[(question, kind), 'rate']:.1%}" for kind in KINDS[1:])
    return f"{QUESTION_NAMES[question]} {overall.loc[(question, 'any'), 'rate']:.1%} ({kinds})"


def _gap(row: pd.Series, gap: pd.Series, sides: Sides) -> str:
    """Whether the questions went unanswered more for one group (about a person of it, or with
    one listed first), with the numbers."""
    a, b = sides.labels
    name = QUESTION_NAMES[row.name[0]]
    about_one = row.name[0] in ABOUT_ONE
    if gap["outcome"] == "untestable":
        why = (
            "too few names, or no name's rate differs from another's"
            if about_one
            else "it needs name pairs asked in both listing orders, with enough names on each "
            "side for the test's floor on p to go below alpha"
        )
        return f"{name}: whether it went unanswered more for one group cannot be tested ({why})."
    interval = (
        f" [{row['difference_low'] * 100:+.1f}, {row['difference_high'] * 100:+.1f}]"
        if row["difference_low"] == row["difference_low"]
        else ""
    )
    listed = "" if about_one else " listed first"
    numbers = (
        f"{row['difference'] * 100:+.1f} points{interval} ({sides.a_words}{listed} "
        f"{row[f'rate_{a}']:.1%} against {sides.b_words}{listed} {row[f'rate_{b}']:.1%}, "
        f"p = {row['p_value']:.2g}, {int(row[f'names_{a}'])} + {int(row[f'names_{b}'])} names "
        + ("as the sample)" if about_one else "in the pairs asked in both orders)")
    )
    more = sides.a_words if row["difference"] > 0 else sides.b_words
    if gap["outcome"] == "shown" and about_one:
        return f"**{name}: questions about {more} subjects went unanswered more often**, {numbers}."
    if gap["outcome"] == "shown":
        return f"**{name} went unanswered more often with a {more} name listed first**, {numbers}."
    between = "groups'" if about_one else "listing orders'"
    return f"{name}: no difference shown between the {between} non-answers, {numbers}."


def non_answer_phrase(findings: pd.DataFrame, sides: Sides) -> str | None:
    """The terminal's line on the questions asked free (None where none was): the share not
    answered per question, a gap between the groups where one is shown, what the metrics keep."""
    free = free_questions(findings)
    if not free:
        return None
    rates = ", ".join(
        f"{QUESTION_NAMES[q]} {fact(findings, 'non_answers', q)['value']:.0%}" for q in free
    )
    shown = [
        (q, gap)
        for q in free
        if q in COMPARED and (gap := fact(findings, "non_answer_gap", q))["outcome"] == "shown"
    ]
    gaps = "; ".join(
        f"{QUESTION_NAMES[q]} {gap['value'] * 100:+.1f} points for {sides.a_words} "
        + ("subjects" if q in ABOUT_ONE else "listed first")
        + f", p = {gap['p_value']:.2g}"
        for q, gap in shown
    )
    instances = fact(findings, "non_answers", INSTANCES)
    kept = int(instances["total"] - instances["count"])
    classifier = fact(findings, "free_classifier")
    read = ""
    if classifier["outcome"] != "not used":
        read = f"; a free_classifier read {int(classifier['count'])} replies the parser could not"
        if classifier["total"]:
            read += (
                f" (and {classifier['value']:.0%} of {int(classifier['total'])} others as the "
                "parser did, the most its own readings can be trusted"
                + (DOUBTFUL if classifier["outcome"] == "doubtful" else "")
                + ")"
            )
    return (
        f"free answers: not answered {rates}"
        + (f"; unanswered more by group ({gaps})" if gaps else "")
        + read
        + f"; the metrics rest on the {kept} of {int(instances['total'])} instances answered whole"
    )
