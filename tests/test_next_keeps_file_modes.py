"""``freezer next`` refills empty drafts with each frozen file's git mode: an executable the manifest
records as 100755 (a task folder's tests/test.sh) is executable again in the drafts, so git sees no
change of it and the next cut freezes it as it was. Real files, real git, the CLI run in-process."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from freezer.git.gitrepo import DETERMINISTIC_ENV, run_git

from conftest import REPO, run_inprocess
from registry_helpers import commit_all, cut_suite, ok

CONFIG = """\
suites:
  tb:
    kind: folders
    drafts: drafts/tb
    fixtures: "tasks/*/"
    task_file: task.toml
    versions: versions
"""
SCRIPT = "tasks/count-words/tests/test.sh"


def test_next_refills_executables_as_executables(tmp_path: Path) -> None:
    root = tmp_path / "registry"
    root.mkdir()
    (root / "freezer.yaml").write_text(CONFIG, encoding="utf-8")
    shutil.copytree(REPO / "examples/tb/v1", root / "drafts/tb")
    assert os.stat(root / "drafts/tb" / SCRIPT).st_mode & stat.S_IXUSR
    run_git(["init", "-q", "-b", "main", "."], root, DETERMINISTIC_ENV)
    commit_all(root, "drafts")
    cut_suite(root, "tb", "v1")
    shutil.rmtree(root / "drafts/tb")
    ok(run_inprocess("next", "--suite", "tb", cwd=root))
    refilled = os.stat(root / "drafts/tb" / SCRIPT).st_mode
    assert refilled & stat.S_IXUSR, oct(refilled)
    assert refilled & stat.S_IWUSR, oct(refilled)  # a draft is the author's to edit, unlike the frozen copy
    plain = os.stat(root / "drafts/tb/tasks/count-words/task.toml").st_mode
    assert not plain & (stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH), oct(plain)
    # Only version.yaml changed (its number bumped); no script reads as changed by its mode.
    status = run_git(["status", "--porcelain", "--", "drafts/tb"], root, DETERMINISTIC_ENV)
    assert status.split("\n")[:-1] == [" M drafts/tb/version.yaml"], status
