"""The calibration in words: what was simulated, what covered its truth, what was called."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from hiremeornot.writing.markdown import markdown_table

SHORTFALL = 0.02  # coverage this far below nominal, beyond Monte-Carlo error, is a failure


def failing(table: pd.DataFrame, nominal: float) -> pd.DataFrame:
    """The quantities whose coverage interval lies wholly below nominal - SHORTFALL."""
    return table[table["coverage_high"] < nominal - SHORTFALL]


def calibration_markdown(
    model: str,
    design: Mapping[str, object],
    coverage: pd.DataFrame,
    verdicts: pd.DataFrame,
    position: pd.DataFrame,
    report: Mapping,
    seconds: float,
) -> str:
    """The calibration of one simulated model on one design. ``design`` describes it (audits,
    occupations, names a side, orders, wordings)."""
    nominal, alpha = report["confidence"], report["alpha"]
    audits = int(design["audits"])
    failed = failing(coverage, nominal)
    null = verdicts[verdicts["null"]]
    lines = [
        f"# Calibration: {model}\n",
        f"{audits} independent simulated audits of this design: {design['occupations']} "
        f"occupations, {design['names']} names a side, orders {design['orders']}, wordings "
        f"{design['wordings']}. Each audit draws fresh name effects and fresh answers from the "
        "planted respondent and runs the published code; every estimate is set beside its "
        "planted truth, computed from the generative model alone (docs/calibration.md). "
        f"{seconds:.0f} s in all, {100 * seconds / max(audits, 1):.0f} s per hundred audits.\n",
        *(
            [
                f"The model is the arm of the intervention `{design['intervention']}`: each "
                "audit also asks the same names under the instruction, and the `change_...` "
                "quantities are the paired changes from the baseline to the arm (their truth: "
                "the effect the respondent plants for the instruction; `pooled_change_...`: "
                "pooled over occupations).\n"
            ]
            if design.get("intervention")
            else []
        ),
        "## Coverage of the published intervals\n",
        f"Nominal level {nominal:.0%}; `coverage_low`-`coverage_high` is a 95% Monte-Carlo "
        "interval over audits (occupations within one audit share its names, so they are not "
        "independent checks). `bias` and `rmse` are those of the estimate.\n",
        markdown_table(coverage),
        "",
    ]
    if len(failed):
        lines.append(
            f"**{len(failed)} quantities cover their truth less often than nominal "
            f"(their whole Monte-Carlo interval lies more than {SHORTFALL:.0%} below "
            f"{nominal:.0%}): {', '.join(failed['quantity'])}. Their intervals claim more "
            "certainty than they have; do not read them at face value.**\n"
        )
    else:
        lines.append(
            f"Every interval covers its truth at the nominal level within Monte-Carlo error "
            f"(none lies more than {SHORTFALL:.0%} below {nominal:.0%}).\n"
        )
    lines += [
        "## Verdicts\n",
        "Per reading of the difference and planted truth (rounded): the share of "
        "occupation-audits called each verdict. Rows marked `null` have no planted difference: "
        f"their `differs` is the false-positive rate (at most alpha = {alpha} is the aim), and "
        "`fdr` the mean over audits of the share of false discoveries among that reading's "
        f"'differs'. An occupation whose |truth| exceeds the margin "
        f"{report['equivalence_margin']} should be called 'equivalent' in at most 5% of audits; "
        "elsewhere `differs` is the power. The readings `log_odds_<q>`, where "
        "`report.calibration_pooled` asks for them, are the pooled mixed-effects model's "
        "(pooled.py): its `differs` is a flag (Benjamini-Hochberg across occupations, "
        "q < alpha).\n",
        markdown_table(verdicts),
        "",
    ]
    if len(null):
        worst = null.sort_values("differs").iloc[-1]
        lines.append(
            f"- Under no planted difference the largest false-positive rate is "
            f"{worst['differs']:.3f} (reading {worst['reading']})"
            + (" — above alpha.\n" if worst["differs"] > alpha else ", within alpha.\n")
        )
    lines += [
        "## What is left of the planted position effect\n",
        "The order-balanced truth of each reading with the planted first-listed effect, and "
        "with none (pooled over occupations): balancing both orders removes position from the "
        "difference exactly where these agree.\n",
        markdown_table(position),
        "",
    ]
    return "\n".join(lines)
