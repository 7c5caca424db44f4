"""``freezer lock`` on a git source of version.yaml named by a branch: resolved with ``git ls-remote``
against a real bare repository (a path URL), recorded in the drafts' lock file and, at a cut, in the
manifest's ``locked_sources``; a commit to the branch between two versions moves the source in
§Delta and ``compare``; ``lock --check`` says unlocked and stale offline; validate, cut, check and
audit never read the repository (it is moved away before each of them)."""

from __future__ import annotations

import json
from pathlib import Path

from freezer.demo.registry import OWN_FORMAT_CONFIG
from freezer.git.gitrepo import DETERMINISTIC_ENV, run_git

from conftest import run_forked, run_inprocess
from nocode_helpers import write
from registry_helpers import commit_all, compare_arms, cut_suite, ok, snapshot

CONFIG = "suites:\n" + OWN_FORMAT_CONFIG.split("  swe:")[0]
LOCK = "drafts/tb/freezer.lock.json"
# freezer's git policy refuses every transport; the test's own clone and push read a local path.
LOCAL = {**DETERMINISTIC_ENV, "GIT_ALLOW_PROTOCOL": "file"}


def _data_repo(tmp_path: Path) -> tuple[Path, Path]:
    """A bare repository with one commit on main, and the clone that pushes to it."""
    work, bare = tmp_path / "data-work", tmp_path / "data.git"
    work.mkdir()
    run_git(["init", "-q", "-b", "main", "."], work, DETERMINISTIC_ENV)
    write(work / "rows.jsonl", '{"q": 1}\n')
    commit_all(work, "the data")
    run_git(["clone", "-q", "--bare", str(work), str(bare)], tmp_path, LOCAL)
    run_git(["remote", "add", "origin", str(bare)], work, DETERMINISTIC_ENV)
    return work, bare


def _push(work: Path, text: str) -> str:
    write(work / "rows.jsonl", text)
    commit_all(work, "more data")
    run_git(["push", "-q", "origin", "main"], work, LOCAL)
    return run_git(["rev-parse", "HEAD"], work, DETERMINISTIC_ENV).strip()


def _registry(tmp_path: Path, url: str, revision: str = "main") -> Path:
    root = tmp_path / "registry"
    write(root / "freezer.yaml", CONFIG)
    run_git(["init", "-q", "-b", "main", "."], root, DETERMINISTIC_ENV)
    _drafts(root, 1, url, revision)
    return root


def _drafts(root: Path, number: int, url: str, revision: str = "main") -> None:
    tb = root / "drafts" / "tb"
    write(
        tb / "version.yaml",
        f"suite: tb\nversion: {number}\ntitle: Terminal tasks\npurpose: >-\n  Tasks on a data repository.\n"
        f"sources:\n  - name: {url}\n    kind: git\n    revision: {revision}\n",
    )
    for task in ("count-lines", "sum-rows"):
        write(tb / "tasks" / task / "task.toml", "[metadata]\ndifficulty = 'easy'\n")
        write(tb / "tasks" / task / "instruction.md", f"Do {task} on the data.\n")


def _away(bare: Path) -> Path:
    """The data repository moved out of reach: whatever reads it now fails."""
    return bare.rename(bare.with_name("data-away.git"))


def test_a_branch_locked_then_moved_moves_the_source_in_delta_and_compare(tmp_path: Path) -> None:
    work, bare = _data_repo(tmp_path)
    first = run_git(["rev-parse", "HEAD"], work, DETERMINISTIC_ENV).strip()
    url = str(bare)
    root = _registry(tmp_path, url)
    commit_all(root, "tb drafts v1")
    unlocked = run_inprocess("lock", "--check", "--suite", "tb", cwd=root)
    assert unlocked.code == 1, unlocked.text
    assert f"git {url} main is named by tag and not locked (version.yaml $.sources)" in unlocked.out
    dry = ok(run_inprocess("cut", "v1", "--suite", "tb", "--dry-run", cwd=root))
    assert f"source {url} (kind git) has revision 'main', a branch or tag name" in dry.text

    locked = run_forked("lock", "--suite", "tb", cwd=root)  # the real command, in its own process
    assert locked.code == 0, locked.text
    assert f"git {url} main locked at {first} (new)" in locked.out
    assert json.loads((root / LOCK).read_bytes()) == {"lock_format": 1, "images": {}, "git": {url: {"main": first}}}
    commit_all(root, "tb drafts v1, locked")
    bare = _away(bare)
    ok(run_inprocess("lock", "--check", "--suite", "tb", cwd=root))
    ok(run_inprocess("validate", "--suite", "tb", cwd=root))
    text = cut_suite(root, "tb", "tb_v1").text
    assert "no lock pins it" not in text
    manifest = json.loads((root / "versions/tb_v1/manifest.json").read_bytes())
    assert manifest["locked_sources"] == {url: first}

    # v2: no task edited; a commit lands on the branch, and locking again moves the source.
    bare = bare.rename(bare.with_name("data.git"))
    second = _push(work, '{"q": 2}\n')
    _drafts(root, 2, url)
    relocked = ok(run_inprocess("lock", "--suite", "tb", cwd=root))
    assert f"git {url} main MOVED {first} → {second}" in relocked.out
    commit_all(root, "tb drafts v2, locked")
    _away(bare)
    cut_suite(root, "tb", "tb_v2")
    delta = json.loads((root / "versions/tb_v2/delta.json").read_bytes())
    [change] = delta["sources"]
    assert change["path"] == f"{url} revision"
    assert (change["old"], change["new"]) == (f"main@{first} (pinned by lock)", f"main@{second} (pinned by lock)")
    assert "sources" in delta["moved"]
    assert f"main@{second} (pinned by lock)" in (root / "versions/tb_v2/METHOD.md").read_text(encoding="utf-8")
    arm = compare_arms(root, "tb_v1", "tb_v2", "tb")["all"]
    assert arm["comparable"] == [] and "sources" in arm["moved"], arm
    ok(run_inprocess("audit", "--suite", "tb", cwd=root))
    ok(run_inprocess("check", "--base", "HEAD~1", cwd=root))


def test_lock_check_names_an_unlocked_and_a_stale_git_source_offline(tmp_path: Path) -> None:
    url = str(tmp_path / "nowhere.git")  # no repository there: check never reads one
    root = _registry(tmp_path, url, "v1.0")
    sha = "a" * 40
    write(root / LOCK, json.dumps({"lock_format": 1, "images": {}, "git": {url: {"main": sha}}}))
    commit_all(root, "tb drafts, the lock of another ref")
    result = run_inprocess("lock", "--check", "--suite", "tb", cwd=root)
    assert result.code == 1, result.text
    assert f"git {url} v1.0 is named by tag and not locked" in result.out
    assert f"git {url} main is locked but no draft names it any more (stale)" in result.out
    write(root / LOCK, json.dumps({"lock_format": 1, "images": {}, "git": {url: {"v1.0": sha}}}))
    checked = ok(run_inprocess("lock", "--check", "--suite", "tb", cwd=root))
    assert f"git {url} v1.0 locked at {sha}" in checked.out


def test_a_branch_the_repository_does_not_have_writes_no_lock(tmp_path: Path) -> None:
    _, bare = _data_repo(tmp_path)
    root = _registry(tmp_path, str(bare), "no-such-branch")
    commit_all(root, "tb drafts")
    before = snapshot(root / "drafts")
    result = run_inprocess("lock", "--suite", "tb", cwd=root)
    assert result.code == 1, result.text
    assert "Traceback" not in result.text
    assert f"git source {bare}: no branch or tag is named 'no-such-branch'" in result.text
    assert snapshot(root / "drafts") == before


def test_a_git_source_revision_that_reads_as_a_mistyped_sha_is_refused(tmp_path: Path) -> None:
    root = _registry(tmp_path, "https://example.invalid/data.git", "0123abc")
    commit_all(root, "tb drafts")
    result = run_inprocess("validate", "--suite", "tb", cwd=root)
    assert result.code == 1, result.text
    assert "$.sources[0].revision" in result.text


def test_lock_of_a_git_source_without_git_exits_2_saying_what_to_install(tmp_path: Path) -> None:
    """git ls-remote resolves a branch: on a PATH without git, lock stops with the usage exit and the
    install line, before anything is resolved, and the drafts keep their bytes."""
    _, bare = _data_repo(tmp_path)
    root = _registry(tmp_path, str(bare))
    commit_all(root, "tb drafts")
    empty = tmp_path / "bin"
    empty.mkdir()
    before = snapshot(root / "drafts")
    result = run_inprocess("lock", "--suite", "tb", cwd=root, env={"PATH": str(empty)})
    assert result.code == 2, result.text
    assert "Traceback" not in result.text
    assert "install git" in result.err
    assert snapshot(root / "drafts") == before
