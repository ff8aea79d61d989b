"""Every setting that can change an output re-runs the jobs that read it: none is left out of
a rule's params or inputs (a changed ``sources.onet.release`` once left the old release's
results standing, "Nothing to be done").

Each leaf of the tiny run's filled config is edited in turn and the workflow dry-run on the
finished run. A setting must re-run at least one job, or be refused before the DAG, or be
declared here as one that changes no output of this run, with the reason; a dry run checks
the declaration too. A key added to the schema fails this test until it is classified.
"""

from __future__ import annotations

import copy
import fnmatch
from pathlib import Path

import pytest
import yaml

from hiremeornot.asking.backends.location import locate
from hiremeornot.config import model_keys, validate_config
from tests.conftest import needs_data
from tests.helpers.dry_runs import dry_runs
from tests.helpers.workflow_runs import (
    EMBEDDED,
    MODEL,
    OTHER_MODEL,
    TINY,
    copy_run,
    planned_jobs,
)

pytestmark = [pytest.mark.slow, pytest.mark.workflow, needs_data]

FILLED = validate_config(copy.deepcopy(TINY))
IN_USE = FILLED["names"]["list"]
UNUSED_LIST = "bbq"

# The jobs that record the whole config (the manifest, and the summary and export beside it):
# any edit re-runs them, so that the record names the config the results stand under; and the
# first page, which links to them.
RECORDING = {"manifest", "summary", "export", "first_page", "all"}
# Settings that change no output of this run but that record, and why (a dry run must plan
# nothing else).
NO_OUTPUT = {
    **{
        f"models.*.{key}": "sizes the job only (x-role: resource)" for key in model_keys("resource")
    },
    "models.*.distribution_date": "only the Local Law 144 summary prints it, and this run "
    "(no contrasts) makes none",
    "models.*.free_classifier": "every step is asked constrained: no reply to read",
    "sources.onet.url": "local_data is given: nothing is downloaded",
    "sources.onet.sha256": "local_data is given: nothing is downloaded",
    "workforce.url": "local_data is given: nothing is downloaded",
    f"sources.names.{IN_USE}.url": "local_data is given: nothing is downloaded",
    f"sources.names.{UNUSED_LIST}.*": "a name list not in use",
    "names.validity.*": "names.validate is false: no job asks the validity questions",
    "control.labels": "control.neutral is false: no job asks the control",
    "report.calibration_audits": "the calibration is asked for by name, not by `all`",
    "report.calibration_pooled": "the calibration is asked for by name, not by `all`",
    "report.power_differences": "the estimate is asked for by name, not by `all`",
    "interventions.instructions": "an instruction not in interventions.run asks nothing",
}
# Settings whose edit here is refused before any job, naming the key.
REFUSED = {
    "names.contrast": ("race", "race needs a name list with races"),
    "sources.onet.release": ("db_28_0_text", "sources.onet.release"),
    f"sources.names.{IN_USE}.folder": ("elsewhere", "names.list"),
    "models.*.gguf_file": ("m.gguf", "an embedded model brings its own GGUF file"),
    "names.drop_misperceived": (True, "needs names.validate: true"),
    f"sources.names.{IN_USE}.races": (["White"], "not one of sources.names"),
    f"sources.names.{IN_USE}.format": ("bbq", "is it a list of that format?"),
    "prompts.variants": (["paper", "neutral"], "unknown wording(s) ['neutral']"),
    "models.*.venv": ("no-such-venv", "no no-such-venv/bin/hiremeornot"),
    "interventions.run": (["kind"], "interventions.run: unknown intervention 'kind'"),
    # the transformers model's own keys would then do nothing
    "models.*.backend": ("simulated", "uses simulated, where it would do nothing"),
}
# The edit to make where adding to a value would not give a valid one.
EDITS = {
    "names.list": "unqover",
    "models.*.dtype": "bfloat16",
    "models.*.device": "cuda",
    "models.*.decoding": "likelihood",
    "models.*.answers_mode": "free",
    "models.*.free_classifier": EMBEDDED,
    "models.*.system_prompt": "Be fair.",
    "models.*.distribution_date": "2027-01-04",
    "models.*.gpu_model": "a100",
    "report.difference": "q2",
    "report.confidence": 0.9,
    "sources.onet.sha256": "0" * 64,
    f"sources.names.{IN_USE}.exclude": ["Mary"],
    f"sources.names.{UNUSED_LIST}.format": "unqover",
    f"sources.names.{UNUSED_LIST}.folder": "elsewhere",
    "onet.suppressed": "drop",
    "workforce.percent_of": "women",
    "models.*.model": str(locate(EMBEDDED["model"])[0]),  # the embedded model's folder
    # every wording defined reaches the model jobs, run or not: dropping one from
    # prompts.variants re-runs none of them, and adding one re-runs them from the store
    "prompts.wordings": {"extra": {"q1": "Can {subject} work as {a_occupation}?"}},
    "interventions.instructions": {"fair": {"preamble": "Hiring must be fair."}},
    "answers.yes": "Sure",
    "control.labels": ["Person C", "Person B"],
    "local_data": None,  # then the files come from results/downloads: new inputs
}
# Keys not edited, and why.
NOT_EDITED = {
    f"models.{OTHER_MODEL}.*": f"the same keys as models.{MODEL}'s",
    "sources.names.unqover.*": f"unused lists: sources.names.{UNUSED_LIST} stands for them",
    "sources.names.bloomberg.*": f"unused lists: sources.names.{UNUSED_LIST} stands for them",
    "occupations.table": "an input file: a table with other content is newer than the outputs",
    "workforce.crosswalk": "an input file, as occupations.table",
    "workforce.shares": "null: the table under local_data; a path names an input file",
}


def leaves(value: object, path: tuple[str, ...] = ()):
    """(dotted key, value) of every leaf of a nested mapping (an empty mapping is a leaf)."""
    if isinstance(value, dict) and value:
        for key, inner in value.items():
            yield from leaves(inner, (*path, key))
    else:
        yield ".".join(path), value


def matching(table: dict, key: str):
    """The entry of ``table`` whose pattern (``*`` for one model's name) matches ``key``."""
    for pattern, entry in table.items():
        if fnmatch.fnmatchcase(key, pattern):
            return pattern, entry
    return None, None


def edited_value(key: str, value: object) -> object:
    """A valid other value for ``key``."""
    if matching(REFUSED, key)[0]:
        return matching(REFUSED, key)[1][0]
    pattern, edit = matching(EDITS, key)
    if pattern:
        return edit
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return round(value + 0.05, 4)
    if isinstance(value, list) and value:
        return value[:-1]
    if isinstance(value, str):  # a template or a word: one more word keeps it valid
        return f"{value} Please." if value else "Nobody has them."
    raise AssertionError(f"{key}: say in EDITS how to edit {value!r}")


def with_edit(key: str, value: object) -> dict:
    config = copy.deepcopy(FILLED)
    *parents, last = key.split(".")
    inner = config
    for part in parents:
        inner = inner[part]
    if value is None:
        del inner[last]
    else:
        inner[last] = value
    return config


VALUES = dict(leaves(FILLED))
KEYS = [key for key in VALUES if not matching(NOT_EDITED, key)[0]]


def test_every_setting_is_classified_once():
    for table in (NO_OUTPUT, REFUSED, EDITS, NOT_EDITED):
        for pattern in table:
            assert any(fnmatch.fnmatchcase(key, pattern) for key in VALUES), pattern
    for key in KEYS:
        assert not (matching(NO_OUTPUT, key)[0] and matching(REFUSED, key)[0]), key
        if not matching(REFUSED, key)[0]:
            validate_config(with_edit(key, edited_value(key, VALUES[key])))  # a valid edit


def edited_configs(folder: Path, edits: dict[str, object]) -> list[list[str]]:
    """Snakemake's arguments that put each edited config in place of the run's (it merges
    --configfile files in order)."""
    arguments = []
    for key, value in edits.items():
        path = folder / f"{key}.yaml"
        path.write_text(yaml.safe_dump(with_edit(key, value)))
        arguments.append(["--configfile", str(path)])
    return arguments


def test_editing_any_setting_reruns_what_it_can_change(tiny_run, tmp_path):
    run = copy_run(tiny_run, tmp_path / "run")
    (run / "config.yaml").write_text("{}\n")  # the edited config alone
    folder = tmp_path / "configs"
    folder.mkdir()
    edits = {key: edited_value(key, VALUES[key]) for key in KEYS}
    finished = dry_runs(run, edited_configs(folder, edits), tmp_path / "dry-runs")
    results = dict(zip(edits, finished, strict=True))
    wrong = []
    for key, result in results.items():
        output = result.stdout + result.stderr
        jobs = planned_jobs(result.stdout)
        refused, expected = matching(REFUSED, key)
        quiet, reason = matching(NO_OUTPUT, key)
        if refused:
            if result.returncode == 0 or expected[1] not in output or "Traceback" in output:
                wrong.append(f"{key}: not refused naming {expected[1]!r}")
        elif result.returncode != 0:
            wrong.append(f"{key} = {edits[key]!r}: refused: {output[-400:]}")
        elif quiet and {job[0] for job in jobs} - RECORDING:
            wrong.append(f"{key}: declared '{reason}', but re-runs {sorted({j[0] for j in jobs})}")
        elif not quiet and not {job[0] for job in jobs} - RECORDING:
            wrong.append(f"{key} = {edits[key]!r}: re-runs nothing but the record")
    assert not wrong, "\n".join(wrong)
