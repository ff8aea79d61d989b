"""What a module or a command loads: computing never loads the plotting library, and a job
loads only what its command uses (every job of every run pays its imports)."""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pandas as pd
import pytest

import hiremeornot
from hiremeornot.cli import COMMANDS

HEAVY = ("matplotlib", "scipy", "statsmodels", "torch", "transformers")
# The modules that draw: the figures, and the commands that write them.
DRAWING = {"hiremeornot.writing.figures", "hiremeornot.cli.writing", "hiremeornot.cli.simulation"}
DRAWING |= {"hiremeornot.cli.comparing"}


def loaded_after(code: str) -> set[str]:
    """The heavy libraries loaded once ``code`` has run in a fresh interpreter."""
    probe = (
        f"{code}\nimport sys, json\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    return set(json.loads(result.stdout.splitlines()[-1]))


@pytest.mark.slow
def test_only_the_drawing_modules_load_matplotlib():
    modules = [
        info.name
        for info in pkgutil.walk_packages(hiremeornot.__path__, "hiremeornot.")
        if info.name not in DRAWING and not info.name.endswith("__main__")
    ]
    with ThreadPoolExecutor(max_workers=4) as pool:
        found = pool.map(lambda module: loaded_after(f"import {module}"), modules)
        loaded = dict(zip(modules, found, strict=True))
    drawing = sorted(module for module, heavy in loaded.items() if "matplotlib" in heavy)
    assert drawing == [], drawing
    assert "matplotlib" in loaded_after("import hiremeornot.writing.figures")  # the probe can fail


def test_a_gather_job_loads_no_statistics_plotting_or_model_library(tmp_path):
    part = tmp_path / "part.tsv"
    pd.DataFrame({"a": [1, 2]}).to_csv(part, sep="\t", index=False)
    out = tmp_path / "all.tsv"
    argv = ["gather", "--inputs", str(part), str(part), "--out", str(out)]
    code = f"from hiremeornot.cli import main\nassert main({argv!r}) == 0"
    assert loaded_after(code) == set()
    assert len(pd.read_csv(out, sep="\t")) == 4


def test_every_command_names_a_module_of_the_cli_with_its_function():
    for name, (module, *_) in COMMANDS.items():
        function = f"cmd_{name.replace('-', '_')}"
        assert callable(getattr(importlib.import_module(f"hiremeornot.cli.{module}"), function))
