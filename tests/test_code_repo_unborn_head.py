"""A code repository whose HEAD is unborn (an orphan branch checked out, nothing committed on it)
while the pinned commit is on another branch: cut uses the pinned commit and records the
repository's root commits from its branches; audit agrees. Real git, the real CLI (in-process: the
interpreter's start is not the subject)."""

from __future__ import annotations

import json
from pathlib import Path

from freezer.git.gitrepo import DETERMINISTIC_ENV, run_git

from conftest import assert_clean_failure, run_inprocess
from registry_helpers import commit_all


def _unborn(repo: Path) -> None:
    run_git(["checkout", "-q", "--orphan", "nothing-yet"], repo, DETERMINISTIC_ENV)


def test_cut_and_audit_with_an_unborn_head_use_the_pinned_commit(reg: Path) -> None:
    roots = run_git(["rev-list", "--max-parents=0", "HEAD"], reg / "sample-code", DETERMINISTIC_ENV).split()
    _unborn(reg / "sample-code")
    for args in (("cut", "v1", "--dry-run"), ("cut", "v1")):
        result = run_inprocess(*args, cwd=reg)
        assert result.code == 0, result.text
        assert "ambiguous argument" not in result.text
    manifest = json.loads((reg / "versions/graph_v1/manifest.json").read_text(encoding="utf-8"))
    assert manifest["code_repo"]["root_commits"] == sorted(roots)
    commit_all(reg, "v1")
    audit = run_inprocess("audit", cwd=reg)
    assert audit.code == 0, audit.text


def test_an_unborn_head_with_no_branch_at_all_is_said_plainly(reg: Path) -> None:
    repo = reg / "sample-code"
    _unborn(repo)
    for ref in run_git(["for-each-ref", "--format=%(refname)"], repo, DETERMINISTIC_ENV).split():
        run_git(["update-ref", "-d", ref], repo, DETERMINISTIC_ENV)
    result = run_inprocess("cut", "v1", "--dry-run", cwd=reg)
    assert_clean_failure(result)
    assert "ambiguous argument" not in result.text and "HEAD" in result.text, result.text
    assert not (reg / "versions/graph_v1").exists()
