"""Issue 27, first week item 3: ``status`` runs the checks ``cut --dry-run`` runs (through the cut
itself), so it never says "valid" of drafts the cut would refuse; when it cannot run them it says
which it skipped and why. Real registries and git repositories in tmp_path.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import Run, assert_clean_failure, run_inprocess


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def _status(reg: Path) -> Run:
    result = run_inprocess("status", cwd=reg)
    assert "Traceback" not in result.text
    return result


def _dry(reg: Path) -> Run:
    return run_inprocess("cut", "v1", "--dry-run", cwd=reg)


VERSION = "drafts/graph/version.yaml"
FIXTURE = "drafts/graph/fixtures/locate-register-tools.yaml"
CASES = {
    "missing pinned SHA": (
        VERSION,
        "bb736e3961b0d3bec4631c48782ff0c286a01456",
        "abcdef1" * 5 + "abcde",
        "does not name a commit",
    ),
    "short pinned SHA": (VERSION, "bb736e3961b0d3bec4631c48782ff0c286a01456", "deadbeef", "does not name a commit"),
    "wrong ground-truth line": (FIXTURE, "    line: 15\n", "    line: 3\n", "register_tools"),
    "ground truth in no file": (FIXTURE, "registry.rs\n    line: 15", "nothere.rs\n    line: 15", "nothere.rs"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_status_fails_where_the_cut_would(reg: Path, case: str) -> None:
    rel, old, new, named = CASES[case]
    assert run_inprocess("status", cwd=reg).code == 0  # the v1 drafts as they are: a cut would pass
    _edit(reg / rel, old, new)
    assert run_inprocess("validate", cwd=reg).code == 0  # validate alone cannot see it
    dry = _dry(reg)
    assert_clean_failure(dry)
    result = _status(reg)
    assert_clean_failure(result)
    first = result.out.splitlines()[0]
    assert "valid" not in first.replace("freezer validate passes", ""), result.out
    assert "NOT ready" in first
    assert "cut v1 --dry-run: fails: cut refused at step" in result.out
    assert named in result.out
    step = re.search(r"cut refused at step '([^']+)'", dry.err)
    assert step and f"step '{step.group(1)}'" in result.out  # the same check path, the same step
    rows = json.loads(run_inprocess("status", "--format", "json", cwd=reg).out)["result"]["suites"]
    assert rows[0]["cut"].startswith("fails")
    assert named in rows[0]["cut"] + json.dumps(rows[0]["cut_problems"])


@pytest.mark.parametrize("how", ["moved away", "not a repository"])
def test_status_fails_when_the_code_repository_cannot_be_reached(reg: Path, how: str) -> None:
    if how == "moved away":
        shutil.move(reg / "sample-code", reg.parent / "elsewhere")
    else:
        shutil.rmtree(reg / "sample-code/.git")
    result = _status(reg)
    assert_clean_failure(result)
    assert "NOT ready" in result.out.splitlines()[0]
    assert "cut v1 --dry-run: fails" in result.out and "sample-code" in result.out
    assert_clean_failure(_dry(reg))


def test_status_says_which_checks_it_skipped_and_why(reg: Path) -> None:
    _edit(reg / VERSION, "\nversion: 1\n", "\nversion: 4\n")
    result = _status(reg)
    assert "the cut's own checks were not run" in result.out.splitlines()[0]
    assert "cut v1 --dry-run: skipped: the drafts say v4, and the next free version is v1" in result.out
    _edit(reg / FIXTURE, "status: landed", "status: maybe")
    broken = _status(reg)
    assert_clean_failure(broken)
    assert "cut v1 --dry-run: skipped: the drafts do not validate (freezer validate says why)" in broken.out


def test_status_says_valid_only_when_the_dry_run_passes(reg: Path) -> None:
    result = _status(reg)
    assert result.code == 0, result.text
    assert "graph: next version v1; drafts say v1, valid" in result.out
    assert "cut v1 --dry-run: passes" in result.out
    assert not (reg / "versions").exists()  # the dry run wrote nothing
