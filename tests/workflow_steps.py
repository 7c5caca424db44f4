"""Run a GitHub Actions workflow's job outside GitHub, as the runner runs it: each ``run:`` step with
bash (``bash --noprofile --norc -eo pipefail``, GitHub's default shell) in the checkout, with the job's
and the step's ``env:`` and the variables GitHub sets (CI, GITHUB_ACTIONS, the event's name and
payload); a step's ``if:`` decides whether it runs, and after a failure only a step whose ``if:`` says
so still runs. A ``uses:`` step is GitHub's own (the checkout, setup-python): the test stands in for it."""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

_EXPRESSION = re.compile(r"^\$\{\{(.*)\}\}$", re.S)
_EVENT_IS = re.compile(r"github\.event_name == '([\w-]+)'")


@dataclass
class StepRun:
    name: str
    code: int | None  # None: skipped (a uses: step, or its if: said no)
    out: str = ""
    err: str = ""


def _runs(condition: object, event: str, failed: bool) -> bool:
    """Whether a step with this ``if:`` runs: the forms the workflows freezer writes use, joined by ||."""
    if condition is None:
        return not failed  # GitHub's implicit success()
    text = str(condition).strip()
    found = _EXPRESSION.match(text)
    expression = found.group(1) if found else text
    return any(_term(term.strip(), event, failed) for term in expression.split("||"))


def _term(term: str, event: str, failed: bool) -> bool:
    if term in ("!cancelled()", "always()"):
        return True
    if term in ("success()", "failure()"):
        return failed == (term == "failure()")
    found = _EVENT_IS.fullmatch(term)
    assert found is not None, f"an if: this runner does not know: {term!r}"
    return not failed and found.group(1) == event  # with no status function, success() is implied


def job(workflow: Path, name: str = "check") -> dict[str, Any]:
    loaded = yaml.safe_load(workflow.read_text(encoding="utf-8"))
    found = loaded["jobs"][name]
    assert isinstance(found, dict)
    return found


def run_job(
    workflow: Path,
    workspace: Path,
    github_env: dict[str, str],
    path: list[Path],
    name: str = "check",
    only: set[str] | None = None,
) -> list[StepRun]:
    """Every step of the workflow's job ``name``, run in ``workspace`` with the tools of ``path`` first.
    ``only``: run just the steps of these names (the others, an install among them, are the test's)."""
    spec = job(workflow, name)
    event = github_env.get("GITHUB_EVENT_NAME", "")
    base = {
        **os.environ,
        "PATH": os.pathsep.join([*map(str, path), os.environ.get("PATH", "")]),
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(workspace),
        **github_env,
        **{key: str(value) for key, value in spec.get("env", {}).items()},
    }
    ran: list[StepRun] = []
    failed = False
    for number, step in enumerate(spec["steps"]):
        name = str(step.get("name") or step.get("uses") or f"step {number}")
        if "uses" in step or (only is not None and name not in only) or not _runs(step.get("if"), event, failed):
            ran.append(StepRun(name, None))
            continue
        env = {**base, **{key: str(value) for key, value in step.get("env", {}).items()}}
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=workspace,
            env=env,
            capture_output=True,
            text=True,
        )
        ran.append(StepRun(name, done.returncode, done.stdout, done.stderr))
        failed = failed or done.returncode != 0
    return ran
