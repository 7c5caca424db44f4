"""The release workflow (.github/workflows/release.yml), offline as far as it goes: on a tag v*, it
refuses a tag that is not freezer's version, builds the sdist and the wheel and checks them
(tools/check_dist.py), publishes with PyPI's trusted publishing, and moves the Action's major tag to the
released commit (run against a local bare origin). Real git, the real build; the publishing itself
is PyPI's and is only read."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from workflow_steps import job, run_job

from freezer.domain.release import __version__, action_ref
from freezer.git.gitrepo import DETERMINISTIC_ENV

from action_helpers import git
from conftest import REPO

RELEASE = REPO / ".github/workflows/release.yml"
BIN = Path(sys.executable).parent


def test_a_release_runs_on_a_version_tag_and_publishes_with_trusted_publishing() -> None:
    spec = yaml.safe_load(RELEASE.read_text(encoding="utf-8"))
    assert spec[True] == {"push": {"tags": ["v*"]}}  # YAML 1.1 reads the key `on` as true
    assert spec["permissions"] == {"contents": "read"}  # nothing more, unless a job asks
    publish = spec["jobs"]["publish"]
    assert publish["needs"] == "build" and publish["environment"] == "pypi"
    assert publish["permissions"] == {"id-token": "write"}
    assert [step["uses"] for step in publish["steps"]][-1] == "pypa/gh-action-pypi-publish@release/v1"
    assert not [step for step in publish["steps"] if "with" in step and "password" in step["with"]]  # no token
    runs = [step.get("run", "") for step in spec["jobs"]["build"]["steps"]]
    assert any("python -m build" in run for run in runs) and any("tools/check_dist.py dist" in run for run in runs)
    assert spec["jobs"]["move-major-tag"]["needs"] == "publish"


def _tag_step() -> str:
    (step,) = [s for s in job(RELEASE, "move-major-tag")["steps"] if "run" in s]
    return str(step["run"])


def _origin_with_releases(tmp_path: Path) -> tuple[Path, Path, str, str]:
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    shas = []
    for n in (1, 2):
        (work / "f").write_text(f"{n}\n")
        subprocess.run(["git", "add", "-A"], cwd=work, check=True)
        subprocess.run(
            ["git", "commit", "-q", "-m", f"c{n}"],
            cwd=work,
            check=True,
            env={**DETERMINISTIC_ENV, "PATH": "/usr/bin:/bin"},
        )
        shas.append(git(work, "rev-parse", "HEAD"))
    git(work, "tag", action_ref(), shas[0])  # where the major tag stood: the release before
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(origin)], check=True)
    checkout = tmp_path / "checkout"
    git(tmp_path, "clone", "-q", f"file://{origin}", str(checkout))
    return origin, checkout, shas[0], shas[1]


@pytest.mark.parametrize(("tag", "moves"), [(f"{action_ref()}.9.1", True), (f"{action_ref()}.9.2rc1", False)])
def test_the_release_moves_the_major_tag_to_the_released_commit(tmp_path: Path, tag: str, moves: bool) -> None:
    origin, checkout, before, released = _origin_with_releases(tmp_path)
    env = {"GITHUB_REF_NAME": tag, "GITHUB_SHA": released}
    ran = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", _tag_step()],
        cwd=checkout,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), **env},
        capture_output=True,
        text=True,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    now = git(origin, "rev-parse", f"refs/tags/{action_ref()}^{{commit}}")
    assert now == (released if moves else before), ran.stdout


@pytest.mark.slow
def test_the_release_build_job_refuses_a_wrong_tag_then_builds_and_checks(tmp_path: Path) -> None:
    source = tmp_path / "checkout"
    subprocess.run(["git", "clone", "-q", "--no-local", str(REPO), str(source)], check=True)
    change = subprocess.run(["git", "-C", str(REPO), "diff", "HEAD", "--binary"], check=True, capture_output=True)
    if change.stdout:  # the tracked tree under test, as the tag would hold it
        subprocess.run(["git", "apply"], cwd=source, check=True, input=change.stdout)
    wrong = run_job(RELEASE, source, {"GITHUB_REF_NAME": "v0.0.1"}, [BIN], "build")
    said = [step for step in wrong if step.code is not None]
    assert said[0].code == 1 and f"the tag v0.0.1 is not v{__version__}" in said[0].err
    assert [step.code for step in said[1:]] == []  # nothing built after a refused tag
    right = run_job(RELEASE, source, {"GITHUB_REF_NAME": f"v{__version__}"}, [BIN], "build")
    assert [(step.name, step.code) for step in right if step.code is not None] == [
        ("the tag names the version being released", 0),
        ("build the sdist and the wheel", 0),
        ("check them", 0),
    ], [step.out + step.err for step in right]
    built = sorted(path.name for path in (source / "dist").iterdir())
    assert [name.rsplit(".", 1)[-1] for name in built] == ["whl", "gz"] and built[1].endswith(f"{__version__}.tar.gz")
