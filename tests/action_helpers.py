"""Run freezer's GitHub Action outside GitHub: action.yml's guard step, with its inputs wired as
action.yml wires them, the event's JSON at GITHUB_EVENT_PATH, and a checkout as actions/checkout
makes it (a clone of a bare remote, one commit deep unless asked for more)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from conftest import REPO, Run

ACTION_YML = REPO / "action.yml"
ZERO = "0" * 40
_EXPRESSION = re.compile(r"\$\{\{\s*([a-z.-]+)\s*\}\}")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def action() -> dict[str, Any]:
    loaded = yaml.safe_load(ACTION_YML.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def guard_step() -> dict[str, Any]:
    """The step of action.yml that runs action/run.sh."""
    (step,) = [s for s in action()["runs"]["steps"] if "action/run.sh" in s.get("run", "")]
    return dict(step)


def _freezer_command(where: Path) -> Path:
    """What the install step's output names: a `freezer` command, here the tree under test."""
    command = where / "freezer"
    command.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m freezer "$@"\n', encoding="utf-8")
    command.chmod(0o755)
    return command


def step_env(inputs: Mapping[str, str], where: Path) -> dict[str, str]:
    """The guard step's environment as GitHub would give it: each `${{ inputs.X }}` the input given
    (or action.yml's default), each install output the command the install step would have made."""
    declared = action()["inputs"]
    unknown = set(inputs) - set(declared)
    assert not unknown, f"not inputs of action.yml: {unknown}"
    outputs = {"freezer": str(_freezer_command(where)), "python": sys.executable}
    env: dict[str, str] = {}
    for name, value in guard_step()["env"].items():
        found = _EXPRESSION.fullmatch(str(value))
        assert found is not None, f"{name}: {value!r} is not one expression"
        scope, _, key = found.group(1).partition(".")
        if scope == "inputs":
            env[name] = inputs.get(key, str(declared[key].get("default", "")))
        else:
            assert found.group(1).startswith("steps.install.outputs."), value
            env[name] = outputs[found.group(1).rsplit(".", 1)[1]]
    return env


def event_env(tmp_path: Path, name: str, payload: Mapping[str, object], base_ref: str | None = None) -> dict[str, str]:
    path = tmp_path / f"event-{name}-{len(list(tmp_path.glob('event-*')))}.json"
    path.write_text(json.dumps(payload), encoding="utf-8")
    env = {"CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": name, "GITHUB_EVENT_PATH": str(path)}
    if base_ref is not None:
        env["GITHUB_BASE_REF"] = base_ref
    return env


def push_event(tmp_path: Path, before: str, ref: str = "refs/heads/main") -> dict[str, str]:
    return event_env(tmp_path, "push", {"before": before, "ref": ref, "repository": {"default_branch": "main"}})


def pull_request_event(tmp_path: Path, base_sha: str, head: str, base: str = "main") -> dict[str, str]:
    payload = {
        "number": 7,
        "pull_request": {"base": {"ref": base, "sha": base_sha}, "head": {"ref": head}},
        "repository": {"default_branch": "main"},
    }
    return event_env(tmp_path, "pull_request", payload, base_ref=base)


def checkout(remote: Path, where: Path, branch: str, depth: int | None = 1) -> Path:
    """actions/checkout's clone: one commit deep by default, origin set to the remote."""
    deep = ["--depth", str(depth)] if depth is not None else []
    git(where.parent, "clone", "-q", *deep, "--no-tags", "-b", branch, f"file://{remote}", str(where))
    return where


def pushed_demo(demo_build: Path, where: Path) -> Path:
    """The demo registry (``where/reg``), its versions frozen and committed, pushed to a bare remote
    (``where/remote.git``) as main: the origin every job of a test checks out."""
    reg = where / "reg"
    shutil.copytree(demo_build, reg, symlinks=True)
    remote = where / "remote.git"
    git(where, "init", "-q", "--bare", "-b", "main", str(remote))
    git(reg, "remote", "add", "origin", str(remote))
    git(reg, "push", "-q", "origin", "main")
    return reg


def job_checkout(reg: Path, branch: str, name: str = "job") -> Path:
    """A job's checkout (beside ``reg``) of ``branch`` as pushed to the remote :func:`pushed_demo` made."""
    return checkout(reg.parent / "remote.git", reg.parent / name, branch)


def run_action(
    job: Path, event: Mapping[str, str], inputs: Mapping[str, str] | None = None, summary: Path | None = None
) -> Run:
    """action/run.sh as the guard step runs it, in the job's workspace."""
    scratch = job.parent / f".{job.name}-step"
    scratch.mkdir(exist_ok=True)
    env = {key: value for key, value in os.environ.items() if not key.startswith(("GITHUB_", "FREEZER"))}
    env.update({"PYTHONPATH": str(REPO), **step_env(inputs or {}, scratch), **event})
    if summary is not None:
        env["GITHUB_STEP_SUMMARY"] = str(summary)
    bash = shutil.which("bash")
    assert bash is not None
    proc = subprocess.run(
        [bash, str(REPO / "action" / "run.sh")], cwd=job, env=env, capture_output=True, text=True, timeout=300
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)
