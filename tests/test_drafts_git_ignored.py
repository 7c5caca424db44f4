"""A frozen version is exactly what git publishes. A file of the drafts that git ignores (Python's
cache after ``py_compile``, a ``.DS_Store``, an editor's ``*.yaml.bak``) is left out of every
command's drafts and counted in the cut's output; litter git does not ignore is refused, one message
per file; a registry that is no git repository leaves litter out with a note. Real files, real git
(add, commit, clone), the real CLI (in-process: the interpreter's start is not the subject)."""

from __future__ import annotations

import json
import py_compile
import shutil
import subprocess
from pathlib import Path

from freezer.git.gitrepo import DETERMINISTIC_ENV, run_git

from conftest import REPO, assert_clean_failure, run_inprocess
from registry_helpers import BBH_LMEVAL_CONFIG, commit_all, snapshot

CONFIG = BBH_LMEVAL_CONFIG
LITTER = ("tasks/.DS_Store", "tasks/boolean_logic.yaml.bak", "tasks/utils.py~")


def _registry(tmp_path: Path, *, git: bool, ignore: str = "") -> Path:
    root = tmp_path / "registry"
    root.mkdir()
    (root / "freezer.yaml").write_text(CONFIG, encoding="utf-8")
    drafts = root / "drafts/bbh"
    shutil.copytree(REPO / "examples/bbh/v1", drafts)
    # What lm-eval leaves when a task uses !function utils.x, and what a Mac and an editor leave.
    py_compile.compile(str(drafts / "tasks/utils.py"), doraise=True)
    for rel in LITTER:
        (drafts / rel).write_bytes(b"\x00\x01 litter\n")
    if ignore:
        (root / ".gitignore").write_text(ignore, encoding="utf-8")
    if git:
        run_git(["init", "-q", "-b", "main", "."], root, DETERMINISTIC_ENV)
        commit_all(root, "drafts")
    return root


def _frozen_names(version: Path) -> list[str]:
    return sorted(p.relative_to(version).as_posix() for p in version.rglob("*") if p.is_file())


def test_ignored_files_are_not_frozen_and_a_clone_audits_clean(tmp_path: Path) -> None:
    root = _registry(tmp_path, git=True, ignore="__pycache__/\n.DS_Store\n*.bak\n*~\n")
    cut = run_inprocess("cut", "v1", cwd=root)
    assert cut.code == 0, cut.text
    assert "3 file(s) git ignores left out of the version" in cut.out, cut.out
    version = root / "versions/bbh_v1"
    frozen = _frozen_names(version)
    assert not [n for n in frozen if n.endswith((".pyc", ".bak", "~", ".DS_Store"))], frozen
    manifest = (version / "manifest.json").read_text(encoding="utf-8")
    assert ".DS_Store" not in manifest and ".bak" not in manifest and ".pyc" not in manifest
    commit_all(root, "freeze bbh_v1")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(root), str(clone)], check=True, capture_output=True)
    assert _frozen_names(clone / "versions/bbh_v1") == frozen  # git published every frozen file
    audited = run_inprocess("audit", cwd=clone)
    assert audited.code == 0, audited.text
    assert run_inprocess("check", "--base", "HEAD~1", cwd=clone).code == 0


def test_validate_counts_the_ignored_files_it_leaves_out(tmp_path: Path) -> None:
    root = _registry(tmp_path, git=True, ignore="__pycache__/\n.DS_Store\n*.bak\n*~\n")
    validated = run_inprocess("validate", "--format", "json", cwd=root)
    assert validated.code == 0, validated.text
    result = json.loads(validated.out)["result"]
    assert any("3 file(s) git ignores left out" in note for note in result["notes"]), result["notes"]
    assert not result["problems"]


def test_litter_git_does_not_ignore_is_refused_one_message_per_file(tmp_path: Path) -> None:
    root = _registry(tmp_path, git=True, ignore="__pycache__/\n")
    before = snapshot(root)
    cut = run_inprocess("cut", "v1", cwd=root)
    assert_clean_failure(cut, 1)
    for rel in LITTER:
        lines = [line for line in cut.text.splitlines() if f"drafts/bbh/{rel}:" in line]
        assert len(lines) == 1, (rel, cut.text)
        assert "add it to .gitignore" in lines[0] and "or delete it" in lines[0], lines[0]
    assert snapshot(root) == before  # a refused cut writes nothing
    assert run_inprocess("validate", cwd=root).code == 1


def test_an_ignored_version_yaml_is_refused(tmp_path: Path) -> None:
    root = _registry(tmp_path, git=True, ignore="__pycache__/\n.DS_Store\n*.bak\n*~\nversion.yaml\n")
    validated = run_inprocess("validate", cwd=root)
    assert_clean_failure(validated, 1)
    assert "drafts/bbh/version.yaml" in validated.text and "git ignores it" in validated.text, validated.text


def test_outside_git_litter_is_left_out_with_a_note(tmp_path: Path) -> None:
    root = _registry(tmp_path, git=False)
    cut = run_inprocess("cut", "v1", cwd=root)
    assert cut.code == 0, cut.text
    assert "no git repository" in cut.out and "tasks/.DS_Store" in cut.out, cut.out
    frozen = _frozen_names(root / "versions/bbh_v1")
    assert not [n for n in frozen if n.endswith((".pyc", ".bak", "~", ".DS_Store"))], frozen
    assert run_inprocess("audit", cwd=root).code == 0
