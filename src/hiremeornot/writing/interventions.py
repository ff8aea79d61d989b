"""An intervention's effect in words: what the instruction was, what it changed, what it cannot
show; and its line in the summary."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from hiremeornot.analysis.interventions import OUTCOMES, Effect
from hiremeornot.analysis.stats import ALL_OCCUPATIONS
from hiremeornot.writing.compare import unreachable
from hiremeornot.writing.markdown import markdown_table, percent

PLACES = {"system": "added to the system message", "preamble": "before every prompt's context"}


def _interval(low: float, high: float) -> str:
    return f"[{low:+.3f}, {high:+.3f}]"


def _mdd(value: float) -> str:
    return "none possible" if value == float("inf") else f"{value:.3f}"


def _undetected(row: pd.Series) -> str:
    """How large a change could go unseen, where the change is not significant."""
    return "" if row["significant"] else f" (smallest detectable: {_mdd(row['mdd'])})"


def pooled_row(changes: pd.DataFrame, metric: str = "difference") -> pd.Series:
    """The pooled (all occupations) row of one metric's changes."""
    rows = changes[(changes["occupation"] == ALL_OCCUPATIONS) & (changes["metric"] == metric)]
    return rows.iloc[0]


def outcome_counts(changes: pd.DataFrame) -> str:
    """How many occupations each outcome of the difference's change, most common first."""
    each = changes[(changes["metric"] == "difference") & (changes["occupation"] != ALL_OCCUPATIONS)]
    counts = each["outcome"].value_counts()
    return ", ".join(f"{count} {name}" for name, count in counts.items())


def summary_line(label: str, instruction: Mapping[str, str], changes, flips, link: str) -> str:
    """The summary's line of one arm: the pooled gap before and after, what the instruction
    did, per occupation, and how often identical questions flipped."""
    pooled = pooled_row(changes)
    total = flips[flips["step"] == "all"].iloc[0]
    where = " and ".join(PLACES[key] for key in PLACES if key in instruction)
    return (
        f"- **{label}** ({where}): pooled difference {pooled['mean_a']:+.3f} -> "
        f"{pooled['mean_b']:+.3f}, change {pooled['change']:+.3f} "
        f"{_interval(pooled['low'], pooled['high'])}: {OUTCOMES[pooled['outcome']]}"
        f"{_undetected(pooled)}; "
        f"per occupation: {outcome_counts(changes)}; {total['flipped']} of "
        f"{total['identical']} identical questions flipped "
        f"({percent(total['flipped_share'], places=1)}). [{link}]({link})"
    )


def _instruction_lines(instruction: Mapping[str, str]) -> list[str]:
    lines = [f'- {PLACES[key]}: "{instruction[key]}"' for key in PLACES if key in instruction]
    if instruction.get("rationale"):
        lines.append(f"- why: {instruction['rationale']}")
    return lines


def _caveats(effect: Effect, wordings: int, had_system: bool) -> list[str]:
    """What else could explain a change, in words."""
    c = effect.comparison
    lines = [
        "- **Chance.** Each change is tested on the paired per-instance differences with the "
        "variance clustered by both sides' names; q-values correct for testing every occupation "
        f"(Benjamini-Hochberg, q < {c.alpha}). A change that is not significant is not shown "
        "to be absent: `mdd` is the smallest change the test would find with 80% power, "
        "before that correction. In the calibration these intervals covered a planted change "
        "in 95.5-98.8% of simulated audits at a nominal 95%, those of the selection rates in "
        "95.5-98% and of the impact ratios in 96.9-99.2% (docs/calibration.md): a little "
        "conservative, so a significant change can be trusted and `mdd` somewhat overstates "
        "what the test needs.",
        "- **The names.** Both arms were asked about the same names, so the change is paired; "
        "it holds for these names, and other names may respond otherwise.",
        f"- **The wording.** {'One wording' if wordings == 1 else f'{wordings} wordings'} of "
        "the questions and one text of the instruction: another phrasing of either may act "
        "otherwise (run config/wordings.yaml, or a second text, to see).",
        "- **Name order.** Both listing orders are asked in both arms where the design has "
        "them; an arm's gap confounded with position (one order) is named in `outcome`.",
        "- **The answer constraint.** Both arms' answers are held to the answer space; an "
        "instruction that moves the model's probability off it (see each arm's "
        "answer_space.tsv) changes what the constraint hides, not only what it picks.",
        "- **Step 1.** The arm answers Step 1 under the instruction too, so its Steps 2-3 "
        "state its own Step-1 answers: a change there is part of the instruction's effect, "
        "and the questions it rewrote are counted apart from flips.",
        "- **Flips.** A flip is a question that read the same in both arms (less the "
        "instruction) and was answered otherwise. Where a backend samples its answers "
        "(temperature above 0, a server that is not deterministic, the simulated respondent, "
        "which draws each answer afresh for a new prompt) flips include sampling noise; "
        "`hiremeornot drift` measures how often a question asked again changes.",
    ]
    if had_system:
        lines.append(
            "- **The system message.** Where the model had no system_prompt, the instruction "
            "is the whole system message and replaces the chat template's own default (if it "
            "has one): that change is part of what is measured."
        )
    if not c.reachable:
        lines.append(f"- **Too few names to test.** {unreachable(c)}: run more name pairs.")
    return lines


def intervention_markdown(
    label: str, instruction: Mapping[str, str], effect: Effect, wordings: int
) -> str:
    """The report of one arm against the baseline."""
    c = effect.comparison
    changes = effect.changes
    pooled = pooled_row(changes)
    total = c.flips[c.flips["step"] == "all"].iloc[0]
    later = c.flips[c.flips["step"].isin(["step2", "step3"])]
    shown = changes.assign(
        interval=[
            _interval(lo, hi) for lo, hi in zip(changes["low"], changes["high"], strict=True)
        ],
        mdd=[_mdd(v) for v in changes["mdd"]],
        outcome=[OUTCOMES.get(o, "") for o in changes["outcome"]],
    ).rename(columns={"mean_a": "baseline", "mean_b": "arm"})
    columns = ["occupation", "n", "baseline", "arm", "change", "interval", "q_value", "mdd"]
    gap = shown[shown["metric"] == "difference"]
    lines = [
        f"# {label} against the baseline",
        "",
        "The instruction:",
        "",
        *_instruction_lines(instruction),
        "",
        f"Pooled over occupations the difference (reading `{c.reading}`; > 0 favours "
        f"{c.sides.a_words} subjects) went from {pooled['mean_a']:+.3f} to "
        f"{pooled['mean_b']:+.3f}: a change of {pooled['change']:+.3f} "
        f"{_interval(pooled['low'], pooled['high'])} ({c.confidence:.0%}), p = "
        f"{pooled['p_value']:.3g}: **{OUTCOMES[pooled['outcome']]}**"
        + _undetected(pooled)
        + f". Per occupation: {outcome_counts(changes)}.",
        "",
        f"Of {total['identical']} questions whose text (less the instruction) was the same "
        f"in both arms, **{total['flipped']} were answered otherwise** "
        f"({percent(total['flipped_share'], places=1)}); {int(later['through_step1'].sum())} "
        "Step-2/3 questions read differently because the arm's Step 1 granted other "
        f"attributes, and {int(later['changed_through_step1'].sum())} of them were answered "
        "otherwise (counted apart: a consequence of Step 1).",
        "",
        "## What else could explain it",
        "",
        *_caveats(effect, wordings, "system" in instruction),
        "",
        "## The difference per occupation",
        "",
        markdown_table(gap[[*columns, "baseline_verdict", "arm_verdict", "outcome"]]),
        "## Confirmation and Consistency",
        "",
        "Confirmation: higher is better; Consistency: lower is better.",
        "",
        markdown_table(shown[shown["metric"] != "difference"][["metric", *columns]]),
        "## Flipped answers",
        "",
        markdown_table(
            c.flips.assign(flipped_share=[percent(v, places=1) for v in c.flips["flipped_share"]])
        ),
    ]
    lines += _rate_section(effect.rates)
    return "\n".join(lines)


def _rate_section(rates: pd.DataFrame) -> list[str]:
    """The selection rates' and impact ratios' changes (none where no selections were read)."""
    if rates.empty:
        return []
    rates = rates.assign(
        rate_interval=[
            _interval(lo, hi)
            for lo, hi in zip(rates["rate_change_low"], rates["rate_change_high"], strict=True)
        ],
        ratio_interval=[
            _interval(lo, hi)
            for lo, hi in zip(
                rates["ratio_change_low"],
                rates["ratio_change_high"],
                strict=True,
            )
        ],
    ).rename(columns={"rate_a": "rate_baseline", "rate_b": "rate_arm"})
    return [
        "## Selection rates and impact ratios",
        "",
        "Per occupation, question and group: the share of answers that select the person "
        "(Q1 Yes; Q2 the person chosen; Q3 the person or both) in each arm, the change "
        "with a percentile interval from one name draw applied to both arms, and the "
        "change of the impact ratio (to the highest group's rate in each arm). q-values: "
        "Benjamini-Hochberg across occupations per question and group.",
        "",
        markdown_table(
            rates[
                [
                    "occupation",
                    "question",
                    "group",
                    "rate_baseline",
                    "rate_arm",
                    "rate_change",
                    "rate_interval",
                    "ratio_change",
                    "ratio_interval",
                    "q_value",
                ]
            ]
        ),
    ]
