"""A version's SHAs name commits by object id only: a tag or branch named like a short SHA never
redirects one (issue 25, class 5)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from freezer.domain.errors import GitError
from freezer.git.gitrepo import CodeRepo, git_executable, git_status, run_git

from conftest import run_inprocess


def _repo(tmp_path: Path) -> tuple[Path, str, str]:
    repo = tmp_path / "code"
    repo.mkdir()
    run_git(["init", "-q", "-b", "main"], repo)
    shas = []
    for n in range(2):
        (repo / "f.txt").write_text(f"{n}\n")
        run_git(["add", "f.txt"], repo)
        run_git(["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", f"c{n}"], repo)
        shas.append(run_git(["rev-parse", "HEAD"], repo).strip())
    return repo, shas[0], shas[1]


@pytest.mark.parametrize("kind", ["tag", "lightweight tag", "branch", "remote-tracking branch"])
def test_a_ref_named_like_the_short_sha_that_points_elsewhere_is_refused(tmp_path: Path, kind: str) -> None:
    repo, first, second = _repo(tmp_path)
    short = first[:8]
    if kind == "tag":
        run_git(["-c", "user.name=t", "-c", "user.email=t@t", "tag", "-a", "-m", "x", short, second], repo)
    elif kind == "lightweight tag":
        run_git(["tag", short, second], repo)
    elif kind == "branch":
        run_git(["branch", short, second], repo)
    else:
        run_git(["update-ref", f"refs/remotes/{short}", second], repo)
    # git itself takes the ref: this is the silent redirect freezer must not follow.
    assert run_git(["rev-parse", f"{short}^{{commit}}"], repo).strip() == second
    with CodeRepo(repo) as code, pytest.raises(GitError) as refused:
        code.resolve_object(short, "pinned SHA")
    assert "ambiguous" in refused.value.message and second[:12] in refused.value.message
    assert first in (refused.value.hint or "")


def test_a_ref_that_agrees_and_the_full_sha_are_accepted(tmp_path: Path) -> None:
    repo, first, second = _repo(tmp_path)
    run_git(["tag", first[:8], first], repo)  # names the same commit: nothing is ambiguous
    run_git(["tag", second, first], repo)  # a tag named like a full SHA: the object id wins
    with CodeRepo(repo) as code:
        assert code.resolve_object(first[:8]) == first
        assert code.resolve_object(second) == second
        assert code.resolve_object(first[:10].upper()) == first


@pytest.mark.parametrize("value", ["main", "HEAD", "HEAD~1", "v1.0", "abc"])
def test_only_hex_names_a_recorded_commit(tmp_path: Path, value: str) -> None:
    repo, _, _ = _repo(tmp_path)
    run_git(["tag", "v1.0"], repo)
    with CodeRepo(repo) as code, pytest.raises(GitError) as refused:
        code.resolve_object(value, "pinned SHA")
    assert "is not a commit SHA" in refused.value.message


def test_an_unknown_prefix_is_reported_as_not_found(tmp_path: Path) -> None:
    repo, _, _ = _repo(tmp_path)
    with CodeRepo(repo) as code, pytest.raises(GitError) as refused:
        code.resolve_object("0000000", "pinned SHA")
    assert "does not name a commit" in refused.value.message


def test_cut_refuses_a_pin_that_a_tag_redirects(demo_build: Path, tmp_path: Path) -> None:
    """End to end: the demo's drafts pin 7df885db; a tag of that name on another commit stops the cut."""
    root = tmp_path / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    code = root / "sample-code"
    pinned = run_git(["rev-parse", "7df885db^{commit}"], code).strip()
    other = run_git(["rev-list", "--max-parents=0", "HEAD"], code).split()[0]
    assert other != pinned
    run_git(["tag", "7df885db", other], code)
    drafts = root / "drafts" / "graph" / "version.yaml"
    drafts.write_text(drafts.read_text(encoding="utf-8").replace("version: 2\n", "version: 3\n", 1), encoding="utf-8")
    ran = run_inprocess("cut", "v3", "--suite", "graph", "--dry-run", "--format", "json", cwd=root)
    assert ran.code == 1, ran.out
    text = json.dumps(json.loads(ran.out))
    assert "ambiguous" in text and "7df885db" in text


def _commits_sharing_a_prefix(repo: Path, digits: int = 7) -> tuple[str, str]:
    """Write two real commit objects whose ids share their first ``digits`` hex digits: the
    commit text is hashed here (git's own object format) until two collide, a birthday search of
    about 16**(digits/2) tries, then both are written with git hash-object."""
    tree = run_git(["write-tree"], repo).strip()
    seen: dict[str, bytes] = {}
    n = 0
    while True:
        body = f"tree {tree}\nauthor t <t@t> 0 +0000\ncommitter t <t@t> 0 +0000\n\nnonce {n}\n".encode()
        oid = hashlib.sha1(b"commit %d\0" % len(body) + body).hexdigest()
        other = seen.setdefault(oid[:digits], body)
        if other is not body:
            shas = []
            for text in (other, body):
                proc = subprocess.run(
                    ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
                    cwd=repo,
                    input=text,
                    capture_output=True,
                    check=True,
                )
                shas.append(proc.stdout.decode().strip())
            return shas[0], shas[1]
        n += 1


def test_a_prefix_that_begins_two_real_commits_is_refused(tmp_path: Path) -> None:
    repo, _, _ = _repo(tmp_path)
    first, second = _commits_sharing_a_prefix(repo)
    assert first != second and first[:7] == second[:7]
    with CodeRepo(repo) as code:
        with pytest.raises(GitError) as refused:
            code.resolve_object(first[:7], "pinned SHA")
        assert "is ambiguous" in refused.value.message and "it begins 2 commits" in refused.value.message
        assert refused.value.hint == "give more hex digits of the SHA"
        # One digit more than they share tells them apart.
        shared = next(i for i, (a, b) in enumerate(zip(first, second, strict=True)) if a != b)
        assert code.resolve_object(first[: shared + 1], "pinned SHA") == first
        assert code.resolve_object(second, "pinned SHA") == second


def _commits(tmp_path: Path, count: int) -> tuple[Path, list[str]]:
    repo, first, second = _repo(tmp_path)
    shas = [first, second]
    for n in range(count - 2):
        run_git(["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", f"e{n}"], repo)
        shas.append(run_git(["rev-parse", "HEAD"], repo).strip())
    return repo, shas


def test_resolving_short_shas_spawns_at_most_one_git_per_sha(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cut resolves every tool-surface, pinned and build SHA: one process each (git's own prefix
    search), the peeling and the ref-name checks going through the repository's cat-file process."""
    repo, shas = _commits(tmp_path, 8)
    run_git(["tag", shas[3][:8], shas[3]], repo)  # a ref of that name to peel, agreeing
    log = tmp_path / "git-calls.log"
    wrapper = tmp_path / "bin" / "git"
    wrapper.parent.mkdir()
    wrapper.write_text(f"#!/bin/sh\necho \"$*\" >> '{log}'\nexec '{git_executable()}' \"$@\"\n", encoding="utf-8")
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", os.pathsep.join([str(wrapper.parent), os.environ.get("PATH", "")]))
    assert git_executable() == str(wrapper)  # freezer looks git up per PATH: the wrapper is the git it runs
    with CodeRepo(repo) as code:
        log.unlink()  # what opening the repository costs is not the question
        assert [code.resolve_object(sha[:8]) for sha in shas] == shas
    calls = log.read_text(encoding="utf-8").splitlines()
    shown = "\n".join(call.rpartition("maintenance.auto=false ")[2] for call in calls)  # past the policy
    assert len(calls) <= len(shas) + 1, shown  # the +1: the cat-file process


@pytest.mark.parametrize("target", ["tree", "blob", "annotated tag of a tree", "dangling symref"])
def test_a_ref_named_like_the_short_sha_that_names_no_commit_is_no_ambiguity(tmp_path: Path, target: str) -> None:
    """git's ``NAME^{commit}`` fails for a ref that peels to a tree or blob, or points nowhere: such a
    ref redirects no commit lookup, so the short SHA still resolves (as git rev-parse would peel it)."""
    repo, first, _ = _repo(tmp_path)
    short = first[:8]
    if target == "tree":
        run_git(["tag", short, f"{first}^{{tree}}"], repo)
    elif target == "blob":
        run_git(["tag", short, f"{first}:f.txt"], repo)
    elif target == "annotated tag of a tree":
        run_git(["-c", "user.name=t", "-c", "user.email=t@t", "tag", "-a", "-m", "x", short, f"{first}^{{tree}}"], repo)
    else:
        run_git(["symbolic-ref", f"refs/remotes/{short}/HEAD", f"refs/remotes/{short}/gone"], repo)
    code, _, _ = git_status(["rev-parse", "--verify", "--quiet", f"refs/tags/{short}^{{commit}}"], repo)
    assert code != 0  # git peels none of them to a commit
    with CodeRepo(repo) as opened:
        assert opened.resolve_object(short) == first
