"""freezer's GitHub Action (action.yml, action/run.sh), run outside GitHub on a real registry.

Each test plays a job: `freezer demo`'s registry (five frozen versions, committed) pushed to a bare
remote, a change pushed after it, actions/checkout's one-commit clone of what the event names, and the
event's JSON at GITHUB_EVENT_PATH. The guard step must fetch the base the checkout left out, and fail
exactly when a frozen version changed.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from action_helpers import (
    ACTION_YML,
    ZERO,
    action,
    event_env,
    git,
    guard_step,
    job_checkout,
    pull_request_event,
    push_event,
    pushed_demo,
    run_action,
)
from conftest import REPO, assert_clean_failure, run_inprocess


@pytest.fixture
def origin(demo_build: Path, tmp_path: Path) -> Path:
    """The demo registry, its five versions frozen and committed, pushed to a bare remote as main."""
    return pushed_demo(demo_build, tmp_path)


def _commit(reg: Path, message: str) -> str:
    git(reg, "add", "-A")
    git(reg, "commit", "-q", "--no-verify", "-m", message)  # past any hook, as a careless push would be
    return git(reg, "rev-parse", "HEAD")


def _edit_frozen(reg: Path, rel: str) -> None:
    target = reg / rel
    target.chmod(0o644)
    target.write_text(target.read_text(encoding="utf-8") + "# edited after the freeze\n", encoding="utf-8")


def _recut_graph_v2(reg: Path) -> None:
    """Delete the frozen graph_v2 and cut it again from edited drafts: every file of it is new bytes."""
    frozen = reg / "versions/graph_v2"
    for path in [frozen, *frozen.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    shutil.rmtree(frozen)
    fixture = sorted((reg / "drafts/graph/fixtures").glob("*.yaml"))[0]
    fixture.write_text(fixture.read_text(encoding="utf-8") + "# quietly re-graded\n", encoding="utf-8")
    cut = run_inprocess("cut", "v2", "--suite", "graph", cwd=reg)
    assert cut.code == 0, cut.text


def _annotations(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("::error")]


# --- pull requests ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rel",
    ["versions/graph_v1/fixtures/impact-default-timeout-users.yaml", "versions/api_v1/version.yaml"],
)
def test_a_pull_request_that_edits_a_frozen_file_fails_with_an_annotation(origin: Path, rel: str) -> None:
    base = git(origin, "rev-parse", "HEAD")
    git(origin, "checkout", "-q", "-b", "edit")
    _edit_frozen(origin, rel)
    _commit(origin, "edit a frozen file")
    git(origin, "push", "-q", "origin", "edit")
    job = job_checkout(origin, "edit")
    assert git(job, "rev-parse", "--is-shallow-repository") == "true"  # the base is not in the checkout

    result = run_action(job, pull_request_event(origin.parent, base, "edit"))

    assert_clean_failure(result)
    assert "pull_request into main: check compares with the merge-base of HEAD and origin/main" in result.out
    assert f"against {base[:8]} (merge-base of HEAD and origin/main)" in result.out
    assert any(
        line.startswith(f"::error file={rel}") and "frozen file modified" in line for line in _annotations(result.out)
    )


@pytest.mark.slow  # more instances of the cases above; each job runs check and audit
def test_a_pull_request_that_deletes_a_frozen_version_fails(origin: Path) -> None:
    base = git(origin, "rev-parse", "HEAD")
    git(origin, "checkout", "-q", "-b", "drop")
    frozen = origin / "versions/swe_v1"
    for path in [frozen, *frozen.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    shutil.rmtree(frozen)
    _commit(origin, "drop swe_v1")
    git(origin, "push", "-q", "origin", "drop")

    result = run_action(job_checkout(origin, "drop"), pull_request_event(origin.parent, base, "drop"))

    assert_clean_failure(result)
    # one annotation for the version, not one per file (GitHub shows ten), with how to restore it
    deleted = [line for line in _annotations(result.out) if "versions/swe_v1" in line]
    assert len(deleted) == 1, result.out
    assert "frozen version deleted: swe_v1" in deleted[0] and "git checkout" in deleted[0], deleted[0]


def _frozen_count(root: Path) -> int:
    """How many versions the demo froze (it grows as the demo cuts more suites)."""
    return sum(1 for path in (root / "versions").iterdir() if (path / "manifest.json").is_file())


def test_a_clean_pull_request_passes_check_and_audit(origin: Path) -> None:
    base = git(origin, "rev-parse", "HEAD")
    git(origin, "checkout", "-q", "-b", "notes")
    (origin / "NOTES.md").write_text("what changed and why\n", encoding="utf-8")
    _commit(origin, "notes")
    git(origin, "push", "-q", "origin", "notes")
    summary = origin.parent / "summary.md"

    result = run_action(
        job_checkout(origin, "notes"), pull_request_event(origin.parent, base, "notes"), summary=summary
    )

    assert result.code == 0, result.text
    assert "✓ frozen versions untouched against" in result.out
    assert f"✓ audited {_frozen_count(origin)} version(s)" in result.out
    assert _annotations(result.out) == []
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("### freezer guard: passed\n")
    assert f"- `freezer check`: passed. ✓ frozen versions untouched against {base[:8]}" in text
    assert "- New versions: none" in text
    assert f"- `freezer audit`: passed: {_frozen_count(origin)} version(s) audited, 0 failing" in text
    assert "What to do" not in text


@pytest.mark.slow  # more instances of the cases above; each job runs check and audit
def test_a_pull_request_without_a_base_ref_uses_the_payloads_base_commit(origin: Path) -> None:
    """A merge queue's group gives no GITHUB_BASE_REF: its base commit comes from the payload."""
    base = git(origin, "rev-parse", "HEAD")
    git(origin, "checkout", "-q", "-b", "queue")
    _edit_frozen(origin, "versions/graph_v2/METHOD.md")
    _commit(origin, "edit METHOD.md")
    git(origin, "push", "-q", "origin", "queue")
    event = event_env(origin.parent, "merge_group", {"merge_group": {"base_sha": base, "head_ref": "queue"}})

    result = run_action(job_checkout(origin, "queue"), event)

    assert_clean_failure(result)
    assert f"merge_group: check compares with the merge-base of HEAD and the base commit {base[:12]}" in result.out
    assert any(line.startswith("::error file=versions/graph_v2/METHOD.md") for line in _annotations(result.out))


# --- pushes ----------------------------------------------------------------------------------------


def test_a_push_that_recuts_a_frozen_version_past_the_hook_fails(origin: Path) -> None:
    before = git(origin, "rev-parse", "HEAD")
    _recut_graph_v2(origin)
    _commit(origin, "re-cut graph_v2")
    git(origin, "push", "-q", "origin", "main")
    job = job_checkout(origin, "main")
    assert before not in git(job, "rev-list", "--all").split()  # one commit deep: the base is not there

    result = run_action(job, push_event(origin.parent, before))

    assert_clean_failure(result)
    assert f"push to refs/heads/main: check compares with the commit before the push, {before[:12]}" in result.out
    assert f"(the commit before this push ({before[:8]}))" in result.out
    assert "frozen file modified: graph_v2 was frozen in" in result.out
    assert any(line.startswith("::error file=versions/graph_v2/") for line in _annotations(result.out))


@pytest.mark.slow  # more instances of the cases above; each job runs check and audit
def test_a_push_that_tampers_a_frozen_file_fails_and_the_next_clean_push_still_fails(origin: Path) -> None:
    """The push after a tamper compares with the tampered commit: check passes it, audit does not."""
    before = git(origin, "rev-parse", "HEAD")
    _edit_frozen(origin, "versions/tb_v1/version.yaml")
    tampered = _commit(origin, "tamper")
    git(origin, "push", "-q", "origin", "main")
    first = run_action(job_checkout(origin, "main", "job1"), push_event(origin.parent, before))
    assert_clean_failure(first)
    assert any(line.startswith("::error file=versions/tb_v1/version.yaml") for line in _annotations(first.out))

    (origin / "NOTES.md").write_text("later\n", encoding="utf-8")
    _commit(origin, "notes")
    git(origin, "push", "-q", "origin", "main")
    second = run_action(job_checkout(origin, "main", "job2"), push_event(origin.parent, tampered))
    assert_clean_failure(second)
    assert "✓ frozen versions untouched against" in second.out  # nothing changed since the tamper...
    assert "✗ tb_v1:" in second.out  # ...but the version no longer matches its manifest
    assert any(line.startswith("::error title=freezer audit::✗ tb_v1: ") for line in _annotations(second.out))


def test_a_clean_push_passes(origin: Path) -> None:
    before = git(origin, "rev-parse", "HEAD")
    draft = origin / "drafts/api/README.md"
    draft.write_text(draft.read_text(encoding="utf-8") + "\nMore about the prompts.\n", encoding="utf-8")
    _commit(origin, "drafts: api notes")
    git(origin, "push", "-q", "origin", "main")

    result = run_action(job_checkout(origin, "main"), push_event(origin.parent, before))

    assert result.code == 0, result.text
    assert f"(the commit before this push ({before[:8]}))" in result.out
    assert f"✓ audited {_frozen_count(origin)} version(s)" in result.out


def test_a_push_that_creates_a_branch_is_checked_from_where_it_left_the_default_branch(origin: Path) -> None:
    fork = git(origin, "rev-parse", "HEAD")
    git(origin, "checkout", "-q", "-b", "feature")
    (origin / "NOTES.md").write_text("a clean change\n", encoding="utf-8")
    _commit(origin, "notes")
    git(origin, "push", "-q", "origin", "feature")

    clean = run_action(job_checkout(origin, "feature", "clean"), push_event(origin.parent, ZERO, "refs/heads/feature"))

    assert clean.code == 0, clean.text
    assert (
        "push creates refs/heads/feature (no commit before it): check compares with where it left origin/main"
        in clean.out
    )
    assert f"against {fork[:8]} (merge-base of HEAD and origin/main: this push creates refs/heads/feature)" in clean.out

    git(origin, "checkout", "-q", "-b", "feature2")
    _recut_graph_v2(origin)
    _commit(origin, "re-cut graph_v2")
    git(origin, "push", "-q", "origin", "feature2")
    recut = run_action(
        job_checkout(origin, "feature2", "recut"), push_event(origin.parent, ZERO, "refs/heads/feature2")
    )
    assert_clean_failure(recut)
    assert "frozen file modified: graph_v2 was frozen in" in recut.out


def test_the_first_push_of_the_default_branch_checks_every_version_as_new(origin: Path, tmp_path: Path) -> None:
    result = run_action(job_checkout(origin, "main"), push_event(tmp_path, ZERO))
    assert result.code == 0, result.text
    assert "push creates main, the default branch: there is no commit before it, so every version is new" in result.out
    assert "new: graph_v1, graph_v2, api_v1, tb_v1, swe_v1" in result.out


def test_a_push_whose_base_cannot_be_fetched_is_a_usage_error_naming_it(origin: Path) -> None:
    gone = "1234567890abcdef" * 2 + "12345678"
    result = run_action(job_checkout(origin, "main"), push_event(origin.parent, gone))
    assert_clean_failure(result, code=2)
    assert f"the commit before the push, {gone[:12]}, could not be fetched" in result.out
    assert "git fetch origin" in result.err  # check's own message says what to fetch


# --- inputs ----------------------------------------------------------------------------------------


@pytest.mark.slow  # more instances of the cases above; each job runs check and audit
def test_suite_and_require_signature_reach_the_audit(origin: Path) -> None:
    before = git(origin, "rev-parse", "HEAD")
    (origin / "NOTES.md").write_text("x\n", encoding="utf-8")
    _commit(origin, "notes")
    git(origin, "push", "-q", "origin", "main")
    event = push_event(origin.parent, before)

    one = run_action(job_checkout(origin, "main", "one"), event, {"suite": "swe"})
    assert one.code == 0, one.text
    assert "✓ swe_v1:" in one.out and "graph_v1" not in one.out.split("frozen versions untouched")[1]

    signed = run_action(job_checkout(origin, "main", "signed"), event, {"suite": "tb", "require-signature": "true"})
    assert_clean_failure(signed)
    assert "✗ signature: unsigned" in signed.out and "1 not signed" in signed.out
    assert "graph_v1" not in signed.out.split("frozen versions untouched")[1]


@pytest.mark.parametrize(("name", "value"), [("require-signature", "yes"), ("reach-code", "1")])
def test_a_boolean_input_that_is_not_true_or_false_is_refused(origin: Path, name: str, value: str) -> None:
    result = run_action(job_checkout(origin, "main"), push_event(origin.parent, ZERO), {name: value})
    assert result.code == 2
    assert f"::error title=freezer action::input {name} is '{value}'; set it to true or false" in result.out


@pytest.mark.slow  # more instances of the cases above; each job runs check and audit
def test_reach_code_checks_new_versions_against_the_code_and_fails_when_it_is_not_there(origin: Path) -> None:
    before = git(origin, "rev-parse", "HEAD~4")  # graph_v2 and api_v1 are new, and have code under test
    job = job_checkout(origin, "main", "nocode")
    away = run_action(job, push_event(origin.parent, before), {"reach-code": "true"})
    assert_clean_failure(away)
    assert "code: unreachable" in away.text

    job = job_checkout(origin, "main", "withcode")
    shutil.copytree(origin / "sample-code", job / "sample-code", symlinks=True)
    near = run_action(job, push_event(origin.parent, before), {"reach-code": "true"})
    assert near.code == 0, near.text
    assert "code: verified at" in near.out


def test_the_registry_input_names_a_folder_below_the_checkout(origin: Path, tmp_path: Path) -> None:
    result = run_action(job_checkout(origin, "main"), push_event(tmp_path, ZERO), {"registry": "no-such-folder"})
    assert result.code == 2
    assert "input registry is 'no-such-folder', which is not a folder of the checkout" in result.out


# --- action.yml ------------------------------------------------------------------------------------


def test_action_yml_is_composite_and_never_splices_an_input_into_a_script() -> None:
    spec = action()
    assert spec["runs"]["using"] == "composite"
    assert set(spec["inputs"]) == {"registry", "suite", "require-signature", "reach-code", "base"}
    for step in spec["runs"]["steps"]:
        assert step["shell"] == "bash"
        assert "${{" not in step["run"], step["run"]  # inputs arrive through env, never as code
        (script,) = re.findall(r'"\$GITHUB_ACTION_PATH/(action/[a-z]+\.sh)"', step["run"])
        assert (REPO / script).is_file()
    install = spec["runs"]["steps"][0]
    assert install["env"]["FREEZER_SOURCE"] == "${{ github.action_path }}"  # the action's own tag's code
    assert set(guard_step()["env"]) >= {"FREEZER_REGISTRY", "FREEZER_SUITE", "FREEZER_REACH_CODE", "FREEZER_BASE"}


def test_the_init_workflow_names_this_action_at_the_major_tag_for_when_it_is_published(tmp_path: Path) -> None:
    from freezer.domain.release import REPOSITORY, __version__, action_ref

    made = run_inprocess("init", str(tmp_path / "new"), cwd=tmp_path)
    assert made.code == 0, made.text
    text = (tmp_path / "new/.github/workflows/freezer.yml").read_text(encoding="utf-8")
    # The commented step that replaces the install and guard steps once the Action is published.
    commented = [line[1:] for line in text.splitlines() if line.startswith(("#   ", "#     "))]
    (used,) = yaml.safe_load("\n".join(commented))
    assert used["uses"] == f"{REPOSITORY}@v{__version__.split('.')[0]}" == f"{REPOSITORY}@{action_ref()}"
    assert set(used["with"]) <= set(action()["inputs"])
    assert REPOSITORY in ACTION_YML.read_text(encoding="utf-8")
