"""freezer check reads the registry's place in its repository from the base commit, never from a path
resolved on disk: a change that links, moves or renames the registry's folder (or its freezer.yaml, or
the registry at the repository's top) cannot make check look at another place and call every frozen
version new. A registry reached through a link outside the repository (a checkout layout) still works.

Each case runs the real CLI (in-process: the interpreter's start is not the subject) or the Action's
run.sh on a real git repository, with the registry in ``bench/``, the change committed on a branch,
and ``main`` as the base.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from action_helpers import checkout, git, pull_request_event, run_action
from conftest import Run, assert_clean_failure, run_inprocess

# The demo freezes these in bench/versions; the hostile changes delete tb_v1 and swe_v1.
_DROPPED = ("tb_v1", "swe_v1")


def _writable(folder: Path) -> None:
    for path in [folder, *folder.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)


def _drop_frozen(registry: Path, versions: str = "versions") -> None:
    """What the hostile change does once the guard looks elsewhere: two frozen versions are gone."""
    for name in _DROPPED:
        _writable(registry / versions / name)
        shutil.rmtree(registry / versions / name)


def _commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", message)


@pytest.fixture
def repo(demo_build: Path, tmp_path: Path) -> Path:
    """A repository whose registry (the demo's, with its frozen versions) lives in bench/, committed
    on main; the test's change goes on the branch ``change``."""
    top = tmp_path / "repo"
    top.mkdir()
    git(top, "init", "-q", "-b", "main")
    shutil.copytree(demo_build, top / "bench", symlinks=True, ignore=shutil.ignore_patterns(".git"))
    _commit(top, "the registry in bench/")
    git(top, "checkout", "-q", "-b", "change")
    return top


def _link_bench_to_decoy(top: Path) -> None:
    """The issue's change: bench/ moves to decoy/, loses frozen versions there, and bench becomes a link."""
    git(top, "mv", "bench", "decoy")
    _drop_frozen(top / "decoy")
    (top / "bench").symlink_to("decoy")
    _commit(top, "bench is a link to decoy")


def _check(*args: str, cwd: Path, env: dict[str, str] | None = None) -> Run:
    return run_inprocess(*args, "--base", "main", "--no-code", cwd=cwd, env=env)


def _assert_refused(result: Run, *phrases: str) -> None:
    assert_clean_failure(result)
    assert "new: " not in result.out, result.out  # no frozen version is taken for a new one
    for phrase in phrases:
        assert phrase in result.text, result.text


# --- the working tree leads check elsewhere: refused ------------------------------------------------


def test_check_run_with_directory_through_a_committed_link_is_refused(repo: Path) -> None:
    _link_bench_to_decoy(repo)
    result = _check("-C", "bench", "check", cwd=repo)
    _assert_refused(result, "bench/freezer.yaml", "a link", "decoy")


def test_check_run_with_registry_option_through_a_committed_link_is_refused(repo: Path) -> None:
    _link_bench_to_decoy(repo)
    result = _check("check", "--registry", "bench", cwd=repo)
    _assert_refused(result, "bench/freezer.yaml", "a link", "decoy")


def test_check_run_from_inside_a_linked_folder_is_refused(repo: Path) -> None:
    """`cd bench && freezer check`: the shell's PWD names the link, the process runs in decoy/."""
    _link_bench_to_decoy(repo)
    shell_pwd = {"PWD": str(repo / "bench")}
    assert _check("check", cwd=repo / "bench", env=shell_pwd).code == 1
    # The same started by a program that keeps no PWD: the base's bench/ is still missed, and said so.
    result = _check("check", cwd=repo / "bench", env={"PWD": "/"})
    _assert_refused(result, "bench/freezer.yaml", "a link")


def test_check_of_a_registry_moved_without_a_link_is_refused(repo: Path) -> None:
    git(repo, "mv", "bench", "decoy")
    _drop_frozen(repo / "decoy")
    _commit(repo, "bench moves to decoy")
    result = _check("-C", "decoy", "check", cwd=repo)
    _assert_refused(result, "bench/freezer.yaml", "never moves")


def test_check_through_a_directory_with_dot_dot_is_refused(repo: Path) -> None:
    _link_bench_to_decoy(repo)
    (repo / "other").mkdir()
    (repo / "other/.keep").write_text("", encoding="utf-8")
    _commit(repo, "another folder")
    result = _check("-C", "other/../bench", "check", cwd=repo)
    _assert_refused(result, "bench/freezer.yaml", "a link")


def test_check_when_the_registry_config_alone_is_a_link_is_refused(repo: Path) -> None:
    """bench/ stays a real folder with its frozen versions; its freezer.yaml leads to a copy without them."""
    shutil.copytree(repo / "bench", repo / "decoy", symlinks=True)
    _drop_frozen(repo / "decoy")
    (repo / "bench/freezer.yaml").unlink()
    (repo / "bench/freezer.yaml").symlink_to("../decoy/freezer.yaml")
    _commit(repo, "bench's config is a link to decoy's")
    result = _check("-C", "bench", "check", cwd=repo)
    _assert_refused(result, "freezer.yaml", "link")


def test_check_when_the_versions_folder_alone_is_a_link_is_refused(repo: Path) -> None:
    """bench/ stays; its versions/ becomes a link to a folder beside it that lacks two versions."""
    git(repo, "mv", "bench/versions", "bench/vault")
    _drop_frozen(repo / "bench", "vault")
    (repo / "bench/versions").symlink_to("vault")
    _commit(repo, "versions is a link to vault")
    result = _check("-C", "bench", "check", cwd=repo)
    _assert_refused(result, "freezer.yaml", "the versions folder passes through a symbolic link (versions)")


def test_check_of_a_registry_at_the_repository_top_moved_into_a_folder_is_refused(
    demo_build: Path, tmp_path: Path
) -> None:
    top = tmp_path / "top"
    shutil.copytree(demo_build, top, symlinks=True)  # the demo's own repository: the registry is its top
    git(top, "checkout", "-q", "-b", "change")
    (top / "decoy").mkdir()
    for name in ("freezer.yaml", "drafts", "versions"):
        git(top, "mv", name, f"decoy/{name}")
    shutil.move(str(top / "sample-code"), str(top / "decoy/sample-code"))
    (top / ".gitignore").write_text("sample-code/\n", encoding="utf-8")
    _drop_frozen(top / "decoy")
    _commit(top, "the registry moves from the top into decoy/")
    result = _check("-C", "decoy", "check", cwd=top)
    _assert_refused(result, "freezer.yaml is gone", "the repository's top folder", "never moves")


def test_check_with_a_swapped_registry_named_through_a_link_is_refused(repo: Path) -> None:
    """decoy/ was a registry of its own in the base: bench now links to it, so the place check is
    given is a registry of the base, just not the one named."""
    shutil.copytree(repo / "bench", repo / "decoy", symlinks=True)
    _drop_frozen(repo / "decoy")
    _commit(repo, "decoy, a second registry")
    git(repo, "branch", "-f", "main", "HEAD")  # the base holds both registries
    _writable(repo / "bench")
    shutil.rmtree(repo / "bench")
    (repo / "bench").symlink_to("decoy")
    _commit(repo, "bench is a link to decoy")
    result = _check("-C", "bench", "check", cwd=repo)
    _assert_refused(result, "bench", "a link", "decoy")


# --- the registry is where the base kept it: check works as before ---------------------------------


def test_check_through_a_link_outside_the_repository_still_guards(repo: Path, tmp_path: Path) -> None:
    """A checkout layout: /tmp/x -> repo/bench. Unchanged, it passes; an edit of a frozen file fails."""
    outside = tmp_path / "layout"
    outside.symlink_to(repo / "bench")
    clean = _check("-C", str(outside), "check", cwd=repo)
    assert clean.code == 0, clean.text
    assert "✓ frozen versions untouched" in clean.out
    assert "new: " not in clean.out
    target = repo / "bench/versions/tb_v1/version.yaml"
    target.chmod(0o644)
    target.write_text(target.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    _commit(repo, "edit a frozen file")
    edited = _check("check", "--registry", str(outside), cwd=tmp_path)
    assert_clean_failure(edited)
    assert "frozen file modified: tb_v1" in edited.out


def test_check_of_a_repository_under_a_linked_parent_folder_still_guards(repo: Path, tmp_path: Path) -> None:
    parent = tmp_path / "linked-parent"
    parent.symlink_to(repo.parent)
    named = parent / repo.name / "bench"
    clean = _check("check", cwd=named, env={"PWD": str(named)})
    assert clean.code == 0, clean.text
    _drop_frozen(repo / "bench")
    _commit(repo, "drop two frozen versions")
    dropped = _check("-C", str(named), "check", cwd=tmp_path)
    assert_clean_failure(dropped)
    assert "frozen version deleted: tb_v1" in dropped.out


def test_a_new_registry_beside_the_base_one_is_checked_as_new(repo: Path) -> None:
    """A second registry added by the change: nothing of it was frozen, and the base's bench/ stays."""
    shutil.copytree(repo / "bench", repo / "second", symlinks=True)
    _commit(repo, "a second registry")
    result = _check("-C", "second", "check", cwd=repo)
    assert result.code == 0, result.text
    assert "new: graph_v1" in result.out


# --- the Action -------------------------------------------------------------------------------------


def test_the_action_with_registry_bench_refuses_a_committed_link(repo: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "origin", "main")
    base = git(repo, "rev-parse", "main")
    _link_bench_to_decoy(repo)
    git(repo, "push", "-q", "origin", "change")
    job = checkout(remote, tmp_path / "job", "change")
    assert (job / "bench").is_symlink()

    result = run_action(job, pull_request_event(tmp_path, base, "change"), inputs={"registry": "bench"})

    assert_clean_failure(result)
    assert any(
        line.startswith("::error file=bench/freezer.yaml") and "a link" in line for line in result.out.splitlines()
    ), result.out
    assert "new: " not in result.out
    assert os.path.islink(job / "bench")
