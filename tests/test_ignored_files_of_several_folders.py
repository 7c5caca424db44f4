"""What git ignores under several drafts folders (freezer.git.ignored.IgnoredFiles): one ``git ls-files``
for the folders that share a working tree, answering for each folder exactly what asking from that
folder alone answers; a nested repository, a symbolic link or a folder outside any repository is
asked apart. Real git, real ignore files (.gitignore at several levels, info/exclude, a negation, a
file tracked despite a rule), and the real CLI counting the calls through a logging git on PATH."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from test_git_calls_read_only import calls, wrapper

from freezer.git.gitrepo import DETERMINISTIC_ENV, run_git
from freezer.git.ignored import IgnoredFiles, ignored_files

from conftest import run_inprocess


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _repository(root: Path) -> Path:
    _write(
        root,
        {
            ".gitignore": "*.bak\n__pycache__/\n!keep.bak\n",
            "drafts/a/task.yaml": "a\n",
            "drafts/a/x.bak": "x\n",
            "drafts/a/keep.bak": "kept by a negation\n",
            "drafts/a/tracked.bak": "tracked despite the rule\n",
            "drafts/a/sub/__pycache__/m.pyc": "cache\n",
            "drafts/a/inner/y.bak": "y\n",
            "drafts/b/.gitignore": "local-only/\n*.log\n",
            "drafts/b/local-only/notes": "n\n",
            "drafts/b/run.log": "log\n",
            "drafts/b/scratch.tmp": "tmp\n",
            "drafts/b/task.yaml": "b\n",
            "drafts/c d/naïve.bak": "a name with a space and a non-ASCII letter\n",
            "drafts/c d/task.yaml": "c\n",
        },
    )
    run_git(["init", "-q", "-b", "main", "."], root, DETERMINISTIC_ENV)
    (root / ".git/info/exclude").write_text("*.tmp\n", encoding="utf-8")
    run_git(["add", "-f", ".gitignore", "drafts/b/.gitignore", "drafts/a/tracked.bak"], root, DETERMINISTIC_ENV)
    run_git(["commit", "-q", "-m", "ignore rules"], root, DETERMINISTIC_ENV)
    return root


def test_one_call_answers_for_each_folder_as_that_folder_alone(tmp_path: Path) -> None:
    root = _repository(tmp_path / "repo")
    folders = [root / "drafts/a", root / "drafts/b", root / "drafts/c d", root / "drafts/a/inner"]
    known = IgnoredFiles(folders)
    for folder in folders:
        assert known.under(folder) == ignored_files(folder), folder
    assert known.under(root / "drafts/a") == frozenset({"x.bak", "sub/__pycache__/m.pyc", "inner/y.bak"})
    assert known.under(root / "drafts/a/inner") == frozenset({"y.bak"})
    assert known.under(root / "drafts/b") == frozenset({"local-only/notes", "run.log", "scratch.tmp"})
    assert known.under(root / "drafts/c d") == frozenset({"naïve.bak"})


def test_a_nested_repository_a_link_and_no_repository_are_asked_apart(tmp_path: Path) -> None:
    root = _repository(tmp_path / "repo")
    nested = root / "drafts/n"
    _write(nested, {".gitignore": "*.dat\n", "z.dat": "z\n", "w.bak": "the outer rule is not the nested one's\n"})
    run_git(["init", "-q", "-b", "main", "."], nested, DETERMINISTIC_ENV)
    _write(root, {"elsewhere/v.bak": "v\n"})
    (root / "drafts/link").symlink_to(root / "elsewhere")
    folders = [root / "drafts/a", nested, root / "drafts/link"]
    known = IgnoredFiles(folders)
    for folder in folders:
        assert known.under(folder) == ignored_files(folder), folder
    assert known.under(nested) == frozenset({"z.dat"})
    assert known.under(root / "drafts/link") == frozenset({"v.bak"})

    outside = tmp_path / "no-repository"
    _write(outside, {"p/a.bak": "a\n", "q/b.bak": "b\n"})
    assert {f: IgnoredFiles([outside / "p", outside / "q"]).under(f) for f in (outside / "p", outside / "q")} == {
        outside / "p": None,
        outside / "q": None,
    }


def test_a_submodule_that_is_not_checked_out_is_asked_apart(tmp_path: Path) -> None:
    """git lists nothing under a submodule's folder from above it while the submodule is not
    checked out (a clone without --recurse-submodules), and what it ignores from inside it."""
    sub = tmp_path / "sub"
    _write(sub, {"s": "s\n"})
    run_git(["init", "-q", "-b", "main", "."], sub, DETERMINISTIC_ENV)
    run_git(["add", "s"], sub, DETERMINISTIC_ENV)
    run_git(["commit", "-q", "-m", "s"], sub, DETERMINISTIC_ENV)
    root = tmp_path / "repo"
    _write(root, {".gitignore": "*.log\n"})
    run_git(["init", "-q", "-b", "main", "."], root, DETERMINISTIC_ENV)
    # Plain git: freezer's own policy allows no transport, which adding a submodule needs.
    for args in (
        ["-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "sm"],
        ["commit", "-q", "-m", "a submodule"],
        ["submodule", "deinit", "-q", "-f", "sm"],
    ):
        subprocess.run(["git", *args], cwd=root, env={**os.environ, **DETERMINISTIC_ENV}, check=True)
    _write(root, {"sm/d/x.log": "x\n", "sm/e/y.log": "y\n"})
    folders = [root / "sm/d", root / "sm/e"]
    known = IgnoredFiles(folders)
    for folder in folders:
        assert known.under(folder) == ignored_files(folder), folder
    assert known.under(root / "sm/d") == frozenset({"x.log"})


def test_a_missing_drafts_folder_is_reported_and_the_other_suites_still_validated(
    demo_build: Path, tmp_path: Path
) -> None:
    registry = tmp_path / "demo"
    shutil.copytree(demo_build, registry, symlinks=True)
    shutil.rmtree(registry / "drafts/api")
    known = IgnoredFiles([registry / "drafts/graph", registry / "drafts/api", registry / "drafts/tb"])
    assert known.under(registry / "drafts/graph") == ignored_files(registry / "drafts/graph")
    for command in ("validate", "check"):
        result = run_inprocess(command, cwd=registry)
        assert result.code == 1, result.text
        assert "drafts/api" in result.text and "does not exist" in result.text, result.text
        assert "Traceback" not in result.text and "is not a folder" not in result.text, result.text
    validated = run_inprocess("validate", cwd=registry)
    assert "drafts/graph: graph v2" in validated.text, validated.text


def test_check_and_validate_ask_git_once_for_every_suites_ignored_files(demo_build: Path, tmp_path: Path) -> None:
    """check, a whole validate, and validate of files in two suites (a commit's pre-commit hook)."""
    registry = tmp_path / "demo"
    shutil.copytree(demo_build, registry, symlinks=True)
    log = tmp_path / "git-calls"
    env = {"PATH": f"{wrapper(tmp_path / 'bin', log)}{os.pathsep}{os.environ['PATH']}"}
    suites = len(list((registry / "drafts").iterdir()))
    assert suites >= 3
    two_files = ("drafts/graph/version.yaml", "drafts/api/version.yaml")
    for args, folders in ((("check",), suites), (("validate",), suites), (("validate", *two_files), 2)):
        log.write_bytes(b"")
        result = run_inprocess(*args, cwd=registry, env=env)
        assert result.code == 0, result.text
        asked = [rest for sub, *rest in calls(log) if sub == "ls-files" and "--ignored" in rest]
        assert len(asked) == 1, (args, asked)
        assert sum(arg.startswith(":(literal)") for arg in asked[0]) == folders, asked
