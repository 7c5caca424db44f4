"""freezer's GitHub Action on the events that name no change (schedule, workflow_dispatch), with the
`base` input, on a base that cannot be fetched, and the step summary it writes.

Each test plays a job as tests/test_action.py does: `freezer demo`'s registry pushed to a bare remote,
actions/checkout's one-commit clone, the event's JSON at GITHUB_EVENT_PATH, and the variables GitHub
sets (GITHUB_REF names the branch a schedule or a dispatch runs on).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from action_helpers import event_env, git, job_checkout, push_event, pushed_demo, run_action
from conftest import assert_clean_failure

FROZEN = "versions/graph_v1/fixtures/impact-default-timeout-users.yaml"


@pytest.fixture
def origin(demo_build: Path, tmp_path: Path) -> Path:
    """The demo registry, its versions frozen and committed, pushed to a bare remote as main."""
    return pushed_demo(demo_build, tmp_path)


def _push_branch_editing_a_frozen_file(origin: Path, branch: str) -> str:
    git(origin, "checkout", "-q", "-b", branch)
    target = origin / FROZEN
    target.chmod(0o644)
    target.write_text(target.read_text(encoding="utf-8") + "# edited after the freeze\n", encoding="utf-8")
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "--no-verify", "-m", "edit a frozen file")
    git(origin, "push", "-q", "origin", branch)
    return git(origin, "rev-parse", "HEAD")


def _scheduled(tmp_path: Path) -> dict[str, str]:
    # GitHub's schedule payload holds the cron line only; GITHUB_REF names the default branch.
    return {**event_env(tmp_path, "schedule", {"schedule": "17 3 * * *"}), "GITHUB_REF": "refs/heads/main"}


def _dispatched(tmp_path: Path, branch: str) -> dict[str, str]:
    payload = {"ref": f"refs/heads/{branch}", "inputs": {}, "repository": {"default_branch": "main"}}
    return {**event_env(tmp_path, "workflow_dispatch", payload), "GITHUB_REF": f"refs/heads/{branch}"}


def _annotations(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("::error")]


def test_a_scheduled_run_on_a_clean_default_branch_passes_and_audits_every_version(origin: Path) -> None:
    summary = origin.parent / "summary.md"
    result = run_action(job_checkout(origin, "main"), _scheduled(origin.parent), summary=summary)

    assert result.code == 0, result.text
    assert "schedule on the default branch: the event names no change" in result.out
    assert "a schedule run on the default branch names no change" in result.out
    frozen = sorted(path.name for path in (origin / "versions").iterdir() if (path / "manifest.json").is_file())
    assert f"✓ audited {len(frozen)} version(s)" in result.out
    text = summary.read_text(encoding="utf-8")
    assert "### freezer guard: passed" in text
    assert f"{len(frozen)} version(s) audited, 0 failing" in text
    assert all(name in text for name in frozen)


def test_a_dispatched_run_on_the_default_branch_passes(origin: Path) -> None:
    result = run_action(job_checkout(origin, "main"), _dispatched(origin.parent, "main"))
    assert result.code == 0, result.text
    assert "workflow_dispatch on the default branch: the event names no change" in result.out


def test_a_dispatched_run_on_a_branch_that_edits_a_frozen_file_fails_naming_the_file(origin: Path) -> None:
    fork = git(origin, "rev-parse", "HEAD")
    _push_branch_editing_a_frozen_file(origin, "edit")
    summary = origin.parent / "summary.md"

    result = run_action(job_checkout(origin, "edit"), _dispatched(origin.parent, "edit"), summary=summary)

    assert_clean_failure(result)
    assert "workflow_dispatch on refs/heads/edit: check compares with where it left origin/main" in result.out
    assert f"against {fork[:8]} (merge-base of HEAD and origin/main: a workflow_dispatch run on edit)" in result.out
    assert any(line.startswith(f"::error file={FROZEN}") for line in _annotations(result.out)), result.out
    text = summary.read_text(encoding="utf-8")
    assert "### freezer guard: failed" in text
    assert f"| `{FROZEN}` | $: frozen file modified: graph_v1" in text
    assert "`git checkout BASE -- FILE`" in text and "`freezer next`" in text


def test_the_base_input_is_the_base_of_a_scheduled_run(origin: Path) -> None:
    """A nightly run given a base (a branch of origin the checkout left out) checks the change since it."""
    fork = git(origin, "rev-parse", "HEAD")
    git(origin, "push", "-q", "origin", "main:last-release")
    target = origin / FROZEN
    target.chmod(0o644)
    target.write_text(target.read_text(encoding="utf-8") + "# edited after the freeze\n", encoding="utf-8")
    git(origin, "commit", "-q", "--no-verify", "-am", "tamper on main")
    git(origin, "push", "-q", "origin", "main")

    unguarded = run_action(job_checkout(origin, "main", "nightly"), _scheduled(origin.parent))
    guarded = run_action(
        job_checkout(origin, "main", "nightly2"), _scheduled(origin.parent), inputs={"base": "last-release"}
    )

    assert "✓ frozen versions untouched" in unguarded.out  # the schedule names no change of its own...
    assert_clean_failure(guarded)  # ...the base input does
    assert "the base input names origin/last-release: check compares with it" in guarded.out
    assert f"against {fork[:8]}" in guarded.out
    assert any(line.startswith(f"::error file={FROZEN}") for line in _annotations(guarded.out))


@pytest.mark.parametrize("base", ["--upload-pack=x", "a..b", "no-such-branch"])
def test_a_base_input_that_names_no_commit_is_refused_with_an_annotation(origin: Path, base: str) -> None:
    result = run_action(job_checkout(origin, "main"), _scheduled(origin.parent), inputs={"base": base})
    assert_clean_failure(result, code=2)
    (annotation,) = _annotations(result.out)
    assert annotation.startswith("::error title=freezer action::input base is")


def test_a_push_whose_base_cannot_be_fetched_fails_with_an_annotation_saying_what_to_fetch(origin: Path) -> None:
    gone = "1234567890abcdef" * 2 + "12345678"
    summary = origin.parent / "summary.md"
    result = run_action(job_checkout(origin, "main"), push_event(origin.parent, gone), summary=summary)

    assert_clean_failure(result, code=2)
    (annotation, *_) = _annotations(result.out)
    assert annotation.startswith("::error title=freezer check::freezer check failed (exit 2): ")
    assert gone[:12] in annotation and "git fetch origin" in annotation
    assert "fetch-depth: 0" in summary.read_text(encoding="utf-8")


def test_each_failing_version_of_the_audit_is_one_annotation(origin: Path) -> None:
    """Two tampered versions: two annotations, one a version, never one line per file."""
    for rel in ("versions/tb_v1/version.yaml", "versions/api_v1/version.yaml"):
        target = origin / rel
        target.chmod(0o644)
        target.write_text(target.read_text(encoding="utf-8") + "# tampered\n", encoding="utf-8")
    git(origin, "commit", "-q", "--no-verify", "-am", "tamper two versions")
    git(origin, "push", "-q", "origin", "main")

    result = run_action(job_checkout(origin, "main"), _scheduled(origin.parent))

    assert_clean_failure(result)
    audit = [line for line in _annotations(result.out) if line.startswith("::error title=freezer audit::")]
    assert sorted(line.split("::")[2].split(":")[0] for line in audit) == ["✗ api_v1", "✗ tb_v1"]
