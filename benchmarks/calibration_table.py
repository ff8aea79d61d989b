"""The acceptance table of the known-answer calibration (docs/calibration.md pastes its output).

Simulated audits of synthetic gender designs (every pair of N female and N male names, both listing
orders, 6 occupations of 15 attributes) at 5+5, 10+10 and 20+20 names, without and with a planted
first-listed effect; 10+10 names in three wordings with wording effects; and a design with no
planted difference at all. Each audit runs the published code (hiremeornot.analysis.calibration),
and compares the respondent with its arm under a planted intervention that halves every group
effect (the paired changes of the intervention report, on the same names: Confirmation,
Consistency, the difference, the selection rates and impact ratios, per occupation and pooled);
the script prints, per design, every published interval's coverage of
its planted truth (the pooled mixed-effects model's log-odds ratios among them), and the verdicts'
false-positive rate, FDR, power and misplaced "equivalent" calls.

    python benchmarks/calibration_table.py [--audits 400] [--jobs 2] [--without-pooled]
"""

from __future__ import annotations

import os

# one BLAS thread a process: the pooled model's fits would otherwise oversubscribe the cores
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import time
from concurrent.futures import ProcessPoolExecutor

import pandas as pd
from scipy.optimize import brentq

from hiremeornot.analysis.calibration import calibrate, coverage, verdict_rates
from hiremeornot.analysis.simulated_audit import synthetic_design
from hiremeornot.analysis.truth import planted_truth
from hiremeornot.asking.respondent import Respondent
from hiremeornot.config import model_settings, validate_config

OCCUPATIONS = ["nurse", "secretary", "dancer", "mechanic", "pilot", "engineer"]
NULL = ["nurse", "secretary"]  # no planted difference
FIXED = {"dancer": 0.4, "mechanic": -0.8, "engineer": 1.5}  # female log-odds shifts, Q1-Q3
TARGET = ("pilot", 0.3)  # pilot's shift is solved for this headline difference
POSITION = 0.8


WORDINGS = {"plain": {"female": 0.3}, "formal": {"female": -0.3}}  # added to every question
ARM = "halved"  # the planted intervention: every group effect times 0.5 under the instruction
INTERVENTION = {ARM: {"scale": 0.5}}


def respondent(
    shifts: dict[str, float],
    position: float,
    wordings: dict | None = None,
    intervention: str | None = None,
) -> Respondent:
    planted = {
        occupation: {q: {"female": shift} for q in ("q1", "q2", "q3")}
        for occupation, shift in shifts.items()
    }
    settings = {"occupations": planted, "position": position, "name_sd": 0.5}
    settings["wordings"] = wordings or {}
    settings["interventions"] = INTERVENTION
    validated = model_settings({"backend": "simulated", "model": "b", "respondent": settings})
    return Respondent(validated["respondent"], intervention)


def solved_shifts(position: float) -> dict[str, float]:
    """FIXED, and pilot's shift whose order-balanced biased difference is TARGET's."""
    design = synthetic_design(OCCUPATIONS, 2)
    occupation, target = TARGET

    def gap(shift: float) -> float:
        truth = planted_truth(respondent({**FIXED, occupation: shift}, position), design)
        row = truth[
            (truth["occupation"] == occupation) & (truth["quantity"] == "difference_biased")
        ]
        return float(row["truth"].iloc[0]) - target

    return {**FIXED, occupation: brentq(gap, 0.0, 5.0)}


def run(job: tuple) -> tuple[str, pd.DataFrame, pd.DataFrame, float]:
    label, names, position, null, wordings, audits, with_pooled = job
    shifts = {} if null else solved_shifts(position)
    report = validate_config({"models": {"b": {"backend": "simulated", "model": "b"}}})["report"]
    words = ["paper", *WORDINGS] if wordings else ["paper"]
    design = synthetic_design(OCCUPATIONS, names, wordings=words)
    planted = WORDINGS if wordings else None
    checks, verdicts, seconds = calibrate(
        respondent(shifts, position, planted),
        design,
        report,
        audits=audits,
        seed=names,
        progress=False,
        other=respondent(shifts, position, planted, ARM),
        with_pooled=with_pooled,
    )
    rates = verdict_rates(verdicts, report["equivalence_margin"])
    return label, coverage(checks, report["confidence"]), rates.assign(design=label), seconds


def print_coverage(results: list[tuple], title: str) -> None:
    """Each design's coverage per quantity (``results``: (label, coverage table, ...) per
    design), and the upper ends of the Monte-Carlo intervals that lie below 0.93."""
    covered = pd.DataFrame(
        {label: table.set_index("quantity")["coverage"] for label, table, *_ in results}
    )
    print(f"## {title}\n")
    print(covered.round(3).to_markdown())
    worst = pd.DataFrame(
        {label: table.set_index("quantity")["coverage_high"] for label, table, *_ in results}
    )
    print("\nUpper end of each coverage's Monte-Carlo 95% interval, where it is below 0.93:\n")
    print(worst.where(worst < 0.93).dropna(how="all").round(3).to_markdown())


def print_pooled_flags(rates: pd.DataFrame) -> None:
    """The pooled model's flags per design, question and planted log-odds (verdict_rates)."""
    print("\n## Flags of the pooled model (BH q < alpha: its occupations and overall effect)\n")
    print(
        rates[["design", "reading", "truth", "null", "checks", "differs", "fdr"]]
        .round(3)
        .to_markdown(index=False)
    )


def print_seconds(results: list[tuple], audits: int, wall: float, jobs: int) -> None:
    """Each design's seconds per hundred audits (its result's last field), and the wall time."""
    print("\n## Seconds per hundred audits\n")
    for label, *_, seconds in results:
        print(f"- {label}: {100 * seconds / audits:.0f} s")
    print(f"\nwall: {wall:.0f} s with {jobs} processes")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--audits", type=int, default=400)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--without-pooled",
        action="store_true",
        help="leave out the pooled model's fits (most of the time; its rows are then absent)",
    )
    args = parser.parse_args()
    pooled = not args.without_pooled
    jobs = [
        (f"{n}+{n}{' pos' if position else ''}", n, position, False, False, args.audits, pooled)
        for position in (0.0, POSITION)
        for n in (5, 10, 20)
    ]
    jobs.append(("10+10 3 wordings", 10, POSITION, False, True, args.audits, pooled))
    jobs.append(("10+10 null", 10, 0.0, True, False, args.audits, pooled))
    start = time.monotonic()
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(run, jobs))
    print_coverage(results, f"Coverage of nominal 95% intervals ({args.audits} audits a design)")
    print("\n## Verdicts (headline reading: biased)\n")
    rates = pd.concat([r for _, _, r, _ in results])
    biased = rates[rates["reading"] == "biased"]
    print(
        biased[
            ["design", "truth", "null", "checks", "differs", "equivalent", "inconclusive", "fdr"]
        ]
        .round(3)
        .to_markdown(index=False)
    )
    print_pooled_flags(rates[rates["reading"].str.startswith("log_odds_")])
    print_seconds(results, args.audits, time.monotonic() - start, args.jobs)


if __name__ == "__main__":
    main()
