"""Under CI, `freezer check` suggests the git command that fetches a missing base: the branch it names
comes from the job's environment or the event payload (GITHUB_BASE_REF, repository.default_branch),
so it is quoted for a shell, and a shell that runs the suggestion runs git with that one argument."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest

from action_helpers import ZERO, git
from conftest import Run, assert_clean_failure, run_inprocess

HOSTILE = [
    "main; touch pwned",
    "$(touch pwned)",
    "`touch pwned`",
    "two words",
    "it's",
    "-upload-pack=touch pwned",
]


@pytest.fixture
def clone(demo_build: Path, tmp_path: Path) -> Path:
    """A registry with history and no origin: whatever base the event names is not fetched."""
    reg = tmp_path / "reg"
    shutil.copytree(demo_build, reg, symlinks=True)
    return reg


def _suggested(result: Run) -> list[str]:
    found = re.search(r"fetch it first \((git fetch origin .*?); with actions/checkout", result.err)
    assert found is not None, result.text
    return shlex.split(found.group(1))


def _argument(branch: str) -> list[str]:
    return ["--", branch] if branch.startswith("-") else [branch]


@pytest.mark.parametrize("branch", HOSTILE)
def test_the_fetch_suggested_for_a_pull_requests_base_quotes_github_base_ref(clone: Path, branch: str) -> None:
    env = {"CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request", "GITHUB_BASE_REF": branch}
    env["GITHUB_EVENT_PATH"] = str(clone.parent / "missing-event.json")
    result = run_inprocess("check", "--no-code", cwd=clone, env=env)
    assert_clean_failure(result, 2)
    assert _suggested(result) == ["git", "fetch", "origin", *_argument(branch)]
    assert not (clone / "pwned").exists()


@pytest.mark.parametrize("branch", HOSTILE[:3])
def test_the_fetch_suggested_for_a_new_branchs_default_branch_quotes_it(clone: Path, branch: str) -> None:
    event = clone.parent / "push.json"
    payload = {"before": ZERO, "ref": "refs/heads/feature", "repository": {"default_branch": branch}}
    event.write_text(json.dumps(payload), encoding="utf-8")
    git(clone, "checkout", "-q", "-b", "feature")
    env = {"CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(event)}
    result = run_inprocess("check", "--no-code", cwd=clone, env=env)
    assert_clean_failure(result, 2)
    assert _suggested(result) == ["git", "fetch", "origin", *_argument(branch)]
