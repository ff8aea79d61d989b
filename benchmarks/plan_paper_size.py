"""Time `snakemake -n` on the paper config and count its jobs per rule.

Usage: .venv/bin/python benchmarks/plan_paper_size.py [--local-data ../shared/data]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--local-data", default=str(REPO.parent / "shared" / "data"))
    parser.add_argument("--configfile", default=str(REPO / "config" / "paper.yaml"))
    args = parser.parse_args()
    command = [
        sys.executable,
        "-m",
        "snakemake",
        "-n",
        "--quiet",
        "rules",
        "--configfile",
        args.configfile,
        "--replace-workflow-config",
        "--config",
        f"local_data={args.local_data}",
    ]
    started = time.monotonic()
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=True)
    seconds = time.monotonic() - started
    output = result.stdout + result.stderr
    counts = dict(re.findall(r"^(\w+)\s+(\d+)$", output, re.M))
    for rule, count in counts.items():
        print(f"{rule:<24}{count:>8}")
    print(f"planned {counts['total']} jobs in {seconds:.1f} s")


if __name__ == "__main__":
    main()
