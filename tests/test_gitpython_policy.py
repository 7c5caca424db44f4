"""Why freezer's git calls do not go through GitPython (a test dependency, not a runtime one).

The git policy (:mod:`freezer.git.gitpolicy`) needs every call to run one git,
named by absolute path, in an environment freezer builds whole. GitPython
cannot give that, and each test below shows one reason on the installed
release, so that a release which lifts it turns the test red and the choice
can be made again (README, "git"):

* ``Git.execute`` starts from a copy of ``os.environ`` and can only add or
  override variables, never remove one: a pre-commit hook's ``GIT_DIR`` or
  ``GIT_INDEX_FILE`` reaches every call, its persistent ``cat-file`` included;
* importing ``git`` runs ``git version`` (twice) before freezer can say which
  git to run: found through ``PATH``, relative entries included, so a ``git``
  committed in the registry runs, with the caller's environment and none of the
  policy's ``-c`` options; and it costs more than half of freezer's start-up.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from freezer.git.gitpolicy import POLICY_ENV, git_executable, run_git

from conftest import REPO, run_probe

git = pytest.importorskip("git")


def _repo(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(path)], check=True, capture_output=True)
    return path


def test_gitpython_passes_a_hook_environment_on_to_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real, decoy = _repo(tmp_path / "real"), _repo(tmp_path / "decoy")
    monkeypatch.setenv("GIT_DIR", str(decoy / ".git"))
    argv = [git_executable(), "rev-parse", "--absolute-git-dir"]
    seen = git.cmd.Git(real).execute(argv, env=dict(POLICY_ENV))
    assert seen == str(decoy / ".git")  # GitPython: the decoy's, whatever env= says
    assert run_git(["rev-parse", "--absolute-git-dir"], real).strip() == str(real / ".git")  # freezer: its own


def test_gitpython_persistent_cat_file_reads_the_hook_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real, decoy = _repo(tmp_path / "real"), _repo(tmp_path / "decoy")
    blob = subprocess.run(
        ["git", "hash-object", "-w", "--stdin"], cwd=decoy, input=b"decoy\n", capture_output=True, check=True
    ).stdout.strip()
    monkeypatch.setenv("GIT_DIR", str(decoy / ".git"))
    command = git.cmd.Git(real)
    command.update_environment(**POLICY_ENV)
    assert command.get_object_data(blob)[3] == b"decoy\n"  # an object the real repository does not hold


def test_importing_gitpython_runs_the_git_of_the_current_folder(tmp_path: Path) -> None:
    marker = tmp_path / "MARKER"
    planted = tmp_path / "git"
    planted.write_text(f"#!/bin/sh\necho \"$@\" >> '{marker}'\nexit 1\n", encoding="utf-8")
    planted.chmod(0o755)
    real = os.path.dirname(git_executable())
    env = {"PATH": f":{real}", "PYTHONPATH": str(REPO), "GIT_PYTHON_REFRESH": "quiet"}
    subprocess.run([sys.executable, "-c", "import git"], cwd=tmp_path, env=env, capture_output=True, timeout=60)
    assert marker.read_text(encoding="utf-8").split() == ["version"]


def test_freezer_never_imports_gitpython() -> None:
    for path in (REPO / "freezer").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            assert not [n for n in names if n == "git" or n.startswith("git.")], f"{path}:{node.lineno}"
    code = (
        "import sys, freezer.git.gitrepo, freezer.git.registrygit\n"
        "from freezer.cli.app import COMMAND_MODULES, root_command\n"
        "root = root_command()\n"
        "commands = [root.get_command(None, name) for name in COMMAND_MODULES]  # every command module\n"
        "print('git' in sys.modules)"
    )
    assert run_probe(code, REPO).strip() == "False"
