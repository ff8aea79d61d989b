"""What a module or a command loads: each stage imports only the stages before it (computing
never imports writing), computing never loads the plotting library, and a job loads only what
its command uses (every job of every run pays its imports)."""

from __future__ import annotations

import ast
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
from tests.conftest import REPO

PACKAGE = REPO / "src" / "hiremeornot"
# The stages in the order they run; a module may import its own stage and those before it, and
# the shared top-level modules (config, errors, tables_io, atomic), which import no stage. The
# plan (what each job of a config asks), the checks before any job (checks, model_checks,
# placement), the intervention arms and __main__ serve the CLI, as if part of it.
STAGES = ["inputs", "design", "asking", "analysis", "provenance", "writing", "cli"]
SERVING_THE_CLI = {
    "hiremeornot.plan",
    "hiremeornot.checks",
    "hiremeornot.model_checks",
    "hiremeornot.placement",
    "hiremeornot.arms",
    "hiremeornot.__main__",
}

HEAVY = ("matplotlib", "scipy", "statsmodels", "torch", "transformers")
# The modules that draw: the figures, and the commands that write them.
DRAWING = {
    "hiremeornot.writing.figures",
    "hiremeornot.writing.change_figures",
    "hiremeornot.writing.impact_figure",
    "hiremeornot.writing.alignment_figure",
    "hiremeornot.cli.writing",
    "hiremeornot.cli.simulation",
    "hiremeornot.cli.comparing",
}


def imported(path) -> set[str]:
    """Every hiremeornot module a file imports, at the top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("hiremeornot"):
            found |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("hiremeornot")}
    return found


def stage_of(module: str) -> str | None:
    """The stage of ``hiremeornot.<stage>...``; None for a shared top-level module."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in STAGES else None


def test_each_stage_imports_only_the_stages_before_it():
    assert sorted(STAGES) == sorted(
        p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()
    )
    wrong = []
    for path in PACKAGE.rglob("*.py"):
        module = ".".join(("hiremeornot", *path.relative_to(PACKAGE).with_suffix("").parts))
        own = "cli" if module in SERVING_THE_CLI else stage_of(module)
        allowed = STAGES[: STAGES.index(own) + 1] if own else []
        for target in imported(path):
            stage = stage_of(target)
            if stage and stage not in allowed:
                wrong.append(f"{module} imports {target}")
            if target in SERVING_THE_CLI and own != "cli":
                wrong.append(f"{module} imports the plan")
    assert wrong == []


def loaded_after(code: str, libraries: tuple[str, ...] = HEAVY) -> set[str]:
    """The heavy ``libraries`` loaded once ``code`` has run in a fresh interpreter."""
    probe = (
        f"{code}\nimport sys, json\n"
        f"print(json.dumps([m for m in {libraries!r} if m in sys.modules]))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    return set(json.loads(result.stdout.splitlines()[-1]))


def loaded_by_each(modules: list[str], libraries: tuple[str, ...] = HEAVY) -> dict[str, set]:
    """Each module's heavy ``libraries`` loaded by importing it alone (loaded_after), four
    interpreters at a time."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        found = pool.map(lambda module: loaded_after(f"import {module}", libraries), modules)
        return dict(zip(modules, found, strict=True))


@pytest.mark.slow
def test_only_the_drawing_modules_load_matplotlib():
    modules = [
        info.name
        for info in pkgutil.walk_packages(hiremeornot.__path__, "hiremeornot.")
        if info.name not in DRAWING and not info.name.endswith("__main__")
    ]
    # all of them in one interpreter; only if that loads matplotlib, one each to name the culprits
    if "matplotlib" in loaded_after("\n".join(f"import {module}" for module in modules)):
        loaded = loaded_by_each(modules)
        drawing = sorted(module for module, heavy in loaded.items() if "matplotlib" in heavy)
        assert drawing == [], drawing
        raise AssertionError("matplotlib loads with the modules together, with none alone")
    assert "matplotlib" in loaded_after("import hiremeornot.writing.figures")  # the probe can fail


def test_a_gather_job_loads_no_statistics_plotting_or_model_library(tmp_path):
    part = tmp_path / "part.tsv"
    pd.DataFrame({"a": [1, 2]}).to_csv(part, sep="\t", index=False)
    out = tmp_path / "all.tsv"
    argv = ["gather", "--inputs", str(part), str(part), "--out", str(out)]
    code = f"from hiremeornot.cli import main\nassert main({argv!r}) == 0"
    assert loaded_after(code) == set()
    assert len(pd.read_csv(out, sep="\t")) == 4


def test_the_workflow_and_a_simulated_step_job_load_no_statistics_or_model_library():
    """Every Snakemake run loads the plan, and every step job its command's module: scipy.stats
    alone costs 0.6 s a process (the respondent's normal quantile is scipy.special's)."""
    code = "import hiremeornot.plan, hiremeornot.cli.asking, hiremeornot.asking.backends.simulated"
    libraries = ("scipy.stats", "statsmodels", "matplotlib", "torch", "transformers")
    assert loaded_after(code, libraries) == set()


def test_no_commands_module_loads_scipy_stats_or_statsmodels_before_a_test_runs():
    """Every job pays its command module's imports; scipy.stats alone cost 1-2 s a job, so the
    t and normal tails come from scipy.special (analysis/distributions.py) and the rest of
    scipy.stats and statsmodels load inside the functions that test."""
    modules = sorted({f"hiremeornot.cli.{module}" for module, *_ in COMMANDS.values()})
    loaded = loaded_by_each(modules, ("scipy.stats", "statsmodels"))
    assert {module: heavy for module, heavy in loaded.items() if heavy} == {}
    assert loaded_after("import scipy.stats", ("scipy.stats",)) == {"scipy.stats"}  # the probe


def test_every_command_names_a_module_of_the_cli_with_its_function():
    for name, (module, *_) in COMMANDS.items():
        function = f"cmd_{name.replace('-', '_')}"
        assert callable(getattr(importlib.import_module(f"hiremeornot.cli.{module}"), function))
