"""Issue 27, first week items 5 and 9: the README's "Your first week" block runs as written, top to
bottom, as one shell script in an empty folder, and freezes no scaffold; init keeps ``.freezer/lock``
out of git. Real git, the installed pre-commit, no network (the ``pip install`` line is checked, not run).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_inprocess
from doc_pages import section

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "A Maintainer",
    "GIT_AUTHOR_EMAIL": "maintainer@example.invalid",
    "GIT_COMMITTER_NAME": "A Maintainer",
    "GIT_COMMITTER_EMAIL": "maintainer@example.invalid",
}
BIN = Path(sys.executable).parent
PRE_COMMIT = shutil.which("pre-commit") or str(BIN / "pre-commit")


def _block() -> str:
    return section("README.md", "## Your first week").split("```sh\n", 1)[1].split("```", 1)[0]


def _env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "home").mkdir(exist_ok=True)
    return {
        **os.environ,
        **GIT_IDENTITY,
        "PATH": f"{BIN}:{os.environ.get('PATH', '')}",
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "HOME": str(tmp_path / "home"),
    }


def test_the_first_week_names_its_tools_first() -> None:
    lines = [line for line in _block().splitlines() if line.strip()]
    assert lines[0] == "pip install pre-commit"
    assert lines[1] == "command -v freezer"  # the hooks need freezer on PATH; README step 1 says how
    steps = section("README.md", "## Your first week")
    assert "language: system" in steps and "source .venv/bin/activate" in steps and "pipx" in steps


@pytest.mark.skipif(not Path(PRE_COMMIT).exists() or shutil.which("perl") is None, reason="needs pre-commit, perl")
def test_the_first_week_runs_literally_and_freezes_no_scaffold(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    script = _block().replace("pip install pre-commit\n", "pre-commit --version\n", 1)
    assert script != _block()
    ran = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script], cwd=work, env=_env(tmp_path), capture_output=True, text=True
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "Traceback" not in ran.stdout + ran.stderr
    registry = work / "my-bench"
    for name, tasks in (
        ("bench_v1", {"find-main", "find-serve"}),
        ("bench_v2", {"find-main", "find-serve", "find-helper"}),
    ):
        frozen = registry / "versions" / name
        assert {p.stem for p in (frozen / "fixtures").iterdir()} == tasks
        for path in frozen.rglob("*.yaml"):
            text = path.read_text()
            assert "TODO(freezer" not in text and "example-task" not in text, path
    assert "title: bench v2\n" in (registry / "versions/bench_v2/version.yaml").read_text()
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=work / "my-code", capture_output=True, text=True)
    assert f'pinned_sha: "{head.stdout.strip()}"' in (registry / "versions/bench_v2/version.yaml").read_text()
    tracked = subprocess.run(["git", "ls-files"], cwd=registry, capture_output=True, text=True).stdout.split()
    assert ".freezer/lock" not in tracked and "versions/bench_v2/METHOD.md" in tracked
    again = run_inprocess("cut", "v2", cwd=registry)
    assert again.code == 0 and "already frozen" in again.out, again.text


@pytest.mark.parametrize("where", ["new folder", "inside a repository"])
def test_init_keeps_the_lock_out_of_git(tmp_path: Path, where: str) -> None:
    env = _env(tmp_path)
    root = tmp_path / "reg"
    if where == "inside a repository":  # init in a subfolder of an existing repository: no git init there
        subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, env=env)
    assert run_inprocess("init", str(root), cwd=tmp_path).code == 0
    assert run_inprocess("validate", cwd=root).code in (0, 1)
    (root / ".freezer/lock").touch()  # what every writing command leaves behind
    (root / ".freezer/staging").mkdir(exist_ok=True)
    (root / ".freezer/staging/left-over").write_text("x")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
    staged = subprocess.run(
        ["git", "diff", "--cached", "--name-only", "--relative"], cwd=root, capture_output=True, text=True, env=env
    ).stdout.split()
    assert ".freezer/lock" not in staged and ".freezer/staging/left-over" not in staged
    assert "freezer.yaml" in staged and ".freezer/schemas/registry.schema.json" in staged
    ignored = subprocess.run(["git", "check-ignore", ".freezer/lock"], cwd=root, capture_output=True, text=True)
    assert ignored.returncode == 0 and ".freezer/lock" in ignored.stdout
