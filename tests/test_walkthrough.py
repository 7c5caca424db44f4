"""Issue 14's acceptance: the README's first-week walkthrough, run command by command as a new user."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "A Maintainer",
    "GIT_AUTHOR_EMAIL": "maintainer@example.invalid",
    "GIT_COMMITTER_NAME": "A Maintainer",
    "GIT_COMMITTER_EMAIL": "maintainer@example.invalid",
}
PRE_COMMIT = shutil.which("pre-commit") or str(Path(sys.executable).parent / "pre-commit")


def _walkthrough() -> list[str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Your first week") :]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def _git(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


@pytest.mark.skipif(not Path(PRE_COMMIT).exists(), reason="pre-commit is not installed")
def test_the_readme_walkthrough_works_for_a_new_user(tmp_path: Path) -> None:
    env = {
        **os.environ,
        **GIT_IDENTITY,
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "HOME": str(tmp_path / "home"),
    }
    (tmp_path / "home").mkdir()
    work = tmp_path / "work"
    work.mkdir()
    cwd = work
    printed: dict[str, str] = {}
    # Issue 27: the README's block makes the code, writes the fixtures and does next's TODO itself.
    for command in _walkthrough():
        if command.startswith("cd "):
            cwd = cwd / command[3:].strip()
            continue
        if command.startswith("pip install"):  # no network in the tests: pre-commit is installed already
            continue
        ran = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
        assert ran.returncode == 0, f"{command}\n{ran.stdout}{ran.stderr}"
        assert "Traceback" not in ran.stdout + ran.stderr
        printed[command] = ran.stdout + ran.stderr

    registry = work / "my-bench"
    assert (registry / "versions/bench_v1/manifest.json").is_file()
    method = (registry / "versions/bench_v2/METHOD.md").read_text()
    assert "find-helper" in method  # §Delta vs v1 names the added fixture
    status = printed["freezer status"]
    assert "next version v2; drafts say v2, valid" in status and "1 added" in status
    assert re.search(r"pinned SHA vs bench_v1: [0-9a-f]{8} → [0-9a-f]{8}", status), status
    commits = [c for c in printed if c.startswith("git add -A && git commit")]
    assert len(commits) == 2 and all(re.search(r"freezer check\.+Passed", printed[c]) for c in commits)
    log = printed["freezer log"].splitlines()
    assert log[0].startswith("bench_v2") and "moved: fixture set" in log[0]
    assert log[1].startswith("bench_v1") and "first version" in log[1]

    # The installed hook now guards what was frozen: an edit to bench_v1 cannot be committed.
    frozen = registry / "versions/bench_v1/fixtures/find-main.yaml"
    frozen.chmod(0o644)
    frozen.write_text(frozen.read_text().replace("line: 1", "line: 2"))
    blocked = subprocess.run(
        ["bash", "-c", "git add -A && git commit -q -m tamper"], cwd=registry, env=env, capture_output=True, text=True
    )
    assert blocked.returncode != 0
    assert "versions/bench_v1/fixtures/find-main.yaml" in blocked.stdout + blocked.stderr
