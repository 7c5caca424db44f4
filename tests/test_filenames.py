"""Data becomes a file name only through freezer.domain.taskid.safe_file_name."""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st

from freezer.domain.taskid import safe_file_name

HOSTILE = [
    "../../../../outside/pwned",
    "../../index",
    "a/b",
    "a\\b",
    ".",
    "..",
    ".hidden",
    "",
    "CON",
    "con.txt",
    "nul",
    "Task",
    "task\n",
    "tab\there",
    "x" * 300,
    "ünïcödé",
    "\u202eevil",
    "trailing.",
    "a..b",
    "~tilde",
]


def test_plain_names_are_their_own_file_name() -> None:
    for name in ["callers-run-deterministic-containers", "task_1", "a.b", "v2", "graph_v2"]:
        assert safe_file_name(name) == name


def test_hostile_names_become_one_safe_component() -> None:
    allowed = set(string.ascii_lowercase + string.digits + "._-~")
    for name in HOSTILE:
        mapped = safe_file_name(name)
        assert mapped not in {"", ".", ".."}, name
        assert set(mapped) <= allowed, (name, mapped)
        assert not mapped.startswith("."), (name, mapped)
        assert len(mapped) <= 100, (name, mapped)
        assert mapped.split(".", 1)[0] not in {"con", "nul", "prn", "aux"}, (name, mapped)
        assert mapped != name or name.islower(), (name, mapped)


def test_case_variants_do_not_collide() -> None:
    # On a case-insensitive file system Task.html and task.html are one file.
    assert safe_file_name("Task").lower() != safe_file_name("task").lower()


def test_a_plain_name_cannot_be_chosen_to_equal_a_mapped_one() -> None:
    mapped = safe_file_name("../../index")
    assert "~" in mapped
    assert safe_file_name(mapped) != mapped


@given(st.text(max_size=40), st.text(max_size=40))
def test_different_names_never_share_a_file_name(first: str, second: str) -> None:
    if first != second:
        assert safe_file_name(first).lower() != safe_file_name(second).lower()
