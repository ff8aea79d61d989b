"""Two runs compared, in words: what flipped, what changed per occupation, what that shows."""

from __future__ import annotations

from hiremeornot.analysis.compare import Comparison, changed_questions
from hiremeornot.analysis.stats import ALL_OCCUPATIONS
from hiremeornot.errors import one_line
from hiremeornot.writing.markdown import markdown_table, percent


def summary_paragraph(comparison: Comparison) -> str:
    """What changed from A to B, and what can and cannot be concluded, in words."""
    c = comparison
    total = c.flips[c.flips["step"] == "all"].iloc[0]
    step1 = c.flips[c.flips["step"] == "step1"].iloc[0]
    later = c.flips[c.flips["step"].isin(["step2", "step3"])]
    identical_later = int(later["identical"].sum())
    flipped_later = int(later["flipped"].sum())
    through = int(later["through_step1"].sum())
    changed_through = int(later["changed_through_step1"].sum())
    each = c.changes[c.changes["occupation"] != ALL_OCCUPATIONS]
    significant = each[each["significant"]]
    parts = [
        f"**{c.b}** against **{c.a}**: both asked the same {total['questions']} questions "
        f"(matched by prompt and answer space, Steps 2-3 by instance and question). Of the "
        f"{total['identical']} questions whose text was identical in both, "
        f"**{total['flipped']} flipped** ({percent(total['flipped_share'], places=1)}): "
        f"{step1['flipped']} of {step1['identical']} in Step 1 and {flipped_later} of "
        f"{identical_later} in Steps 2-3."
    ]
    if through:
        parts.append(
            f"{through} Step-2/3 questions read differently because Step 1 granted other "
            f"attributes; {changed_through} of them were answered otherwise (a consequence of "
            "Step 1, not counted as flips)."
        )
    named = ", ".join(f"{r.metric} of {r.occupation}" for r in significant.itertuples())
    parts.append(
        f"Per occupation, the change B - A in Confirmation, Consistency and the difference "
        f"(reading `{c.reading}`) has a {c.confidence:.0%} interval over names (its variance "
        f"clustered by both sides' names); {len(significant)} of {len(each)} tests are "
        f"significant after Benjamini-Hochberg across occupations (q < {c.alpha})"
        f"{': ' + named if named else ''}. "
        f"The rows `{ALL_OCCUPATIONS}` pool every occupation's instances, each a test of its own; "
        "`mdd` is the smallest change a test would find with 80% power."
    )
    if not c.reachable:
        parts.append(f"**{unreachable(c)}**: run more name pairs to test changes.")
    parts.append(
        "Flips say that the model answered the same text otherwise; they can be sampling noise "
        "where either run samples its answers (temperature above 0, or a server that is not "
        "deterministic: `hiremeornot drift` measures how often a re-asked question changes). "
        f"{NOT_ABSENT} {SCOPE}"
    )
    return " ".join(parts)


NOT_ABSENT = (
    "A change that is not significant is not shown to be absent: the interval says how large "
    "it may be."
)
SCOPE = (
    "The comparison covers these names, occupations and one wording each; it says nothing "
    "about why the runs differ."
)


def unreachable(c: Comparison) -> str:
    """Why no change can be significant (where Comparison.reachable is False)."""
    return (
        f"With so few names (or wordings) no p-value can go below {c.smallest_p:.3g}, so no "
        "change can be significant in this design, however large"
    )


def figure_caveats(comparison: Comparison) -> list[str]:
    """The lines under the comparison's figure, so that it reads right alone."""
    c = comparison
    lines = [
        f"Line: the change's {c.confidence:.0%} interval over names (clustered by both sides' "
        f"names); filled red: significant after Benjamini-Hochberg across occupations "
        f"(q < {c.alpha}).",
    ]
    if not c.reachable:
        lines.append(unreachable(c) + ".")
    return [*lines, NOT_ABSENT, SCOPE]


def comparison_markdown(comparison: Comparison, examples: int = 10) -> str:
    """The report: the summary in words, the flips, the per-occupation changes."""
    c = comparison
    flips = c.flips.assign(flipped_share=[percent(s, places=1) for s in c.flips["flipped_share"]])
    changes = c.changes.assign(
        interval=[
            f"[{lo:+.3f}, {hi:+.3f}]"
            for lo, hi in zip(c.changes["low"], c.changes["high"], strict=True)
        ]
    )[
        [
            "metric",
            "occupation",
            "n",
            "mean_a",
            "mean_b",
            "change",
            "interval",
            "p_value",
            "q_value",
            "significant",
            "mdd",
        ]
    ]
    changes = changes.rename(columns={"mean_a": f"{c.a}", "mean_b": f"{c.b}"})
    changed = changed_questions(c)
    shown = changed[changed["identical"]].head(examples)
    lines = [
        f"# {c.b} against {c.a}",
        "",
        summary_paragraph(c),
        "",
        "## Flipped answers",
        "",
        "`identical`: questions whose prompt and answer space were the same in both runs; "
        "`flipped`: those answered otherwise (`transitions`: A's role -> B's role); "
        "`through_step1`: Step-2/3 questions whose text differs because Step 1 granted other "
        "attributes, and how many of them were answered otherwise.",
        "",
        markdown_table(flips),
        "## Changes per occupation (B - A)",
        "",
        f"Means over instances; the interval ({c.confidence:.0%}) and the p-value come from the "
        "paired per-instance differences, their variance clustered by both sides' names; "
        "q-values are Benjamini-Hochberg across occupations per metric. Confirmation: higher is "
        "better; "
        f"Consistency: lower is better; the difference: > 0 favours {c.sides.a_words} subjects.",
        "",
        markdown_table(changes),
    ]
    if len(shown):
        lines += [
            f"## Flipped questions ({len(shown)} of {int(changed['identical'].sum())})",
            "",
            markdown_table(
                shown[["step", "question", "choice_a", "choice_b", "prompt_a"]]
                .assign(prompt_a=[one_line(p, 120) for p in shown["prompt_a"]])
                .rename(columns={"prompt_a": "prompt"})
            ),
        ]
    return "\n".join(lines)
