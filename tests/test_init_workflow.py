"""The GitHub workflow ``freezer init`` writes runs as written, at the top of the repository where GitHub
reads it, for a registry there and one in a subfolder: its steps run with bash and the variables GitHub
sets, the install step takes freezer by its published name and exact version from a local folder of
wheels through pip's own options (PIP_FIND_LINKS, PIP_NO_INDEX), and the guard refuses an edited frozen
version on a pull request, passes a clean push and audits on a schedule. Real git, a bare origin, a
real venv for the runner's Python; slow (a wheel build and a venv)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from workflow_steps import StepRun, job, run_job

from freezer.domain.release import DISTRIBUTION, REPOSITORY, __version__, action_ref
from freezer.freeze.scaffold import PLACEHOLDERS
from freezer.git.gitrepo import DETERMINISTIC_ENV

from action_helpers import event_env, git, pull_request_event, push_event
from conftest import REPO, run_inprocess

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """freezer's wheel and its dependencies' (the job's index is off): what the package index would serve."""
    folder = tmp_path_factory.mktemp("wheelhouse")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", str(REPO), "-w", str(folder)], check=True)
    return folder


@pytest.fixture(scope="session")
def runner_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The runner's Python, as actions/setup-python leaves it on PATH: one without freezer."""
    venv = tmp_path_factory.mktemp("runner") / "python"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    return venv / "bin"


def _commit(work: Path, message: str) -> str:
    git_env = {**DETERMINISTIC_ENV}
    subprocess.run(["git", "add", "-A"], cwd=work, check=True, env={**git_env, "PATH": "/usr/bin:/bin"})
    subprocess.run(
        ["git", "commit", "-q", "-m", message], cwd=work, check=True, env={**git_env, "PATH": "/usr/bin:/bin"}
    )
    return git(work, "rev-parse", "HEAD")


def _registry_with_v1(tmp_path: Path, where: str) -> tuple[Path, str]:
    """A repository whose registry (at its top or in bench/) holds bench_v1, pushed to a bare origin."""
    work = tmp_path / "work"
    if where == "subfolder":
        work.mkdir()
        git(work, "init", "-q", "-b", "main")
        (work / "README.md").write_text("the project\n")
        _commit(work, "the project")
        made = run_inprocess("init", "bench", "--kind", "records", cwd=work)
        registry = work / "bench"
    else:
        made = run_inprocess("init", "work", "--kind", "records", cwd=tmp_path)
        git(work, "symbolic-ref", "HEAD", "refs/heads/main")
        registry = work
    assert made.code == 0, made.text
    said = f"once freezer's Action is published, one line replaces the workflow's install and guard: uses: {REPOSITORY}"
    assert f"{said}@{action_ref()}\n" in made.out
    version = registry / "drafts/bench/version.yaml"
    version.write_text(version.read_text().replace(PLACEHOLDERS["purpose"], "Two records to try the guard on."))
    (registry / "drafts/bench/instances").mkdir()
    records = [{"instance_id": name, "problem": f"solve {name}"} for name in ("a", "b")]
    (registry / "drafts/bench/instances/tasks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    cut = run_inprocess("cut", "v1", cwd=registry)
    assert cut.code == 0, cut.text
    main = _commit(work, "freeze bench_v1")
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(tmp_path / "origin.git")], check=True)
    git(work, "remote", "add", "origin", str(tmp_path / "origin.git"))
    return work, main


def _job(tmp_path: Path, branch: str, name: str) -> Path:
    """actions/checkout with fetch-depth: 0: every branch's history, origin the remote."""
    where = tmp_path / f"job-{name}"
    git(tmp_path, "clone", "-q", "-b", branch, f"file://{tmp_path / 'origin.git'}", str(where))
    return where


def _ran(steps: list[StepRun], name: str) -> StepRun:
    (step,) = [s for s in steps if s.name == name]
    return step


@pytest.mark.parametrize("where", ["top", "subfolder"])
def test_the_init_workflow_runs_its_steps_on_every_event(
    tmp_path: Path, where: str, wheelhouse: Path, runner_bin: Path
) -> None:
    work, main = _registry_with_v1(tmp_path, where)
    workflow = work / ".github/workflows/freezer.yml"
    assert workflow.is_file()  # at the repository's top, where GitHub reads it
    spec = job(workflow)
    assert spec["env"]["FREEZER_REGISTRY"] == ("." if where == "top" else "bench")
    assert {"actions/checkout@v4": {"fetch-depth": 0}}.items() <= {
        s["uses"]: s.get("with") for s in spec["steps"] if "uses" in s
    }.items()
    index = {"PIP_FIND_LINKS": str(wheelhouse), "PIP_NO_INDEX": "1"}

    # A pull request that edits a frozen file: check refuses it with an annotation, the audit runs too.
    git(work, "checkout", "-q", "-b", "edit")
    frozen = work / ("" if where == "top" else "bench") / "versions/bench_v1/version.yaml"
    frozen.write_text(frozen.read_text() + "# an edit\n")
    _commit(work, "edit a frozen version")
    git(work, "push", "-q", "origin", "edit")
    steps = run_job(
        workflow, _job(tmp_path, "edit", "pr"), {**pull_request_event(tmp_path, main, "edit"), **index}, [runner_bin]
    )
    assert _ran(steps, "install freezer").code == 0, _ran(steps, "install freezer").err
    check = _ran(steps, "freezer check")
    assert check.code == 1, check.out + check.err
    assert "::error" in check.out and "bench_v1" in check.out and "version.yaml" in check.out
    assert _ran(steps, "freezer audit").code is not None  # !cancelled(): the audit runs after a failed check
    installed = subprocess.run([runner_bin / "freezer", "--version"], capture_output=True, text=True, check=True)
    assert installed.stdout.strip() == f"freezer {__version__} (installed as {DISTRIBUTION})"

    # A clean push to main: both pass.
    git(work, "checkout", "-q", "main")
    (work / "NOTES.md").write_text("a note\n")
    _commit(work, "a note")
    git(work, "push", "-q", "origin", "main")
    steps = run_job(workflow, _job(tmp_path, "main", "push"), {**push_event(tmp_path, main), **index}, [runner_bin])
    assert [(s.name, s.code) for s in steps if s.code is not None] == [
        ("install freezer", 0),
        ("freezer check", 0),
        ("freezer audit", 0),
    ], [s.out + s.err for s in steps]

    # The nightly run names no change: only the audit runs, and passes.
    nightly = event_env(tmp_path, "schedule", {"schedule": "17 3 * * *", "repository": {"default_branch": "main"}})
    steps = run_job(workflow, _job(tmp_path, "main", "schedule"), {**nightly, **index}, [runner_bin])
    assert _ran(steps, "freezer check").code is None
    audit = _ran(steps, "freezer audit")
    assert audit.code == 0 and "bench_v1" in audit.out, audit.out + audit.err
