"""The git policy: a registry change can never make freezer run a program through git.

Each vector is first shown to be live under plain git (the marker file appears),
so the test would fail if the setup were wrong; then freezer runs over the same
repository and the marker must never appear.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hostile import corpus

from freezer.git.gitrepo import DETERMINISTIC_ENV, CodeRepo

from conftest import assert_clean_failure, run_forked, run_inprocess
from registry_helpers import commit_all, make_registry, sample_repo


def plain_git(*args: str, cwd: Path, check: bool = False) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(DETERMINISTIC_ENV, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=check, timeout=60)


def marker_program(folder: Path, name: str) -> tuple[Path, Path]:
    """An executable that leaves a marker file and fails."""
    marker = folder / f"MARKER-{name}"
    script = folder / f"evil-{name}.sh"
    script.write_text(f"#!/bin/sh\ntouch '{marker}'\nexit 1\n", encoding="utf-8")
    script.chmod(0o755)
    return script, marker


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample repository, serving partial clones."""
    path = tmp_path_factory.mktemp("server") / "sample-code"
    shutil.copytree(sample_repo(tmp_path_factory.mktemp("policy-cache")), path, symlinks=True)
    plain_git("config", "uploadpack.allowFilter", "true", cwd=path, check=True)
    return path


def partial_clone(server: Path, target: Path) -> Path:
    plain_git(
        "clone",
        "-q",
        "--filter=blob:none",
        "--no-checkout",
        f"file://{server}",
        str(target),
        cwd=target.parent,
        check=True,
    )
    return target


def a_missing_blob(repo: Path) -> str:
    listing = plain_git("ls-tree", "-r", "HEAD", cwd=repo, check=True).stdout.split("\n")[0]
    return listing.split()[2]


# (name, config keys) that each make a lazy fetch run the marker program.
FETCH_VECTORS: list[tuple[str, list[tuple[str, str]]]] = [
    ("uploadpack", [("remote.origin.uploadpack", "{script}")]),
    ("ext-url", [("remote.origin.url", "ext::{script}"), ("protocol.ext.allow", "always")]),
    ("ssh-command", [("remote.origin.url", "ssh://example.invalid/x"), ("core.sshCommand", "{script}")]),
    ("git-proxy", [("remote.origin.url", "git://example.invalid/x"), ("core.gitProxy", "{script}")]),
    ("include-path", [("include.path", "{include}")]),
]


def hostile_partial_clone(server: Path, folder: Path, name: str, keys: list[tuple[str, str]]) -> tuple[Path, Path]:
    repo = partial_clone(server, folder / "code")
    script, marker = marker_program(folder, name)
    include = folder / "included.config"
    include.write_text(f'[remote "origin"]\n\tuploadpack = {script}\n', encoding="utf-8")
    for key, value in keys:
        plain_git("config", key, value.format(script=script, include=include), cwd=repo, check=True)
    return repo, marker


@pytest.mark.parametrize(("name", "keys"), FETCH_VECTORS, ids=[name for name, _ in FETCH_VECTORS])
def test_lazy_fetch_never_runs_a_program(server: Path, tmp_path: Path, name: str, keys: list[tuple[str, str]]) -> None:
    repo, marker = hostile_partial_clone(server, tmp_path, name, keys)
    config_before = (repo / ".git/config").read_bytes()
    # The vector is live: plain git runs the program when it meets a missing object.
    plain_git("cat-file", "-p", a_missing_blob(repo), cwd=repo)
    assert marker.exists(), f"the {name} vector did not fire under plain git; the test proves nothing"
    marker.unlink()
    (repo / ".git/config").write_bytes(config_before)

    root = tmp_path / "registry"
    root.mkdir()
    corpus.base_registry(root, repo)
    for command in (["cut", "--dry-run", "v1"], ["cut", "v1"]):
        result = run_inprocess(*command, cwd=root)
        assert_clean_failure(result)
        assert "freezer never fetches" in result.err, result.err
        assert not marker.exists(), f"{command}: git ran {name}'s program"
    assert (repo / ".git/config").read_bytes() == config_before, "a lazy fetch rewrote the repository's config"
    assert not (root / "versions").exists()


def test_audit_of_a_frozen_version_over_a_hostile_clone(server: Path, tmp_path: Path) -> None:
    root = tmp_path / "registry"
    root.mkdir()
    corpus.base_registry(root, server)
    assert run_inprocess("cut", "v1", cwd=root).code == 0
    repo, marker = hostile_partial_clone(server, tmp_path, "audit", [("remote.origin.uploadpack", "{script}")])
    config = root / "freezer.yaml"
    config.write_text(config.read_text().replace(str(server), str(repo)))
    result = run_inprocess("audit", cwd=root)
    assert_clean_failure(result)
    assert "freezer never fetches" in result.text
    assert not marker.exists()


def test_git_directory_laid_out_as_files_in_the_registry(server: Path, tmp_path: Path) -> None:
    """A pull request adds HEAD, config, objects/ and a ref to a missing commit, and points code_repo there."""
    root = tmp_path / "registry"
    root.mkdir()
    corpus.base_registry(root, server)
    script, marker = marker_program(tmp_path, "gitdir")
    gitdir = root / "vendor" / "code"
    (gitdir / "objects" / "info").mkdir(parents=True)
    (gitdir / "objects" / "pack").mkdir()
    (gitdir / "refs" / "heads").mkdir(parents=True)
    (gitdir / "HEAD").write_text("ref: refs/heads/main\n")
    (gitdir / "refs" / "heads" / "main").write_text("7df885db" + "0" * 32 + "\n")
    (gitdir / "config").write_text(
        "[core]\n\trepositoryformatversion = 1\n\tbare = false\n\tworktree = .\n"
        "[extensions]\n\tpartialClone = origin\n"
        f'[remote "origin"]\n\turl = file://{server}\n\tpromisor = true\n\tuploadpack = {script}\n'
    )
    # Live under plain git: discovering it as a repository and walking the history fetches.
    plain_git("rev-list", "--all", cwd=gitdir)
    assert marker.exists(), "the laid-out git directory did not fire under plain git"
    marker.unlink()
    config = root / "freezer.yaml"
    config.write_text(config.read_text().replace(str(server), "vendor/code"))
    for command in (["cut", "--dry-run", "v1"], ["validate"], ["audit"]):
        result = run_inprocess(*command, cwd=root)
        assert "Traceback" not in result.text and "internal error" not in result.text, result.text
        assert not marker.exists(), f"{command} ran the program"
    refused = run_inprocess("cut", "--dry-run", "v1", cwd=root)
    assert_clean_failure(refused)
    assert "git directory laid out as plain files" in refused.err


def signed_commit(repo: Path) -> str:
    """A commit carrying a (fake) signature on top of HEAD, made the current branch tip."""
    head = plain_git("cat-file", "commit", "HEAD", cwd=repo, check=True).stdout
    header = head.partition("\n\n")
    lines = [line for line in header[0].split("\n") if not line.startswith("parent ")]
    parent = plain_git("rev-parse", "HEAD", cwd=repo, check=True).stdout.strip()
    signature = "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEz\n -----END PGP SIGNATURE-----"
    body = "\n".join([lines[0], f"parent {parent}", *lines[1:], signature]) + "\n\nsigned\n"
    sha = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
        cwd=repo,
        input=body,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    plain_git("update-ref", "HEAD", sha, cwd=repo, check=True)
    return sha


def test_read_paths_run_no_configured_program(server: Path, tmp_path: Path) -> None:
    """Signature checks, pagers, external diffs and fsmonitor hooks, set in the repository's config."""
    repo = tmp_path / "code"
    shutil.copytree(server, repo, symlinks=True)
    sha = signed_commit(repo)
    script, marker = marker_program(tmp_path, "read")
    for key, value in [
        ("log.showSignature", "true"),
        ("gpg.program", str(script)),
        ("core.pager", str(script)),
        ("pager.log", str(script)),
        ("diff.external", str(script)),
        ("core.fsmonitor", str(script)),
        ("core.hooksPath", str(tmp_path)),
    ]:
        plain_git("config", key, value, cwd=repo, check=True)
    plain_git("log", "-1", "--format=%s", sha, cwd=repo)
    assert marker.exists(), "log.showSignature did not run gpg.program under plain git"
    marker.unlink()
    plain_git("status", cwd=repo)
    assert marker.exists(), "core.fsmonitor did not run under plain git"
    marker.unlink()

    with CodeRepo(repo) as code:
        assert code.subject(sha) == "signed"
        assert code.commits_touching((), (sha,), ("**",))
        assert code.is_ancestor(code.resolve("HEAD~1"), sha)
        assert code.tree(sha)
    assert not marker.exists()


def test_the_registry_repository_runs_no_fsmonitor(tmp_path: Path, cache_root: Path) -> None:
    reg = make_registry(tmp_path, cache_root)
    assert run_inprocess("cut", "v1", cwd=reg).code == 0
    commit_all(reg, "v1")
    script, marker = marker_program(tmp_path, "fsmonitor")
    plain_git("config", "core.fsmonitor", str(script), cwd=reg, check=True)
    plain_git("status", cwd=reg)
    assert marker.exists()
    marker.unlink()
    result = run_inprocess("check", "--base", "HEAD", cwd=reg)
    assert result.code == 0, result.text
    assert not marker.exists()


def test_a_hook_environment_cannot_redirect_git(tmp_path: Path, cache_root: Path) -> None:
    """pre-commit runs hooks with GIT_DIR and GIT_INDEX_FILE set; the code repository is still read."""
    reg = make_registry(tmp_path, cache_root)
    decoy = tmp_path / "decoy"
    decoy.mkdir()
    plain_git("init", "-q", str(decoy), cwd=tmp_path, check=True)
    env = {"GIT_DIR": str(decoy / ".git"), "GIT_INDEX_FILE": str(decoy / "index"), "GIT_WORK_TREE": str(decoy)}
    result = run_forked("cut", "--dry-run", "v1", cwd=reg, env=env)
    assert result.code == 0, result.text


def test_no_git_on_path(tmp_path: Path, cache_root: Path) -> None:
    reg = make_registry(tmp_path, cache_root)
    empty = tmp_path / "bin"
    empty.mkdir()
    result = run_forked("cut", "--dry-run", "v1", cwd=reg, env={"PATH": str(empty)})
    assert_clean_failure(result, code=2)
    assert "git is not installed or not on PATH" in result.err


def test_shallow_clone_names_what_to_fetch(server: Path, tmp_path: Path) -> None:
    shallow = tmp_path / "shallow"
    plain_git("clone", "-q", "--depth=1", f"file://{server}", str(shallow), cwd=tmp_path, check=True)
    root = tmp_path / "registry"
    root.mkdir()
    corpus.base_registry(root, shallow)
    result = run_inprocess("cut", "--dry-run", "v1", cwd=root)
    assert_clean_failure(result)
    assert "git fetch --unshallow" in result.err
