"""The docs' tables of checks name tests that exist."""

import re

import pytest

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
