"""The acceptance table of the known-answer calibration (docs/calibration.md pastes its output).

Simulated audits of synthetic gender designs (every pair of N female and N male names, both listing
orders, 6 occupations of 15 attributes) at 5+5, 10+10 and 20+20 names, without and with a planted
first-listed effect; 10+10 names in three wordings with wording effects; a design with no
planted difference at all; and 10+10 and 20+20 "heavy" (with the first-listed effect): name
effects from a t with 3 degrees of freedom and each name's own effect in each occupation (HEAVY),
which the pooled model does not assume. Each audit runs the published code
(hiremeornot.analysis.calibration), and compares the respondent with its arm under a planted
intervention that halves every group effect (the paired changes of the intervention report, on
the same names: Confirmation, Consistency, the difference, the selection rates and impact
ratios, per occupation and pooled); the script prints, per design, every published interval's
coverage of its planted truth (the pooled mixed-effects model's log-odds ratios among them), the
impact ratios' bias against ratio_lean (how low they read at a tie), the coverage of the ratios
and their changes apart where the truth is on its bound (a ratio of 1, a change of 0: by_truth),
and the verdicts' false-positive rate, FDR, power and misplaced "equivalent" calls.

    python benchmarks/calibration_table.py [--audits 400] [--jobs 2] [--without-pooled]
        [--designs "10+10 heavy" "20+20 heavy"]
"""

from __future__ import annotations

import os

# one BLAS thread a process: the pooled model's fits would otherwise oversubscribe the cores
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from typing import NamedTuple

import numpy as np
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


# heavy-tailed name effects (a t with 3 degrees of freedom) and each name's own effect in each
# occupation: what the pooled model, which assumes normal name effects shared by every
# occupation, does not
HEAVY = {"name_df": 3, "interaction_sd": 0.5}


class Job(NamedTuple):
    label: str
    names: int  # a side
    position: float
    null: bool  # nothing planted
    wordings: bool  # three wordings with their own effects
    audits: int
    pooled: bool  # fit the pooled model too
    name_params: dict  # the respondent's name effects beyond name_sd (HEAVY or none)


def respondent(
    shifts: dict[str, float],
    position: float,
    wordings: dict | None = None,
    intervention: str | None = None,
    name_params: dict | None = None,
) -> Respondent:
    planted = {
        occupation: {q: {"female": shift} for q in ("q1", "q2", "q3")}
        for occupation, shift in shifts.items()
    }
    settings = {"occupations": planted, "position": position, "name_sd": 0.5, **(name_params or {})}
    settings["wordings"] = wordings or {}
    settings["interventions"] = INTERVENTION
    validated = model_settings({"backend": "simulated", "model": "b", "respondent": settings})
    return Respondent(validated["respondent"], intervention)


def solved_shifts(position: float, name_params: dict) -> dict[str, float]:
    """FIXED, and pilot's shift whose order-balanced biased difference is TARGET's."""
    design = synthetic_design(OCCUPATIONS, 2)
    occupation, target = TARGET

    def gap(shift: float) -> float:
        planted = respondent({**FIXED, occupation: shift}, position, name_params=name_params)
        truth = planted_truth(planted, design)
        row = truth[
            (truth["occupation"] == occupation) & (truth["quantity"] == "difference_biased")
        ]
        return float(row["truth"].iloc[0]) - target

    return {**FIXED, occupation: brentq(gap, 0.0, 5.0)}


def leans(checks: pd.DataFrame, label: str) -> pd.DataFrame:
    """How low the impact ratios under 1 read (truth - estimate) beside the lean their rows
    state (ratio_lean), per occupation's ratios and the Local Law 144 ones, where the truth is 1
    (a tie, or the true reference) and where it is below."""
    kind = checks["quantity"].str.extract(r"^(ll144_)?(ratio|lean)_(.*)$")
    found = checks.assign(
        table=kind[0].isna().map({True: "per occupation", False: "Local Law 144"}),
        kind=kind[1],
        of=kind[2],
    ).dropna(subset=["kind"])
    keys = ["audit", "occupation", "table", "of"]
    ratios = found[found["kind"] == "ratio"].set_index(keys)
    lean = found[found["kind"] == "lean"].set_index(keys)["estimate"]
    under = ratios.assign(lean=lean.reindex(ratios.index)).query("estimate < 1")
    under = under.assign(
        truth_is=(under["truth"] >= 1 - 1e-9).map({True: "1", False: "under 1"}),
        reads_low=under["truth"] - under["estimate"],
    )
    table = under.groupby(["table", "truth_is"])[["reads_low", "lean"]].mean()
    return table.assign(ratios=under.groupby(["table", "truth_is"]).size(), design=label)


def by_truth(checks: pd.DataFrame) -> pd.DataFrame:
    """The coverage (calibration.coverage) of the impact ratios and their changes, every
    question and side together, apart where the truth lies on its bound (a ratio of 1: its
    group tied with every other, or on top; a change of 0) and where it lies inside: on the
    bound the truth is the same whatever the group's lead, so an interval that covers a tie at
    its level covers a clear lead almost always."""
    parts = checks["quantity"].str.extract(r"^((?:pooled_)?(?:change_)?(?:ll144_)?ratio)_(q\d)")
    found = checks.assign(kind=parts[0], question=parts[1]).dropna(subset=["kind", "truth"])
    change = found["kind"].str.contains("change")
    on_bound = (found["truth"] - (~change).astype(float)).abs() < 1e-9
    every = on_bound.groupby([found[k] for k in ("audit", "occupation", "kind", "question")])
    tied = every.transform("all") & ~change
    where = np.select(
        [tied, on_bound & ~change, on_bound], ["1, a tie", "1, on top", "0"], "inside"
    )
    labelled = found.assign(quantity=found["kind"] + ", truth " + where)
    return coverage(labelled).set_index("quantity")[["checks", "coverage"]]


def run(job: Job) -> tuple[str, pd.DataFrame, pd.DataFrame, float, pd.DataFrame, pd.DataFrame]:
    shifts = {} if job.null else solved_shifts(job.position, job.name_params)
    report = validate_config({"models": {"b": {"backend": "simulated", "model": "b"}}})["report"]
    words = ["paper", *WORDINGS] if job.wordings else ["paper"]
    design = synthetic_design(OCCUPATIONS, job.names, wordings=words)
    planted = WORDINGS if job.wordings else None
    checks, verdicts, seconds = calibrate(
        respondent(shifts, job.position, planted, name_params=job.name_params),
        design,
        report,
        audits=job.audits,
        seed=job.names,
        progress=False,
        other=respondent(shifts, job.position, planted, ARM, job.name_params),
        with_pooled=job.pooled,
    )
    rates = verdict_rates(verdicts, report["equivalence_margin"])
    return (
        job.label,
        coverage(checks, report["confidence"]),
        rates.assign(design=job.label),
        seconds,
        leans(checks, job.label),
        by_truth(checks),
    )


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
    for label, _, _, seconds, *_ in results:
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
    parser.add_argument(
        "--designs", nargs="+", metavar="LABEL", help="run only these designs (by label)"
    )
    args = parser.parse_args()
    pooled, audits = not args.without_pooled, args.audits
    jobs = [
        Job(f"{n}+{n}{' pos' if position else ''}", n, position, False, False, audits, pooled, {})
        for position in (0.0, POSITION)
        for n in (5, 10, 20)
    ]
    jobs.append(Job("10+10 3 wordings", 10, POSITION, False, True, audits, pooled, {}))
    jobs.append(Job("10+10 null", 10, 0.0, True, False, audits, pooled, {}))
    jobs += [
        Job(f"{n}+{n} heavy", n, POSITION, False, False, audits, pooled, HEAVY) for n in (10, 20)
    ]
    if args.designs:
        unknown = set(args.designs) - {job.label for job in jobs}
        if unknown:
            parser.error(f"unknown designs {sorted(unknown)}; known: {[j.label for j in jobs]}")
        jobs = [job for job in jobs if job.label in args.designs]
    start = time.monotonic()
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(run, jobs))
    print_coverage(results, f"Coverage of nominal 95% intervals ({args.audits} audits a design)")
    print("\n## Verdicts (headline reading: biased)\n")
    rates = pd.concat([r for _, _, r, *_ in results])
    biased = rates[rates["reading"] == "biased"]
    print(
        biased[
            ["design", "truth", "null", "checks", "differs", "equivalent", "inconclusive", "fdr"]
        ]
        .round(3)
        .to_markdown(index=False)
    )
    print_pooled_flags(rates[rates["reading"].str.startswith("log_odds_")])
    print("\n## Impact ratios under 1: how low they read (truth - estimate) and ratio_lean\n")
    lean = pd.concat([r[4] for r in results]).reset_index()
    print(
        lean[["design", "table", "truth_is", "ratios", "reads_low", "lean"]]
        .round(3)
        .to_markdown(index=False)
    )
    print("\n## Impact ratios and their changes: coverage where the truth is on its bound\n")
    print(pd.DataFrame({r[0]: r[5]["coverage"] for r in results}).round(3).to_markdown())
    print_seconds(results, args.audits, time.monotonic() - start, args.jobs)


if __name__ == "__main__":
    main()
