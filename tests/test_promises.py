"""The README's list "A registry change can never …" is checkable: every promise names the tests that hold it.

A promise with no test, or one that names a test that does not exist (renamed, deleted, misspelt), fails
here, so the list cannot drift from what is actually tested.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from conftest import REPO
from doc_pages import section as doc_section

PAGE = "docs/hostile-input.md"
HEADING = "## A registry change can never …"
TEST_REFERENCE = re.compile(r"`(tests/[\w/]+\.py)::(test_\w+)`")


def _promises() -> list[str]:
    section = doc_section(PAGE, HEADING).split("\n", 1)[1]
    first = re.search(r"^1\. ", section, flags=re.MULTILINE)
    assert first, "the promise list has no first item"
    # The list ends at the first paragraph that is neither an item nor an item's continued line.
    end = re.search(r"\n\n(?![\d ])", section[first.start() :])
    listed = section[first.start() : first.start() + end.start()] if end else section[first.start() :]
    items = re.split(r"^\d+\. ", listed, flags=re.MULTILINE)[1:]
    return [" ".join(item.split()) for item in items]


def _test_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")}


def test_the_promise_list_has_items() -> None:
    promises = _promises()
    assert len(promises) >= 8
    assert all(promise.startswith("…") for promise in promises), promises


def test_every_promise_names_tests_that_exist() -> None:
    names: dict[str, set[str]] = {}
    for promise in _promises():
        references = TEST_REFERENCE.findall(promise)
        assert references, f"this promise names no test: {promise[:120]}"
        for file, test in references:
            path = REPO / file
            assert path.is_file(), f"{file} (named by: {promise[:80]}) does not exist"
            known = names.setdefault(file, _test_names(path))
            assert test in known, f"{file}::{test} (named by: {promise[:80]}) does not exist"


def test_the_check_reads_what_it_forbids() -> None:
    """The reference pattern sees a real reference and nothing else, so a promise cannot pass on prose."""
    assert TEST_REFERENCE.findall("held by `tests/test_check.py::test_deleted_and_renamed_versions_fail`") == [
        ("tests/test_check.py", "test_deleted_and_renamed_versions_fail")
    ]
    assert TEST_REFERENCE.findall("held by tests that check it") == []
