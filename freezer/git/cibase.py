"""What a CI job says about the change it checks: the event, and the commits the event names.

GitHub Actions tells a job which event started it (``GITHUB_EVENT_NAME``) and writes the
event's JSON to ``GITHUB_EVENT_PATH``. On a pull request the base branch is also in
``GITHUB_BASE_REF``; on a push only the payload knows the commit before the push
(``before``), and nothing in the repository does: the upstream branch of a push job's
checkout is the pushed commit itself. :mod:`freezer.git.registrygit` turns these into the
base of ``freezer check``.
"""

import json
import os
import re
from typing import NamedTuple

from freezer.domain.errors import FreezerError
from freezer.runtime.reading import read_whole

# A full object id, SHA-1 or SHA-256: anything else in a payload is not a commit freezer reads.
_OBJECT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
# An event payload is small; a bigger one is not GitHub's.
_MAX_PAYLOAD_BYTES = 64 * 1024 * 1024


class CiEvent(NamedTuple):
    """The CI job's view of the change: None and "" where the job says nothing."""

    in_ci: bool
    name: str  # GITHUB_EVENT_NAME: push, pull_request, …; "" outside GitHub Actions
    base_ref: str | None  # GITHUB_BASE_REF: a pull request's target branch
    before: str | None  # a push's previous tip, as the payload gives it (all zeros: a new branch)
    pushed_ref: str | None  # a push's (or a dispatched run's) ref, refs/heads/…: the payload's, else GITHUB_REF
    default_branch: str | None  # the repository's default branch, from the payload
    pull_base_sha: str | None  # a pull request's (or merge group's) base commit, from the payload
    payload_problem: str | None  # why GITHUB_EVENT_PATH could not be read, when it could not

    @property
    def is_push(self) -> bool:
        return self.name == "push"

    @property
    def is_pull_request(self) -> bool:
        # A merge queue's group is checked as the pull request it will merge: against its base.
        return self.name in ("pull_request", "pull_request_target", "merge_group")

    @property
    def names_no_change(self) -> bool:
        """A scheduled or hand-started run: the event names a branch to run on, not a change."""
        return self.name in ("schedule", "workflow_dispatch")

    @property
    def on_default_branch(self) -> bool:
        """Runs on the repository's default branch (a schedule always does: GitHub runs it there)."""
        if self.name == "schedule":
            return True
        return self.default_branch is not None and self.pushed_ref == f"refs/heads/{self.default_branch}"

    @property
    def creates_branch(self) -> bool:
        """A push of a new branch: GitHub gives an all-zero ``before``."""
        return self.before is not None and set(self.before) == {"0"}


def is_object_id(value: object) -> bool:
    return isinstance(value, str) and _OBJECT_ID.fullmatch(value) is not None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _payload() -> tuple[dict[str, object], str | None]:
    path = os.environ.get("GITHUB_EVENT_PATH")
    if not path:
        return {}, "GITHUB_EVENT_PATH is not set"
    try:
        data = json.loads(read_whole(path, _MAX_PAYLOAD_BYTES))
    except FreezerError as exc:
        return {}, exc.message
    except (ValueError, RecursionError) as exc:
        return {}, f"GITHUB_EVENT_PATH is not JSON: {exc}"
    if not isinstance(data, dict):
        return {}, "GITHUB_EVENT_PATH does not hold a JSON object"
    return data, None


def ci_event() -> CiEvent:
    """The event of the CI job freezer runs in, from the environment and the event payload."""
    base_ref = os.environ.get("GITHUB_BASE_REF") or None
    in_ci = bool(base_ref) or os.environ.get("GITHUB_ACTIONS") == "true" or os.environ.get("CI") == "true"
    name = os.environ.get("GITHUB_EVENT_NAME", "")
    payload: dict[str, object] = {}
    problem = None
    if name:
        payload, problem = _payload()
    repository = payload.get("repository")
    pull = payload.get("pull_request")
    pull_base = pull.get("base") if isinstance(pull, dict) else None
    group = payload.get("merge_group")
    if isinstance(group, dict):  # a merge queue names its base commit directly
        pull_base = {"sha": group.get("base_sha")}
    return CiEvent(
        in_ci=in_ci,
        name=name,
        base_ref=base_ref,
        before=_text(payload.get("before")),
        # A schedule's payload names no ref; GitHub sets GITHUB_REF to the branch it runs on.
        pushed_ref=_text(payload.get("ref")) or (_text(os.environ.get("GITHUB_REF")) if name else None),
        default_branch=_text(repository.get("default_branch")) if isinstance(repository, dict) else None,
        pull_base_sha=_text(pull_base.get("sha")) if isinstance(pull_base, dict) else None,
        payload_problem=problem,
    )
