"""docs/architecture.md's tables are the code's own: its modules by stage are the package's
folders and files, and its table of every output, the rule that writes it and the code that
runs it is read from the rules (Snakemake's API) and compared row by row.

After changing a rule, print the table to paste: ``python -m tests.test_outputs_map``.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from snakemake.api import SnakemakeApi
from snakemake.settings.types import (
    ConfigSettings,
    OutputSettings,
    ResourceSettings,
    StorageSettings,
)

from hiremeornot.cli import COMMANDS
from tests.conftest import REPO, needs_data
from tests.helpers.workflow_runs import MODEL, OTHER_MODEL, TINY

DOC = REPO / "docs" / "architecture.md"
BEGIN, END = "<!-- outputs: begin -->", "<!-- outputs: end -->"
HEADER = "| output | rule | command | code |\n| --- | --- | --- | --- |\n"


def _pattern(path: str) -> str:
    """An output path as a pattern: wildcards without their constraints, the tiny config's
    models and wording as wildcards, the downloads' folder as written in plan.DOWNLOADS."""
    path = re.sub(r"\{(\w+),[^{}]*(?:\{[^{}]*\}[^{}]*)*\}", r"{\1}", path)
    for model in (MODEL, OTHER_MODEL):
        path = path.replace(f"/{model}/", "/{model}/").replace(f"/{model}.", "/{model}.")
    return path.replace("/paper/", "/{wording}/")


# The rules that run as cluster jobs: those that ask a model, and the calibration's audits.
CLUSTER_RULES = ["ask_model", "calibrate", "validate_names"]


def workflow_rules(workdir: Path) -> tuple[list, set[str]]:
    """The rules of the tiny config's workflow, and the names of its local rules."""
    (workdir / "config.yaml").write_text(yaml.safe_dump(TINY))
    with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
        workflow = api.workflow(
            resource_settings=ResourceSettings(),
            config_settings=ConfigSettings(configfiles=[workdir / "config.yaml"]),
            storage_settings=StorageSettings(),
            snakefile=REPO / "Snakefile",
            workdir=workdir,
        )._workflow
        return list(workflow.rules), set(workflow._localrules)


def outputs_map(workdir: Path) -> list[tuple[str, str, str, str]]:
    """(output, rule, command, code) of every output of every rule, in the rules' order."""
    rules, _ = workflow_rules(workdir)
    rows: dict[tuple, None] = {}
    for rule in rules:
        # a model's jobs run its venv's hiremeornot: {params.command} (plan.command)
        command = re.search(
            r"(?:hiremeornot|\{params\.command\}) ([a-z0-9-]+)", rule.shellcmd or ""
        )
        name = command.group(1) if command else ""
        code = f"`cli/{COMMANDS[name][0]}.py` `cmd_{name.replace('-', '_')}`" if name else ""
        for output in rule.output:
            rows[(f"`{_pattern(str(output))}`", rule.name, f"`{name}`" if name else "", code)] = (
                None
            )
    return list(rows)


def documented_modules() -> dict[str, list[str]]:
    """The stage table of the docs: each stage's folder and the modules it lists."""
    text = DOC.read_text()
    table = text[text.index("<!-- modules: begin -->") : text.index("<!-- modules: end -->")]
    stages = {}
    for line in table.splitlines()[3:]:
        stage, modules = line.split(" | ")[:2]
        stages[stage.strip("| `/")] = sorted(re.findall(r"`(\w+)/?`", modules))
    return stages


def test_the_docs_table_of_modules_is_the_package():
    package = REPO / "src" / "hiremeornot"
    folders = [p for p in package.iterdir() if (p / "__init__.py").exists()]
    found = {
        folder.name: sorted(
            p.stem for p in folder.iterdir() if p.suffix == ".py" and p.stem != "__init__"
        )
        + sorted(p.name for p in folder.iterdir() if (p / "__init__.py").exists())
        for folder in folders
    }
    assert documented_modules() == {stage: sorted(modules) for stage, modules in found.items()}


def _table(rows) -> str:
    return HEADER + "".join(f"| {' | '.join(row)} |\n" for row in rows)


@needs_data
def test_the_docs_table_of_outputs_is_the_rules(tmp_path):
    text = DOC.read_text()
    documented = text[text.index(BEGIN) + len(BEGIN) : text.index(END)].strip() + "\n"
    assert documented == _table(outputs_map(tmp_path)), "run python -m tests.test_outputs_map"


@needs_data
def test_every_rule_but_the_model_jobs_runs_on_the_submitting_host(tmp_path):
    """A cheap rule left out of `localrules:` becomes a cluster job of its own (one per model
    and contrast) and waits in the queue: only the model jobs and the calibration are sent."""
    rules, local = workflow_rules(tmp_path)
    assert sorted(rule.name for rule in rules if rule.name not in local) == CLUSTER_RULES


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        print(_table(outputs_map(Path(folder))), end="")
