"""The package as an old commit had it, for the benchmarks that set old and new side by side."""

from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def old_source(commit: str, folder: Path) -> Path:
    """The package of ``commit``, unpacked under ``folder`` (put the result first on sys.path)."""
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", commit, "src/hiremeornot"],
        capture_output=True,
        check=True,
    )
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder / "src"
