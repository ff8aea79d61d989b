"""Each rule's command line is built from its command's option table (cli/rule_lines.py): a dry
run of a config that plans every rule prints lines the CLI parses, each with every option its
command declares for a rule, and no command that a rule runs is left without one."""

from __future__ import annotations

import copy
import re
import shlex

import pytest

from hiremeornot.cli import _parser
from hiremeornot.cli.commands import COMMANDS, JOB_COMMANDS
from hiremeornot.cli.rule_lines import value_of
from tests.conftest import needs_data
from tests.helpers.workflow_runs import PLANTED, SIMULATED, TINY, run_tiny

pytestmark = [pytest.mark.workflow, needs_data]

# Every rule's job: two simulated models (so that compare has a pair), names validated, a second
# wording, an intervention arm, and the targets `all` leaves out.
EVERY_RULE = copy.deepcopy(TINY)
EVERY_RULE["models"] = {"planted": SIMULATED, "other": {**SIMULATED, "model": "other"}}
EVERY_RULE["names"]["validate"] = True
EVERY_RULE["prompts"] = {
    "wordings": {"plain": {"q2": "Which of the two is better for {a_occupation}?"}},
    "variants": ["paper", "plain"],
}
FAIR = {"preamble": "Hiring must not depend on gender.", "rationale": "a test of the preamble"}
EVERY_RULE["interventions"] = {"instructions": {"fair": FAIR}, "run": ["none", "fair"]}
# Race x gender contrasts and the neutral control: the impact ratios, Local Law 144 summary,
# overview and the whole run's estimate.
CONTRASTS = copy.deepcopy(TINY)
CONTRASTS["names"] = {
    "list": "bloomberg",
    "contrast": [{"a": {"race": "Black"}, "b": {"race": "White"}}],
    "pairs": 2,
}
BLACK_FAVOURED = {**PLANTED, "effects": {q: {"Black": 0.8} for q in ("q1", "q2", "q3")}}
CONTRASTS["models"] = {"planted": {**SIMULATED, "respondent": BLACK_FAVOURED}}
CONTRASTS["control"] = {"neutral": True}
# No local data: the downloads.
DOWNLOADED = {key: value for key, value in EVERY_RULE.items() if key != "local_data"}
RUNS = {
    "every rule": (
        EVERY_RULE,
        ["all", "results/calibration/planted.md", "results/compare/planted_vs_other.md"],
    ),
    "contrasts": (CONTRASTS, ["all", "results/estimate.md"]),
    "downloads": (DOWNLOADED, ["all"]),
}


def command_lines(output: str) -> list[list[str]]:
    """The arguments after the program of each ``hiremeornot`` line a dry run printed, up to
    the redirection of its errors into its log."""
    lines = []
    for line in output.splitlines():
        match = re.search(r"(?:^|\s|/)hiremeornot (\S+ .*?) 2> ", line)
        if match:
            lines.append(shlex.split(match.group(1)))
    return lines


def test_every_rule_line_parses_with_every_declared_option(tmp_path):
    lines = []
    for name, (config, targets) in RUNS.items():
        (tmp_path / name).mkdir()
        dry = run_tiny(tmp_path / name, "-n", "-p", "--forceall", *targets, config=config)
        lines += command_lines(dry.stdout)
    parser = _parser()
    seen = set()
    for arguments in lines:
        command = arguments[0]
        seen.add(command)
        parser.parse_args(arguments)  # exits (fails the test) on a value it cannot read
        for flags, declared in COMMANDS[command][3]:
            if value_of(flags[0], declared) is not None:
                assert flags[0] in arguments, f"{command}: {flags[0]} missing"
    assert set(JOB_COMMANDS) <= seen, f"no rule ran {sorted(set(JOB_COMMANDS) - seen)}"
