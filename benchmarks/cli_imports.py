"""What a job pays in imports before its command runs: the CLI with every command module (as the
single cli.py loaded them all) against the CLI with only the module of the job's command.

Each measurement is a fresh interpreter (the median of --repeat runs); prints seconds per
command and the ratio.

Usage: .venv/bin/python benchmarks/cli_imports.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from hiremeornot.cli import COMMANDS

JOBS = ["gather", "metrics", "statistics", "step", "summary", "dataset"]


def seconds(code: str, repeat: int) -> float:
    """The median wall time of running ``code`` in a fresh interpreter."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    every = sorted({module for module, *_ in COMMANDS.values()} | {"store"})
    eager = "import hiremeornot.cli\n" + "".join(f"import hiremeornot.cli.{m}\n" for m in every)
    all_modules = seconds(eager, args.repeat)
    print(f"{'command':<12} {'its module':<12} {'lazy s':>7} {'eager s':>8} {'ratio':>6}")
    for job in JOBS:
        module = COMMANDS[job][0]
        lazy = seconds(f"import hiremeornot.cli\nimport hiremeornot.cli.{module}", args.repeat)
        print(f"{job:<12} {module:<12} {lazy:7.2f} {all_modules:8.2f} {all_modules / lazy:6.1f}")


if __name__ == "__main__":
    main()
