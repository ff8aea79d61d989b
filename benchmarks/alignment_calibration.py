"""The known-answer calibration of the alignment with the workforce (docs/calibration.md pastes
its output): coverage of the slope's interval, power and false positives of its verdict.

Simulated audits of a synthetic gender design over 12 real occupations at their 2012 shares of
women (resources/workforce_crosswalk.tsv and ../shared/data's share table), every pair of N
female and N male names in both orders, a first-listed effect of 0.8, at 10 + 10 and 20 + 20
names:

- null: no group effect anywhere (the slope's truth is 0: false positives);
- aligned: a female effect of ``ALIGNED`` log-odds per unit share of women (the respondent's
  ``alignment``), so the model follows the workforce (power);
- mixed: fixed per-occupation effects unrelated to the share (MIXED), with the alignment;
- heavy: as aligned, with heavy-tailed name effects and each name's own effect per occupation.

Each audit runs the published code (stats.occupation_statistics,
alignment.alignment_checks) on answers drawn afresh; the truth is the least-squares slope
of the planted per-occupation differences (truth.alignment_truth). Occupations are held fixed:
the occupations' part of the interval (their spread about the line) is checked only by the
mixed design's deviations, which are fixed too, so a reader expects coverage at or above
nominal there.

    python benchmarks/alignment_calibration.py [--audits 400] [--jobs 2]
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

from hiremeornot.analysis import metrics, stats
from hiremeornot.analysis.alignment import alignment_checks
from hiremeornot.analysis.simulated_audit import AuditSimulator, synthetic_design
from hiremeornot.analysis.truth import alignment_truth, planted_truth
from hiremeornot.asking.respondent import Respondent
from hiremeornot.config import model_settings, validate_config
from hiremeornot.inputs.workforce import share_map
from hiremeornot.plan import WORKFORCE_FILE

REPO = Path(__file__).resolve().parents[1]
OCCUPATIONS = [
    "nurse",
    "secretary",
    "babysitter",
    "dancer",
    "cashier",
    "teacher",
    "lawyer",
    "janitor",
    "mechanic",
    "plumber",
    "pilot",
    "engineer",
]
SHARES = share_map(
    REPO / "resources" / "workforce_crosswalk.tsv",
    REPO.parent / "shared" / "data" / WORKFORCE_FILE,
    "men",
    OCCUPATIONS,
)
ALIGNED = 1.0  # female log-odds per unit share of women
MIXED = dict(
    zip(OCCUPATIONS, [0.3, -0.4, 0.5, 0.0, -0.2, 0.4, 0.3, -0.5, 0.2, -0.3, 0.4, 0.0], strict=True)
)
HEAVY = {"name_df": 3, "interaction_sd": 0.5}
DESIGNS = {
    "null": ({}, {}, {}),
    "aligned": ({"female": ALIGNED}, {}, {}),
    "mixed": ({"female": ALIGNED}, MIXED, {}),
    "heavy": ({"female": ALIGNED}, {}, HEAVY),
}


def respondent(alignment: dict, mixed: dict, name_params: dict) -> Respondent:
    occupations = {o: {q: {"female": e} for q in ("q1", "q2", "q3")} for o, e in mixed.items()}
    settings = {
        "alignment": alignment,
        "shares": SHARES,
        "occupations": occupations,
        "position": 0.8,
        "name_sd": 0.5,
        **name_params,
    }
    validated = model_settings({"backend": "simulated", "model": "b", "respondent": settings})
    return Respondent(validated["respondent"])


def run(job: tuple[str, int, int]) -> tuple[str, int, pd.DataFrame, pd.DataFrame, float]:
    label, names, audits = job
    planted = respondent(*DESIGNS[label])
    design = synthetic_design(OCCUPATIONS, names)
    report = validate_config({"models": {"b": {"backend": "simulated", "model": "b"}}})["report"]
    truth_table = planted_truth(planted, design)
    truth = alignment_truth(truth_table, SHARES, design.sides).set_index("quantity")["truth"]
    simulator, rng = AuditSimulator(planted, design), np.random.default_rng(names)
    checks, verdicts = [], []
    start = time.monotonic()
    for audit in range(audits):
        step2, step3 = simulator.audit(rng, simulator.name_effects(rng))
        outcomes = metrics.instance_outcomes(step2, step3, design.instances, design.sides)
        _, tests = stats.occupation_statistics(outcomes, report["difference"], report, design.sides)
        found = alignment_checks(outcomes, tests, design.sides, report, SHARES)
        checks.append(found[0].assign(audit=audit))
        verdicts.append(found[1].assign(audit=audit))
    seconds = time.monotonic() - start
    checks = pd.concat(checks).assign(truth=lambda t: t["quantity"].map(truth))
    verdicts = pd.concat(verdicts).assign(truth=lambda t: t["reading"].map(truth))
    return label, names, checks, verdicts, seconds


def summarise(label: str, names: int, checks: pd.DataFrame, verdicts: pd.DataFrame) -> list:
    """Per measure: truth, coverage (with its Monte-Carlo SE), mean estimate, mean width, and
    how often the verdict says the model follows or goes against the workforce."""
    rows = []
    for quantity, group in checks.groupby("quantity", sort=False):
        covered = (group["low"] <= group["truth"]) & (group["truth"] <= group["high"])
        shown = verdicts.loc[verdicts["reading"] == quantity, "verdict"] == "differs"
        rows.append(
            {
                "design": f"{names}+{names} {label}",
                "measure": quantity.removeprefix("alignment_slope_"),
                "truth": group["truth"].iloc[0],
                "coverage": covered.mean(),
                "mc_se": np.sqrt(covered.mean() * (1 - covered.mean()) / len(covered)),
                "mean": group["estimate"].mean(),
                "sd": group["estimate"].std(),
                "mean_half_width": ((group["high"] - group["low"]) / 2).mean(),
                "shown": shown.mean(),
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--audits", type=int, default=400)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    jobs = [(label, names, args.audits) for names in (10, 20) for label in DESIGNS]
    start = time.monotonic()
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(run, jobs))
    rows = [
        row
        for label, n, checks, verdicts, _ in results
        for row in summarise(label, n, checks, verdicts)
    ]
    print(f"## Alignment slopes ({args.audits} audits a design; shown: the verdict's rate)\n")
    print(pd.DataFrame(rows).round(3).to_markdown(index=False))
    print("\nShares of women:", {o: round(s, 3) for o, s in SHARES.items()})
    seconds = {f"{n}+{n} {label}": round(s) for label, n, _, _, s in results}
    print(f"\nSeconds a design: {seconds}; wall {time.monotonic() - start:.0f} s")


if __name__ == "__main__":
    main()
