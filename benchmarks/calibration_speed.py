"""Seconds a calibration audit takes, before and after the statistics worked on arrays.

Runs the same audits (hiremeornot.analysis.calibration.one_audit: every reading's intervals
and tests, impact ratios, the Local Law 144 rates, the paired changes to an arm; the pooled
model apart) with the code of an old commit (default d6880b4, taken with `git archive` into a
temporary folder) and with this checkout's, each in a process of its own, one after the other,
on two designs:

- small: 3 occupations x 6 name pairs (3 + 3 names, each in two pairs) x both orders;
- paper: 62 occupations x 10 + 10 names (every pair) x both orders.

It prints, per design, seconds an audit for the old code, the new code in one process, and the
new code's calibrate() with two worker processes (wall clock / audits), the ratios, the seconds
of one fit of the pooled model (the same code before and after: computed only where its rows
are asked for), and the peak memory of each process.

    python benchmarks/calibration_speed.py [--old d6880b4] [--audits-small 20] [--audits-paper 4]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

# benchmarks/old_code.py: run as a script, this folder is on the path
from old_code import old_source

REPO = Path(__file__).resolve().parents[1]

# Runs in a process of its own with the code under test first on sys.path: prints a JSON line.
PROBE = r"""
import json, resource, sys, time
import numpy as np
from hiremeornot.analysis import calibration, pooled
from hiremeornot.analysis.truth import Design
from hiremeornot.asking.respondent import Respondent
try:
    from hiremeornot.analysis.simulated_audit import AuditSimulator, synthetic_design
except ImportError:  # the old code kept them in calibration.py
    from hiremeornot.analysis.calibration import AuditSimulator, synthetic_design
from hiremeornot.config import model_settings, validate_config

design_name, audits, parallel = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "yes"
report = validate_config({"models": {"b": {"backend": "simulated", "model": "b"}}})["report"]
if design_name == "small":
    occupations, names = ["nurse", "pilot", "dancer"], 3
else:
    occupations, names = [f"occupation {i:02d}" for i in range(62)], 10
design = synthetic_design(occupations, names)
if design_name == "small":  # 6 of the 9 pairs: each name in two
    pairs = ["F01-M01", "F01-M02", "F02-M02", "F02-M03", "F03-M03", "F03-M01"]
    instances = design.instances[design.instances["pair_id"].isin(pairs)].reset_index(drop=True)
    design = Design(instances, design.attributes, design.sides, design.groups, design.wordings)
planted = {occupations[0]: {q: {"female": 0.8} for q in ("q1", "q2", "q3")}}
settings = {"occupations": planted, "position": 0.8, "name_sd": 0.5,
            "interventions": {"halved": {"scale": 0.5}}}
params = model_settings({"backend": "simulated", "model": "b", "respondent": settings})
baseline, arm = Respondent(params["respondent"]), Respondent(params["respondent"], "halved")
result = {}
if parallel:
    options = {"progress": False, "other": arm, "with_pooled": False, "jobs": 2}
    calibration.calibrate(baseline, design, report, audits=2, seed=0, **options)  # warm
    start = time.monotonic()
    calibration.calibrate(baseline, design, report, audits=audits, seed=1, **options)
    result["seconds"] = (time.monotonic() - start) / audits
else:
    simulators = [AuditSimulator(r, design) for r in (baseline, arm)]
    rng = np.random.default_rng(0)
    calibration.one_audit(*simulators[:1], rng, report, simulators[1], False)  # warm
    start = time.process_time()
    for _ in range(audits):
        calibration.one_audit(simulators[0], rng, report, simulators[1], False)
    result["seconds"] = (time.process_time() - start) / audits
    if names >= pooled.MIN_NAMES:
        step2, step3 = simulators[0].audit(rng)
        start = time.process_time()
        pooled.pooled_effects(step2, step3, design.instances, design.sides, report)
        result["pooled_fit"] = time.process_time() - start
usage = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
result["peak_mb"] = max(usage, children) / 1024
print(json.dumps(result))
"""


def probe(source: Path, design: str, audits: int, parallel: bool) -> dict:
    """The probe's result with the package under ``source`` (a folder holding hiremeornot)."""
    command = [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(source)!r})\n{PROBE}"]
    command += [design, str(audits), "yes" if parallel else "no"]
    output = subprocess.run(command, capture_output=True, text=True, check=True, cwd=REPO)
    return json.loads(output.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--old", default="d6880b4", help="the commit to compare with")
    parser.add_argument("--audits-small", type=int, default=20)
    parser.add_argument("--audits-paper", type=int, default=4)
    args = parser.parse_args()
    audits = {"small": args.audits_small, "paper": args.audits_paper}
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        old = old_source(args.old, Path(folder))
        for design, count in audits.items():
            before = probe(old, design, max(1, count // 4), parallel=False)
            after = probe(REPO / "src", design, count, parallel=False)
            both = probe(REPO / "src", design, 2 * count, parallel=True)
            rows.append((design, before, after, both))
    print(f"| design | old ({args.old}) s/audit | new s/audit | new, 2 processes s/audit |", end="")
    print(" old / new | old / new with 2 | pooled model fit s | peak MB old / new / 2 |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for design, before, after, both in rows:
        fit = after.get("pooled_fit")
        print(
            f"| {design} | {before['seconds']:.3f} | {after['seconds']:.3f} | "
            f"{both['seconds']:.3f} | {before['seconds'] / after['seconds']:.1f}x | "
            f"{before['seconds'] / both['seconds']:.1f}x | "
            f"{'-' if fit is None else f'{fit:.2f}'} | "
            f"{before['peak_mb']:.0f} / {after['peak_mb']:.0f} / {both['peak_mb']:.0f} |"
        )
    print("\nold and new one process: CPU seconds; two processes: wall clock over the audits")


if __name__ == "__main__":
    main()
