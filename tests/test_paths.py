"""The in-registry path guard: no cut writes or deletes anything outside the registry."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, Run, assert_clean_failure, run_inprocess
from registry_helpers import snapshot


def outside_folder(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    """A folder beside the registry with subfolders a runaway delete would take."""
    outside = tmp_path / "outside"
    for name in ("keep-a", "keep-b"):
        (outside / name).mkdir(parents=True)
        (outside / name / "precious.txt").write_text(name)
    return outside, snapshot(outside)


def test_committed_staging_link_never_deletes_its_target(reg: Path, tmp_path: Path) -> None:
    outside, before = outside_folder(tmp_path)
    (reg / ".freezer").mkdir()
    (reg / ".freezer" / "staging").symlink_to(outside)
    result = run_inprocess("cut", "v1", cwd=reg)
    assert_clean_failure(result, code=1)
    assert "the staging folder passes through a symbolic link" in result.err
    assert snapshot(outside) == before
    assert sorted(p.name for p in outside.iterdir()) == ["keep-a", "keep-b"]
    assert not (reg / "versions").exists()


@pytest.mark.parametrize("link", [".freezer", ".freezer/lock"])
def test_work_folder_or_lock_as_a_link(reg: Path, tmp_path: Path, link: str) -> None:
    outside, before = outside_folder(tmp_path)
    target = outside / "lock" if link.endswith("lock") else outside
    (reg / link).parent.mkdir(exist_ok=True)
    (reg / link).symlink_to(target)
    result = run_inprocess("cut", "v1", cwd=reg)
    assert_clean_failure(result, code=1)
    assert "symbolic link" in result.err
    assert snapshot(outside) == before
    assert not (outside / "lock").exists() and not (outside / ".gitignore").exists()


def test_staging_entries_that_are_links_are_unlinked_not_followed(reg: Path, tmp_path: Path) -> None:
    outside, before = outside_folder(tmp_path)
    staging = reg / ".freezer" / "staging"
    staging.mkdir(parents=True)
    (staging / "graph_v1-dead").symlink_to(outside)
    (staging / "graph_v1-dead2").mkdir()
    (staging / "graph_v1-dead2" / "inner").symlink_to(outside / "keep-a")
    result = run_inprocess("cut", "v1", cwd=reg)
    assert result.code == 0, result.text
    assert snapshot(outside) == before
    assert list(staging.iterdir()) == []


@pytest.mark.parametrize(
    ("versions", "message"),
    [
        (".", "cannot be the registry root"),
        ("..", "points outside the registry root"),
        ("drafts/graph/frozen", "overlap"),
        ("drafts", "overlap"),
        (".git/versions", ".git/ belongs to git"),
        (".freezer", ".freezer/ belongs to freezer"),
        ("a-file", "is a file, not a folder"),
        ("linked", "passes through a symbolic link"),
    ],
)
def test_versions_folder_that_would_escape_or_collide(reg: Path, tmp_path: Path, versions: str, message: str) -> None:
    outside, before = outside_folder(tmp_path)
    (reg / "a-file").write_text("x")
    (reg / "archive").mkdir()
    (reg / "linked").symlink_to(reg / "archive")  # inside the registry, yet a link on the way
    config = reg / "freezer.yaml"
    config.write_text(config.read_text().replace("versions: versions", f"versions: {versions!r}"))
    for command in (["cut", "v1"], ["validate"], ["audit"]):
        result = run_inprocess(*command, cwd=reg)
        assert_clean_failure(result, code=1)
        assert message in result.err, result.err
        assert "freezer.yaml:" in result.err and "$.suites.graph.versions" in result.err
    assert snapshot(outside) == before
    assert not (tmp_path / ".freezer").exists()


def test_drafts_at_the_registry_root(reg: Path) -> None:
    config = reg / "freezer.yaml"
    config.write_text(config.read_text().replace("drafts: drafts/graph", "drafts: ."))
    result = run_inprocess("cut", "v1", cwd=reg)
    assert_clean_failure(result, code=1)
    assert "the drafts folder cannot be the registry root" in result.err


@pytest.mark.parametrize(("glob", "message"), [("crates/[z-a]*", "reversed"), ("[!]", "never closed"), ("", "empty")])
def test_tool_surface_globs_that_cannot_be_read(reg: Path, glob: str, message: str) -> None:
    config = reg / "freezer.yaml"
    text = config.read_text()
    config.write_text(text.replace("tool_surface:\n", f"tool_surface:\n      - {glob!r}\n", 1))
    result = run_inprocess("cut", "--dry-run", "v1", cwd=reg)
    assert_clean_failure(result, code=1)
    assert message in result.err and "$.suites.graph.tool_surface[0]" in result.err, result.err


@pytest.mark.parametrize("what", ["versions", ".freezer", ".freezer/staging"])
def test_a_file_where_a_folder_belongs(reg: Path, what: str) -> None:
    (reg / what).parent.mkdir(parents=True, exist_ok=True)
    (reg / what).write_text("not a folder")
    result = run_inprocess("cut", "v1", cwd=reg)
    assert_clean_failure(result, code=1)
    assert "not a folder" in result.err, result.err
    assert (reg / what).read_text() == "not a folder"


def test_read_only_registry_is_a_clear_message(reg: Path) -> None:
    """As root, the registry is made read-only by a bind mount in a private mount namespace."""
    if os.geteuid() == 0:
        if shutil.which("unshare") is None:
            pytest.skip("needs unshare to make a read-only mount")
        script = (
            f"mount --bind {reg} {reg} && mount -o remount,ro,bind {reg} && exec {sys.executable} -m freezer cut v1"
        )
        proc = subprocess.run(
            ["unshare", "-m", "sh", "-c", script],
            cwd=reg,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            check=False,
        )
        result = Run(proc.returncode, proc.stdout, proc.stderr)
    else:
        reg.chmod(0o555)
        try:
            result = run_inprocess("cut", "v1", cwd=reg)
        finally:
            reg.chmod(0o755)
    if "unshare failed" in result.err or "mount:" in result.err:
        pytest.skip(f"no private mount namespace here: {result.err.strip()}")
    assert_clean_failure(result, code=1)
    assert "cannot create" in result.err and ("read-only" in result.err.lower() or "permission" in result.err.lower())
    assert not (reg / "versions").exists()
