"""Issue 25, class 6: under CI, ``check``'s base comes from the event, never from HEAD itself.

Each test plays a GitHub Actions job: a bare remote the change was pushed to, a full clone of it
(actions/checkout with fetch-depth: 0), and the event's JSON at GITHUB_EVENT_PATH as the runner
writes it. On a push the upstream branch of the checkout is the pushed commit, so a base read
from it would pass any committed change.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest
import yaml
from workflow_steps import StepRun, run_job

from conftest import assert_clean_failure, run_inprocess
from registry_helpers import commit_all

ZERO = "0" * 40
CI = {"CI": "true", "GITHUB_ACTIONS": "true"}
BIN = Path(sys.executable).parent  # this freezer, as the workflow's install step leaves it on PATH


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def _cut(reg: Path, label: str) -> None:
    result = run_inprocess("cut", label, cwd=reg)
    assert result.code == 0, result.text


@pytest.fixture
def pushed(v2_frozen: Path, tmp_path: Path) -> Path:
    """The registry with v1 and v2 frozen, committed and pushed to a bare remote (origin)."""
    reg = v2_frozen
    remote = tmp_path / "remote.git"
    _git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    _git(reg, "remote", "add", "origin", str(remote))
    _git(reg, "push", "-q", "origin", "main")
    return reg


def _checkout(reg: Path, tmp_path: Path, branch: str = "main") -> Path:
    """What actions/checkout with fetch-depth: 0 gives a job: a full clone at the pushed branch."""
    clone = tmp_path / f"job-{branch}"
    _git(tmp_path, "clone", "-q", "-b", branch, str(tmp_path / "remote.git"), str(clone))
    shutil.copytree(reg / "sample-code", clone / "sample-code", symlinks=True)
    return clone


def _event(tmp_path: Path, name: str, payload: Mapping[str, object]) -> dict[str, str]:
    path = tmp_path / f"event-{name}.json"
    path.write_text(json.dumps(payload), encoding="utf-8")
    return {**CI, "GITHUB_EVENT_NAME": name, "GITHUB_EVENT_PATH": str(path)}


def _push_event(tmp_path: Path, before: str, ref: str = "refs/heads/main") -> dict[str, str]:
    return _event(tmp_path, "push", {"before": before, "ref": ref, "repository": {"default_branch": "main"}})


def _recut_v2_without_hooks(reg: Path) -> None:
    """Delete the frozen v2, cut it again from edited drafts, and commit past the hooks."""
    shutil.rmtree(reg / "versions/graph_v2")
    fixture = next((reg / "drafts/graph/fixtures").glob("*.yaml"))
    fixture.write_text(fixture.read_text(encoding="utf-8") + "# quietly re-graded\n", encoding="utf-8")
    _cut(reg, "v2")
    _git(reg, "add", "-A")
    _git(reg, "commit", "-q", "--no-verify", "-m", "re-cut v2")


def _tamper_v1(reg: Path) -> None:
    target = reg / "versions/graph_v1/METHOD.md"
    target.chmod(0o644)
    target.write_text(target.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    commit_all(reg, "touch v1's METHOD.md")


# A push: the base is `before`, the commit the branch pointed at before the push.
def test_a_recut_of_a_frozen_version_pushed_past_the_hooks_fails(pushed: Path, tmp_path: Path) -> None:
    before = _git(pushed, "rev-parse", "HEAD")
    _recut_v2_without_hooks(pushed)
    _git(pushed, "push", "-q", "origin", "main")
    job = _checkout(pushed, tmp_path)
    assert _git(job, "rev-parse", "@{upstream}") == _git(job, "rev-parse", "HEAD")  # what the old base was
    result = run_inprocess("check", cwd=job, env=_push_event(tmp_path, before))
    assert_clean_failure(result)
    assert f"(the commit before this push ({before[:8]}))" in result.out
    assert "frozen file modified: graph_v2 was frozen in" in result.out
    assert "::error file=versions/graph_v2/manifest.json,line=1::" in result.out
    as_json = json.loads(run_inprocess("check", "-f", "json", cwd=job, env=_push_event(tmp_path, before)).out)
    assert as_json["result"]["base"] == before
    assert any("graph_v2 was frozen" in p["message"] for p in as_json["result"]["problems"])


def test_a_push_of_a_tampered_frozen_file_fails_and_a_clean_push_passes(pushed: Path, tmp_path: Path) -> None:
    before = _git(pushed, "rev-parse", "HEAD")
    (pushed / "NOTES.md").write_text("a clean change\n", encoding="utf-8")
    commit_all(pushed, "notes")
    _git(pushed, "push", "-q", "origin", "main")
    clean = run_inprocess("check", cwd=_checkout(pushed, tmp_path), env=_push_event(tmp_path, before))
    assert clean.code == 0, clean.text
    assert f"against {before[:8]} (the commit before this push" in clean.out
    middle = _git(pushed, "rev-parse", "HEAD")
    _tamper_v1(pushed)
    _git(pushed, "push", "-q", "origin", "main")
    shutil.rmtree(tmp_path / "job-main")
    job = _checkout(pushed, tmp_path)
    for base in (before, middle):  # one commit pushed, or two: the base is the push's own `before`
        result = run_inprocess("check", cwd=job, env=_push_event(tmp_path, base))
        assert_clean_failure(result)
        assert "::error file=versions/graph_v1/METHOD.md,line=1::" in result.out


def test_a_push_whose_base_is_not_fetched_is_an_error(pushed: Path, tmp_path: Path) -> None:
    _tamper_v1(pushed)
    _git(pushed, "push", "-q", "origin", "main")
    job = _checkout(pushed, tmp_path)
    missing = "ab" * 20  # a force-push's old tip, on no branch the job fetched
    result = run_inprocess("check", cwd=job, env=_push_event(tmp_path, missing))
    assert_clean_failure(result, code=2)
    assert f"the base {missing[:12]} (the commit before this push) is not fetched" in result.err
    assert "force-push" in result.err and "✓" not in result.out


@pytest.mark.parametrize(
    "payload",
    [
        None,  # GITHUB_EVENT_PATH not set
        {"ref": "refs/heads/main"},  # no `before`
        {"before": "main", "ref": "refs/heads/main"},  # a ref name where an object id belongs
        "not json",
    ],
)
def test_a_push_with_no_knowable_base_is_an_error_under_ci(
    pushed: Path, tmp_path: Path, payload: dict[str, str] | str | None
) -> None:
    _tamper_v1(pushed)
    _git(pushed, "push", "-q", "origin", "main")
    job = _checkout(pushed, tmp_path)
    env = {**CI, "GITHUB_EVENT_NAME": "push"}
    if payload is not None:
        path = tmp_path / "event.json"
        path.write_text(payload if isinstance(payload, str) else json.dumps(payload), encoding="utf-8")
        env["GITHUB_EVENT_PATH"] = str(path)
    result = run_inprocess("check", cwd=job, env=env)
    assert_clean_failure(result, code=2)
    assert "this job runs on a push, but" in result.err
    assert "cannot tell what was frozen before this change" in result.err
    assert "✓" not in result.out


# A push that creates a branch: GitHub gives an all-zero `before`.
def test_a_new_branch_is_checked_from_where_it_left_the_default_branch(pushed: Path, tmp_path: Path) -> None:
    _git(pushed, "checkout", "-q", "-b", "feature")
    _tamper_v1(pushed)
    _git(pushed, "push", "-q", "origin", "feature")
    job = _checkout(pushed, tmp_path, "feature")
    result = run_inprocess("check", cwd=job, env=_push_event(tmp_path, ZERO, "refs/heads/feature"))
    assert_clean_failure(result)
    assert "merge-base of HEAD and origin/main: this push creates refs/heads/feature" in result.out
    assert "::error file=versions/graph_v1/METHOD.md,line=1::" in result.out


def test_a_new_branch_whose_default_branch_is_unknown_is_an_error(pushed: Path, tmp_path: Path) -> None:
    _git(pushed, "checkout", "-q", "-b", "feature")
    _tamper_v1(pushed)
    _git(pushed, "push", "-q", "origin", "feature")
    job = _checkout(pushed, tmp_path, "feature")
    named = _event(
        tmp_path, "push", {"before": ZERO, "ref": "refs/heads/feature", "repository": {"default_branch": "trunk"}}
    )
    result = run_inprocess("check", cwd=job, env=named)
    assert_clean_failure(result, code=2)
    assert "the base origin/trunk (the default branch feature was pushed from) is not fetched" in result.err
    _git(job, "remote", "set-head", "origin", "--delete")
    unnamed = _event(tmp_path, "push", {"before": ZERO, "ref": "refs/heads/feature"})
    result = run_inprocess("check", cwd=job, env=unnamed)
    assert_clean_failure(result, code=2)
    assert "the base origin/HEAD (the default branch feature was pushed from) is not fetched" in result.err


def test_the_first_push_of_the_default_branch_checks_every_version_as_new(pushed: Path, tmp_path: Path) -> None:
    job = _checkout(pushed, tmp_path)
    result = run_inprocess("check", cwd=job, env=_push_event(tmp_path, ZERO))
    assert result.code == 0, result.text
    assert "this push creates main, the default branch: every version is new" in result.out
    assert "new: graph_v1, graph_v2" in result.out


# A pull request: GITHUB_BASE_REF as before, or the payload's pull_request.base.sha.
def test_a_pull_request_base_comes_from_the_payload_when_the_base_ref_is_absent(pushed: Path, tmp_path: Path) -> None:
    base = _git(pushed, "rev-parse", "HEAD")
    _git(pushed, "checkout", "-q", "-b", "feature")
    _tamper_v1(pushed)
    _git(pushed, "push", "-q", "origin", "feature")
    job = _checkout(pushed, tmp_path, "feature")
    env = _event(tmp_path, "pull_request", {"pull_request": {"base": {"sha": base, "ref": "main"}}})
    result = run_inprocess("check", cwd=job, env=env)
    assert_clean_failure(result)
    assert f"(merge-base of HEAD and the pull request's base {base[:8]})" in result.out
    assert "::error file=versions/graph_v1/METHOD.md,line=1::" in result.out
    with_ref = run_inprocess("check", cwd=job, env={**env, "GITHUB_BASE_REF": "main"})
    assert_clean_failure(with_ref)
    assert "(merge-base of HEAD and origin/main)" in with_ref.out
    missing = _event(tmp_path, "pull_request", {"pull_request": {"base": {"sha": "cd" * 20}}})
    result = run_inprocess("check", cwd=job, env=missing)
    assert_clean_failure(result, code=2)
    assert f"the base {'cd' * 6} (the pull request's base commit) is not fetched" in result.err


# A merge queue: the group is checked against the base commit its payload names.
def test_a_merge_group_is_checked_against_its_base_sha(pushed: Path, tmp_path: Path) -> None:
    base = _git(pushed, "rev-parse", "HEAD")
    _git(pushed, "checkout", "-q", "-b", "gh-readonly-queue/main/pr-1")
    _tamper_v1(pushed)
    _git(pushed, "push", "-q", "origin", "gh-readonly-queue/main/pr-1")
    job = _checkout(pushed, tmp_path, "gh-readonly-queue/main/pr-1")
    env = _event(tmp_path, "merge_group", {"merge_group": {"base_sha": base, "head_sha": "ab" * 20}})
    result = run_inprocess("check", cwd=job, env=env)
    assert_clean_failure(result)
    assert f"(merge-base of HEAD and the pull request's base {base[:8]})" in result.out
    assert "::error file=versions/graph_v1/METHOD.md,line=1::" in result.out
    unfetched = _event(tmp_path, "merge_group", {"merge_group": {"base_sha": "ef" * 20}})
    result = run_inprocess("check", cwd=job, env=unfetched)
    assert_clean_failure(result, code=2)
    assert "is not fetched" in result.err


# Under CI with no event freezer knows, the upstream is accepted only when it is not HEAD itself.
def test_under_ci_an_upstream_that_is_head_itself_is_an_error(pushed: Path, tmp_path: Path) -> None:
    _tamper_v1(pushed)
    _git(pushed, "push", "-q", "origin", "main")
    job = _checkout(pushed, tmp_path)
    result = run_inprocess("check", cwd=job, env=CI)
    assert_clean_failure(result, code=2)
    assert "the base @{upstream} is HEAD itself" in result.err
    local = run_inprocess("check", cwd=job)  # a developer's run compares with the upstream, as before
    assert local.code == 0, local.text
    explicit = run_inprocess("check", "--base", "HEAD~1", cwd=job, env=CI)
    assert_clean_failure(explicit)
    assert "::error file=versions/graph_v1/METHOD.md,line=1::" in explicit.out


def test_under_ci_with_nothing_to_merge_into_the_message_reads_right(pushed: Path, tmp_path: Path) -> None:
    lone = tmp_path / "lone"
    _git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(lone))
    _git(lone, "remote", "remove", "origin")
    result = run_inprocess("check", cwd=lone, env=CI)
    assert_clean_failure(result, code=2)
    assert "the base of this change (the branch it merges into) is not fetched" in result.err
    assert "the base the branch" not in result.err


def _init_workflow(reg: Path, tmp_path: Path) -> Path:
    """The workflow `freezer init` writes (tests/test_init_workflow.py runs its install step too)."""
    made = run_inprocess("init", str(tmp_path / "new"), "--code-repo", str(reg / "sample-code"), cwd=tmp_path)
    assert made.code == 0, made.text
    return tmp_path / "new/.github/workflows/freezer.yml"


def _workflow_check(workflow: Path, where: Path, env: dict[str, str]) -> StepRun:
    """The workflow's check step, run as GitHub runs it, with this freezer on PATH."""
    (check,) = [s for s in run_job(workflow, where, env, [BIN], only={"freezer check"}) if s.code is not None]
    return check


def test_the_init_workflow_gives_check_its_base_on_push_and_on_pull_request(pushed: Path, tmp_path: Path) -> None:
    workflow = _init_workflow(pushed, tmp_path)
    spec = yaml.safe_load(workflow.read_text(encoding="utf-8"))
    # a change on push and pull request; a nightly (and a hand-started) audit of every version
    assert set(spec[True]) == {"push", "pull_request", "schedule", "workflow_dispatch"}  # YAML 1.1 reads `on` as true
    steps = spec["jobs"]["check"]["steps"]
    (checkout,) = [s for s in steps if str(s.get("uses", "")).startswith("actions/checkout")]
    assert checkout["with"]["fetch-depth"] == 0  # the commit before a push, and the base branch, are fetched
    # Nothing an event lacks: check reads the base from the event itself.
    (check,) = [s for s in steps if s.get("name") == "freezer check"]
    assert "github.event" not in check["run"] and "--base" not in check["run"]
    before = _git(pushed, "rev-parse", "HEAD")
    _recut_v2_without_hooks(pushed)
    _git(pushed, "checkout", "-q", "-b", "feature")
    _git(pushed, "push", "-q", "origin", "main", "feature")
    on_push = _workflow_check(workflow, _checkout(pushed, tmp_path), _push_event(tmp_path, before))
    assert on_push.code == 1, on_push.out + on_push.err
    assert "frozen file modified: graph_v2" in on_push.out
    # The same change as a pull request from a branch cut before the re-cut.
    _git(pushed, "checkout", "-q", "-B", "topic", before)
    _recut_v2_without_hooks(pushed)
    _git(pushed, "push", "-q", "origin", "topic")
    _git(pushed, "push", "-q", "-f", "origin", f"{before}:refs/heads/main")
    payload = {"pull_request": {"base": {"sha": before, "ref": "main"}}}
    env = {**_event(tmp_path, "pull_request", payload), "GITHUB_BASE_REF": "main"}
    on_pull = _workflow_check(workflow, _checkout(pushed, tmp_path, "topic"), env)
    assert on_pull.code == 1, on_pull.out + on_pull.err
    assert "(merge-base of HEAD and origin/main)" in on_pull.out
    assert "frozen file modified: graph_v2" in on_pull.out
