"""Audit says where each pinned commit is reachable from, and --strict fails one that only this
machine's object store still holds (a force-push took it off every branch; issue 25, class 5)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from freezer.git.gitrepo import run_git

from conftest import run_inprocess


def _demo(demo_build: Path, tmp_path: Path) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    return root


def _pin_steps(root: Path, *args: str) -> tuple[int, dict[str, str]]:
    ran = run_inprocess("audit", "--suite", "graph", "--format", "json", *args, cwd=root)
    versions = json.loads(ran.out)["result"]["versions"]
    steps = {v["name"]: next(c["detail"] for c in v["checks"] if c["step"] == "pin") for v in versions}
    return ran.code, steps


def test_a_pin_on_a_local_branch_only_says_so(demo_build: Path, tmp_path: Path) -> None:
    root = _demo(demo_build, tmp_path)
    code, steps = _pin_steps(root)
    assert code == 0
    assert "reachable from local main (on no remote-tracking branch)" in steps["graph_v2"]


def test_a_pin_on_a_remote_tracking_branch_names_it(demo_build: Path, tmp_path: Path) -> None:
    root = _demo(demo_build, tmp_path)
    code_repo = root / "sample-code"
    run_git(["update-ref", "refs/remotes/origin/main", "HEAD"], code_repo)
    code, steps = _pin_steps(root, "--strict")
    assert code == 0
    assert all("reachable from remote-tracking origin/main" in step for step in steps.values())


def test_a_pin_on_no_branch_fails_strict(demo_build: Path, tmp_path: Path) -> None:
    root = _demo(demo_build, tmp_path)
    code_repo = root / "sample-code"
    first = run_git(["rev-list", "--max-parents=0", "HEAD"], code_repo).split()[0]
    # A force-push as seen from here: every branch now ends before the pinned commits.
    run_git(["update-ref", "refs/heads/main", first], code_repo)
    code, steps = _pin_steps(root)
    assert code == 0  # the objects are still here, so the code still verifies
    assert "is on no branch: only this machine's object store holds it" in steps["graph_v2"]
    strict, _ = _pin_steps(root, "--strict")
    assert strict == 1
    text = run_inprocess("audit", "--suite", "graph", "--strict", cwd=root)
    assert text.code == 1 and "--strict: its pinned commit is on no branch" in text.out
