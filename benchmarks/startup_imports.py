"""What every Snakemake run and every job pays in imports, before and after a change: the
respondent's normal quantile from scipy.special and the drift check out of the step command's
module (148f781), and the t and normal tails from scipy.special with the rest of scipy.stats and
statsmodels imported where a test runs (analysis/distributions.py, after d56e63f).

Each measurement is a fresh interpreter with the package of an old commit (default 148f781,
taken with `git archive`) or of this checkout first on sys.path, the median of --repeat runs:

- the plan, which the Snakefile imports (every run, every dry run);
- the step command's module with the simulated backend (every step job of a simulated model);
- the modules of the commands that shape, test, record and show a model's results (a job each
  per model and contrast: granted, metrics, answer space, non-answers; statistics, findings,
  pooled, truth; manifest, export; first page).

    python benchmarks/startup_imports.py [--old 148f781] [--repeat 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from old_code import REPO, old_source  # benchmarks/old_code.py: this folder is on the path

LOADS = {
    "the plan (every Snakemake run)": "import hiremeornot.plan",
    "a simulated step job": "import hiremeornot.cli.asking, hiremeornot.asking.backends.simulated",
    "a job shaping the answers (cli.analysis)": "import hiremeornot.cli.analysis",
    "a statistics job (cli.statistics)": "import hiremeornot.cli.statistics",
    "a manifest or export job (cli.provenance)": "import hiremeornot.cli.provenance",
    "the first page's job (cli.pages)": "import hiremeornot.cli.pages",
}


def seconds(source: Path, code: str, repeat: int) -> float:
    """The median wall time of ``code`` in a fresh interpreter, ``source`` first on the path."""
    program = f"import sys; sys.path.insert(0, {str(source)!r})\n{code}"
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", program], check=True, cwd=REPO)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--old", default="148f781", help="the commit to compare with")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    print(f"| imports | old ({args.old}) s | new s | old / new |")
    print("| --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as folder:
        old = old_source(args.old, Path(folder))
        for label, code in LOADS.items():
            before = seconds(old, code, args.repeat)
            after = seconds(REPO / "src", code, args.repeat)
            print(f"| {label} | {before:.2f} | {after:.2f} | {before / after:.2f}x |")


if __name__ == "__main__":
    main()
