"""The shell line of each workflow rule, built from its command's option table (cli/jobs.py,
cli/commands.py), so that an option is declared once and its rule passes every one of them.

Where a rule finds an option's value follows from the option's name (``value_of``), or from the
declaration's RULE entry (cli/options.py). Values a rule may leave empty are lists there, and
their options take ``nargs: "*"`` or ``"?"``."""

from __future__ import annotations

from hiremeornot.cli.commands import COMMANDS
from hiremeornot.cli.options import KEYED, PARAMS, RULE


def is_keyed(declared: dict) -> bool:
    """Whether an option takes ``KEY=PATH`` items (KEYED)."""
    return declared.get("action") is KEYED["action"]


def value_of(flag: str, declared: dict) -> str | None:
    """The placeholder of ``flag``'s value in its rule's shell line: as the declaration's RULE
    entry says where it has one; else ``--out`` is the rule's only output, ``--out-X`` its
    output X, ``--model`` its model wildcard, a keyed option (``KEY=PATH`` items) its params of
    that name, and any other its input of that name (dashes read as underscores)."""
    name = flag.removeprefix("--").replace("-", "_")
    where = declared.get(RULE, "")
    if where is None or where not in ("", PARAMS):
        return where
    if where == PARAMS or is_keyed(declared):
        return f"{{params.{name}:q}}"
    if name == "out":
        return "{output:q}"
    if name.startswith("out_"):
        return f"{{output.{name.removeprefix('out_')}:q}}"
    if name == "model":
        return "{wildcards.model}"
    return f"{{input.{name}:q}}"


def keyed_options(command: str) -> list[str]:
    """The names of ``command``'s keyed options (``KEY=PATH`` items), without their dashes."""
    options = COMMANDS[command][3]
    return [flags[0].removeprefix("--") for flags, declared in options if is_keyed(declared)]


def rule_line(command: str, program: str = "hiremeornot") -> str:
    """The shell line of the rule that runs ``command`` with ``program`` (and whatever the line
    sets before it): every option it takes, each with its value's placeholder, and its error
    output into the rule's log."""
    _, settings, contrast, options = COMMANDS[command]
    parts = [program, command]
    if settings:
        parts.append("--settings {params.settings:q}")
    if contrast:
        parts.append("--contrast {params.contrast:q}")
    for flags, declared in options:
        value = value_of(flags[0], declared)
        if value is not None:
            parts.append(f"{flags[0]} {value}")
    return " ".join([*parts, "2> {log:q}"])
