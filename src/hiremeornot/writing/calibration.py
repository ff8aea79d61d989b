"""The calibration in words: what was simulated, what covered its truth, what was called."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from hiremeornot.analysis.calibration import SHORTFALL, worst_false_positive
from hiremeornot.writing.markdown import markdown_table


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
    occupations, names a side, orders, wordings, the intervention arm)."""
    audits = int(design["audits"])
    lines = [
        f"# Calibration: {model}\n",
        f"{audits} independent simulated audits of this design: {_design(design)}. Each audit "
        "draws fresh name effects and fresh answers from the planted respondent and runs the "
        "published code; every estimate is set beside its planted truth, computed from the "
        f"generative model alone (docs/calibration.md). {seconds:.0f} s in all, "
        f"{100 * seconds / max(audits, 1):.0f} s per hundred audits.\n",
    ]
    if design.get("intervention"):
        lines.append(
            f"The model is the arm of the intervention `{design['intervention']}`: each "
            "audit also asks the same names under the instruction, and the `change_...` "
            "quantities are the paired changes from the baseline to the arm (their truth: "
            "the effect the respondent plants for the instruction; `pooled_change_...`: "
            "pooled over occupations).\n"
        )
    lines += _coverage_section(coverage, report["confidence"])
    lines += _verdict_section(verdicts, report)
    lines += [
        "## What is left of the planted position effect\n",
        "The order-balanced truth of each reading with the planted first-listed effect, and "
        "with none (pooled over occupations): balancing both orders removes position from the "
        "difference exactly where these agree.\n",
        markdown_table(position),
        "",
    ]
    return "\n".join(lines)


def _design(design: Mapping[str, object]) -> str:
    return (
        f"{design['occupations']} occupations, {design['names']} names a side, orders "
        f"{design['orders']}, wordings {design['wordings']}"
    )


def _coverage_section(coverage: pd.DataFrame, nominal: float) -> list[str]:
    failed = coverage[coverage["undercovers"]]
    lines = [
        "## Coverage of the published intervals\n",
        f"Nominal level {nominal:.0%}; `coverage_low`-`coverage_high` is a 95% Monte-Carlo "
        "interval over audits (occupations within one audit share its names, so they are not "
        "independent checks). `bias` and `rmse` are those of the estimate; `undercovers`: the "
        f"whole Monte-Carlo interval lies more than {SHORTFALL:.0%} below nominal.\n",
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
    return lines


def _verdict_section(verdicts: pd.DataFrame, report: Mapping) -> list[str]:
    alpha = report["alpha"]
    lines = [
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
    worst = worst_false_positive(verdicts, alpha)
    if worst:
        lines.append(
            f"- Under no planted difference the largest false-positive rate is "
            f"{worst['rate']:.3f} (reading {worst['reading']})"
            + (" — above alpha.\n" if worst["above_alpha"] else ", within alpha.\n")
        )
    return lines


def figure_caveats(design: Mapping[str, object], coverage: pd.DataFrame) -> list[str]:
    """The lines under the calibration's figure, so that it reads right alone."""
    failed = coverage[coverage["undercovers"]]
    return [
        f"{design['audits']} simulated audits of {_design(design)}: a planted respondent, so "
        "this checks the statistics on this design, not any model's answers.",
        "Right: the share of audits whose interval covered the planted truth; line: its 95% "
        f"Monte-Carlo interval over audits. {len(failed)} of {len(coverage)} quantities cover "
        f"less than nominal beyond that error (more than {SHORTFALL:.0%} below).",
    ]
