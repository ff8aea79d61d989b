"""The package stays legible: no module over 450 lines, no function over 80."""

from __future__ import annotations

import ast

from tests.conftest import REPO

PACKAGE = REPO / "src" / "hiremeornot"
MODULE_LINES = 450
FUNCTION_LINES = 80


def test_no_module_over_450_lines():
    long = {
        str(path.relative_to(PACKAGE)): lines
        for path in PACKAGE.rglob("*.py")
        if (lines := len(path.read_text().splitlines())) > MODULE_LINES
    }
    assert long == {}


def test_no_function_over_80_lines():
    long = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > FUNCTION_LINES:
                    long[f"{path.relative_to(PACKAGE)}:{node.name}"] = lines
    assert long == {}
