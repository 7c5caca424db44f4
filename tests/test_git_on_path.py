"""A ``git`` committed in the registry (or in the code repository) never runs in place of the real one.

An empty ``PATH`` entry (``PATH=:/usr/bin``, ``/usr/bin::/bin``, a trailing
``:``) or a relative one (``.``, ``bin``) names the current folder, which is
the registry or the code checkout when freezer runs git. Each case is first
shown to run the marker under a plain lookup; freezer then resolves git once,
in the absolute entries only, and the marker never appears.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hostile.git_programs import NO_GIT, SEARCHES

from conftest import assert_clean_failure, run_forked, run_inprocess
from registry_helpers import commit_all, make_registry

REAL_GIT = shutil.which("git")
GIT_DIR = str(Path(REAL_GIT).parent) if REAL_GIT else ""


def plant_git(folder: Path, marker: Path) -> None:
    """An executable named git that leaves a marker and answers like a broken git."""
    fake = folder / "git"
    fake.parent.mkdir(parents=True, exist_ok=True)
    fake.write_text(f"#!/bin/sh\n: > '{marker}'\nexit 1\n", encoding="utf-8")  # no PATH needed
    fake.chmod(0o755)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A registry with graph_v1 frozen, a ``git`` at its top, in ``bin/`` and in its code repository."""
    base = tmp_path_factory.mktemp("path")
    root = make_registry(base, tmp_path_factory.mktemp("cache"))
    assert run_inprocess("cut", "v1", cwd=root).code == 0
    marker = base / "MARKER-git"
    for folder in (root, root / "bin", root / "sample-code", root / "sample-code" / "bin"):
        plant_git(folder, marker)
    commit_all(root, "freeze v1, and a git of our own")
    return root, marker


@pytest.mark.skipif(REAL_GIT is None, reason="git is not installed")
@pytest.mark.parametrize("search", [pytest.param(value, id=name) for name, value in SEARCHES])
def test_the_registry_git_never_runs(hostile: tuple[Path, Path], search: str) -> None:
    root, marker = hostile
    search = search.format(git=GIT_DIR)
    for where in (root, root / "sample-code"):
        # The vector is live: a plain lookup with this PATH runs the planted git.
        subprocess.run(["git", "--version"], cwd=where, env={"PATH": search}, capture_output=True, check=False)
        assert marker.exists(), f"PATH={search!r} did not pick the planted git in {where}"
        marker.unlink()
    for command in (["check", "--base", "HEAD"], ["cut", "--dry-run", "v1"], ["audit"]):
        result = run_forked(*command, cwd=root, env={"PATH": search})
        assert result.code in (0, 1), result.text
        assert "Traceback" not in result.text and "internal error" not in result.text, result.text
        assert not marker.exists(), f"freezer {' '.join(command)} ran the planted git with PATH={search!r}"
    assert run_forked("check", "--base", "HEAD", cwd=root, env={"PATH": search}).code == 0


@pytest.mark.parametrize("search", [pytest.param(value, id=name) for name, value in NO_GIT])
def test_no_real_git_is_a_clear_message_not_the_planted_one(hostile: tuple[Path, Path], search: str) -> None:
    root, marker = hostile
    subprocess.run(["git", "--version"], cwd=root, env={"PATH": search}, capture_output=True, check=False)
    assert marker.exists(), f"PATH={search!r} did not pick the planted git"
    marker.unlink()
    result = run_forked("check", "--base", "HEAD", cwd=root, env={"PATH": search})
    assert_clean_failure(result, code=2)
    assert "git is not installed or not on PATH" in result.err
    assert not marker.exists()


def test_git_itself_gets_only_absolute_path_entries(monkeypatch: pytest.MonkeyPatch) -> None:
    """What git starts on its own is looked up in the same cleaned PATH, and git is named by full path."""
    from freezer.git.gitpolicy import git_argv, git_env
    from freezer.runtime.programs import trusted_path

    assert trusted_path(f":{GIT_DIR}:.:bin::/usr/bin:") == f"{GIT_DIR}:/usr/bin"
    monkeypatch.setenv("PATH", f":{GIT_DIR}:.")
    assert git_env()["PATH"] == GIT_DIR
    assert os.path.isabs(git_argv(["status"])[0])
    assert git_argv(["status"])[0] == os.path.join(GIT_DIR, "git")
