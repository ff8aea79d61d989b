"""The pooled mixed-effects model's calibration alone (docs/calibration.md pastes its output).

The designs, plants and respondents of calibration_table.py (6 occupations of 15 attributes,
every pair of N female and N male names, both orders; nurse and secretary with no planted
difference, dancer +0.4, mechanic -0.8, engineer +1.5, pilot solved for a 0.3 biased difference;
"pos": a first-listed effect of 0.8; "null": nothing planted; "heavy": the first-listed effect
with heavy-tailed name effects and each name's own effect per occupation, calibration_table.HEAVY).
Each audit draws fresh names and
answers (simulated_audit.AuditSimulator) and fits pooled.pooled_effects; the script prints each
log-odds interval's coverage of its planted truth, and the flags' false-positive rate, FDR and
power, without the bootstrap analyses calibration_table.py runs beside it (a tenth of the time).

    python benchmarks/pooled_calibration.py [--audits 200] [--jobs 2] [--designs '10+10 heavy']
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one BLAS thread a process

import argparse
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pandas as pd
from calibration_table import (
    HEAVY,
    OCCUPATIONS,
    POSITION,
    print_coverage,
    print_pooled_flags,
    print_seconds,
    respondent,
    solved_shifts,
)

from hiremeornot.analysis.calibration import coverage, pooled_checks, verdict_rates
from hiremeornot.analysis.pooled import pooled_effects
from hiremeornot.analysis.simulated_audit import AuditSimulator, synthetic_design
from hiremeornot.analysis.truth import planted_truth
from hiremeornot.config import validate_config


def run(job: tuple) -> tuple[str, pd.DataFrame, pd.DataFrame, float]:
    label, names, position, null, audits, name_params = job
    report = validate_config({"models": {"b": {"backend": "simulated", "model": "b"}}})["report"]
    shifts = {} if null else solved_shifts(position, name_params)
    planted = respondent(shifts, position, name_params=name_params)
    design = synthetic_design(OCCUPATIONS, names)
    truth = planted_truth(planted, design).set_index(["occupation", "quantity"])["truth"]
    simulator = AuditSimulator(planted, design)
    rng = np.random.default_rng(names)
    checks, verdicts = [], []
    start = time.monotonic()
    for audit in range(audits):
        step2, step3 = simulator.audit(rng)
        fitted = pooled_effects(step2, step3, design.instances, design.sides, report)
        audit_checks, audit_verdicts = pooled_checks(fitted)
        checks.append(audit_checks.assign(audit=audit))
        verdicts.append(audit_verdicts.assign(audit=audit))
    seconds = time.monotonic() - start
    checks, verdicts = pd.concat(checks), pd.concat(verdicts)
    checks["truth"] = truth.reindex(
        pd.MultiIndex.from_frame(checks[["occupation", "quantity"]])
    ).to_numpy()
    keys = pd.MultiIndex.from_arrays([verdicts["occupation"], verdicts["reading"]])
    verdicts["truth"] = truth.reindex(keys).to_numpy()
    rates = verdict_rates(verdicts, report["equivalence_margin"]).assign(design=label)
    return label, coverage(checks, report["confidence"]), rates, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--audits", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--designs", nargs="*", help="only these designs (e.g. '10+10 null')")
    args = parser.parse_args()
    jobs = [
        (f"{n}+{n}{' pos' if position else ''}", n, position, False, args.audits, {})
        for position in (0.0, POSITION)
        for n in (5, 10, 20)
    ]
    jobs.append(("10+10 null", 10, 0.0, True, args.audits, {}))
    jobs += [(f"{n}+{n} heavy", n, POSITION, False, args.audits, HEAVY) for n in (10, 20)]
    jobs = [job for job in jobs if not args.designs or job[0] in args.designs]
    start = time.monotonic()
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(run, jobs))
    title = f"Coverage of the pooled model's nominal 95% intervals ({args.audits} audits)"
    print_coverage(results, title)
    print_pooled_flags(pd.concat([r for _, _, r, _ in results]))
    timed = [(label, table, rates, seconds, None) for label, table, rates, seconds in results]
    print_seconds(timed, args.audits, time.monotonic() - start, args.jobs)


if __name__ == "__main__":
    main()
