"""The docs' tables of checks name tests that exist."""

import re
import shlex
import subprocess
import sys

import pytest
import yaml

from hiremeornot import model_checks
from hiremeornot.config import validate_config
from tests.conftest import REPO


@pytest.mark.parametrize("doc", ["robustness.md", "store.md"])
def test_every_test_a_doc_names_exists(doc):
    text = (REPO / "docs" / doc).read_text()
    named = re.findall(r"`(test_\w+)\.py::(test_\w+)`", text)
    assert named
    missing = [
        f"{module}::{test}"
        for module, test in named
        if f"def {test}(" not in (REPO / "tests" / f"{module}.py").read_text()
    ]
    assert not missing


def readme_block(heading: str, doc: str = "docs/cluster.md") -> list[str]:
    """The command lines of the first bash block under a heading of a Markdown file of the
    repository (comments dropped); the heading must be there, at any level."""
    text = (REPO / doc).read_text()
    found = re.search(rf"^#+ {re.escape(heading)}$", text, re.MULTILINE)
    assert found, f"{doc}: no heading {heading!r}"
    section = text[found.start() :]
    start = section.index("```bash") + len("```bash")
    block = section[start : section.index("```", start)]
    return [line.split("#")[0].strip() for line in block.strip().splitlines()]


@pytest.mark.slow
def test_the_readmes_slurm_recipe_plans_a_run_as_written(tmp_path):
    """Each `snakemake --profile` line of the recipe (docs/cluster.md, which the README links
    to), as written, from a copy of the repository (a dry run: the plugin is installed by make
    setup; no cluster needed to plan)."""
    assert "(docs/cluster.md)" in (REPO / "README.md").read_text()
    lines = readme_block("Running on a SLURM cluster")
    assert lines[0].startswith("pip install -e") and "slurm" in lines[0]
    assert (
        "slurm" in (REPO / "Makefile").read_text().split("$(BIN)/.installed:")[1].split("\n\n")[0]
    )
    recipes = [line for line in lines if line.startswith("snakemake --profile")]
    assert len(recipes) == 2
    for entry in REPO.iterdir():
        if entry.name not in {".git", ".snakemake", "results", "logs", ".venv", ".venv-vllm"}:
            (tmp_path / entry.name).symlink_to(entry)
    for line in recipes:
        command = [sys.executable, "-m", *shlex.split(line), "-n"]
        done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, line + "\n" + (done.stdout + done.stderr)[-3000:]
        assert "rule ask_model:" in done.stdout and "This was a dry-run" in done.stdout, line


@pytest.mark.parametrize(
    "doc",
    ["README.md", "docs/backends/openai.md", "docs/backends/vllm.md", "docs/backends/providers.md"],
)
def test_every_config_a_doc_shows_is_a_valid_config(doc):
    """A config a reader copies from the docs passes the schema and the checks that need no
    file (a model's own paths and keys are the reader's)."""
    text = (REPO / doc).read_text()
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.DOTALL)
    configs = [yaml.safe_load(block) for block in blocks]
    configs = [c for c in configs if isinstance(c, dict) and "models" in c]
    assert configs or doc != "README.md"
    for config in configs:
        loaded = validate_config(config)
        for name, settings in loaded["models"].items():
            model_checks.check_backend_keys(name, settings)
            model_checks.check_answers_mode(name, settings)
