"""Issue 23, classes 1 and 10: bounded work over many items, and the code checks on hostile shapes.

``bounded.map_bounded`` runs a suite schema's checks of many fixtures in forked
children, each item within a deadline; these tests give it real runaway work
(a loop, a memory hog, a child that dies) and real exceptions. The code checks
read frozen files that no validate saw: a field of the wrong shape there is a
located problem, never a crash.
"""

from __future__ import annotations

import os
import re
import signal
import warnings
from pathlib import Path

import pytest

from freezer.git.gitrepo import CodeRepo
from freezer.parse.yamlload import load_bytes
from freezer.resolve.groundtruth import check_fixtures
from freezer.runtime import bounded

from conftest import Run, run_inprocess
from registry_helpers import commit_all, sample_repo

held: list[bytearray] = []


def _work(item: int) -> int:
    if item == 3:
        bounded.note("spinning on item 3")
        while True:
            pass
    if item == 5:
        held.append(bytearray(1 << 30))  # over the limit
    if item == 7:
        os.kill(os.getpid(), signal.SIGKILL)
    if item == 9:
        raise ValueError("item 9 is bad")
    return item * item


@pytest.mark.parametrize("workers", [1, 2])
def test_each_item_is_bounded_and_the_rest_go_on(workers: int) -> None:
    items = [0, 1, 2, 3, 4, 5, 6, 7, 8]
    results = bounded.map_bounded(_work, items, seconds=1, memory=256 << 20, workers=workers, max_stops=9)
    assert [r for i, r in enumerate(results) if i not in (3, 5, 7)] == [0, 1, 4, 16, 36, 64]
    spun, hog, died = results[3], results[5], results[7]
    assert isinstance(spun, bounded.Stopped) and spun.reason == "did not finish within 1 s"
    assert spun.doing == "spinning on item 3"
    assert isinstance(hog, bounded.Stopped) and hog.reason == "needed more than 256 MiB of memory"
    assert isinstance(died, bounded.Stopped) and died.reason.startswith("stopped without an answer")


def test_an_exception_is_raised_here_as_in_process() -> None:
    with pytest.raises(ValueError, match="item 9 is bad"):
        bounded.map_bounded(_work, [8, 9, 10], seconds=5, memory=256 << 20)


def test_after_enough_stops_the_rest_is_not_checked() -> None:
    results = bounded.map_bounded(_work, [3, 3, 3, 1, 2], seconds=0.5, memory=256 << 20, max_stops=2)
    assert [type(r).__name__ for r in results] == ["Stopped"] * 5
    assert results[2].reason == "not checked: the work was stopped 2 times already"  # type: ignore[union-attr]


def test_progress_and_order_over_many_items() -> None:
    seen: list[int] = []
    results = bounded.map_bounded(
        _work, list(range(10, 400)), seconds=5, memory=256 << 20, workers=2, progress=lambda n, _: seen.append(n)
    )
    assert results == [i * i for i in range(10, 400)]
    assert seen == list(range(1, 391))


def _children() -> set[int]:
    """This process's children, running or not yet reaped (Linux's /proc: every thread's list)."""
    found: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        found.update(int(pid) for pid in (task / "children").read_text().split())
    return found


def test_no_child_is_left_behind() -> None:
    # Other children of the test process (the fork server, a git cat-file of an earlier run) may
    # live on: what must not is a child that map_bounded started.
    before = _children()
    bounded.map_bounded(_work, [1, 3, 2], seconds=0.5, memory=256 << 20, workers=2)
    assert _children() <= before


HOSTILE_FROZEN = {
    "ground-truth-number": "task_id: t\nstatus: landed\nground_truth: 5\n",
    "site-text": "task_id: t\nstatus: landed\nground_truth: [crates/x.rs]\n",
    "site-file-list": "task_id: t\nstatus: landed\nground_truth:\n  - {file: [a], line: 3}\n",
    "site-line-zero": "task_id: t\nstatus: landed\nground_truth:\n  - {file: Cargo.toml, line: 0}\n",
    "site-line-negative": "task_id: t\nstatus: landed\ntraps:\n  - {file: Cargo.toml, line: -1}\n",
    "site-range-list": "task_id: t\nstatus: landed\ntraps:\n  - {file: Cargo.toml, range: [1, 2]}\n",
    "members-text": (
        "task_id: t\nstatus: landed\ntraps:\n  - {file: Cargo.toml, range: {start: 1, end: 2}, members: x}\n"
    ),
    "grep-text": (
        "task_id: t\nstatus: landed\nnaive_grep: rg x\ngate_b: {status: pass, expected_matches: 1, expected_files: 1}\n"
    ),
    "grep-paths-text": (
        "task_id: t\nstatus: landed\nnaive_grep: {pattern: x, paths: src}\n"
        "gate_b: {status: pass, expected_matches: 1, expected_files: 1}\n"
    ),
    "grep-flags-numbers": (
        "task_id: t\nstatus: landed\nnaive_grep: {pattern: x, paths: [.], flags: [1]}\n"
        "gate_b: {status: pass, expected_matches: 1, expected_files: 1}\n"
    ),
    "gate-b-text-count": (
        "task_id: t\nstatus: landed\nnaive_grep: {pattern: x, paths: [.]}\n"
        "gate_b: {status: pass, expected_matches: many, expected_files: 1}\n"
    ),
    "oracle-list": "task_id: t\nstatus: landed\noracle: [a, b]\n",
    "oracle-numbers": "task_id: t\nstatus: landed\noracle: {must_include: [1], must_not_include: []}\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE_FROZEN))
def test_code_checks_of_a_frozen_file_of_the_wrong_shape(name: str, cache_root: Path) -> None:
    """What audit re-verifies was frozen, and a hand-made version in a pull request was never
    validated: each field of the wrong shape is a located problem, not a TypeError."""
    loaded = load_bytes(HOSTILE_FROZEN[name].encode(), f"versions/api_v9/fixtures/{name}.yaml")
    assert loaded.document is not None
    with CodeRepo(sample_repo(cache_root)) as repo:
        sha = repo.resolve("HEAD")
        found = check_fixtures(repo, sha, [loaded.document], oracle=True)
    problems = found[loaded.document.display]
    assert problems, name
    assert all(p.layer == "schema" and "freezer reads" in p.message for p in problems), problems
    assert all(p.line is not None and p.path for p in problems), problems


def test_no_warning_from_a_naive_grep_python_would_read_as_a_nested_set(reg: Path) -> None:
    """rg refuses '[[a]' as an unclosed class, with its own message; Python never compiles it,
    so no FutureWarning can reach the user (the schema pattern case is tests/cases/schemas)."""
    fixture = reg / "drafts/graph/fixtures/locate-agent-runtime-struct.yaml"
    text = fixture.read_text()
    fixture.write_text(re.sub(r"pattern: .*", "pattern: '[[a]'", text, count=1))
    commit_all(reg, "a pattern with [[")
    for args in (["validate"], ["cut", "v1", "--dry-run"]):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result: Run = run_inprocess(*args, cwd=reg)
        assert caught == [], [str(w.message) for w in caught]
        assert "Traceback" not in result.text and "Warning" not in result.text
    assert result.code == 1 and "$.naive_grep.pattern: ripgrep 15.2.0 refuses it" in result.text
