"""Harbor results tied to the frozen task they claim (issue 37): each trial's ``lock.json`` records
the content digest of the task that ran (``task.digest``, ``sha256:…``), which is freezer's own
Harbor digest of the frozen task folder; and a job whose tasks score under different reward keys
is imported task by task.

The registry is ``freezer demo``'s, with a tb_v2 cut by the real CLI from a commit that edits one
task (count-words); the lock digests are computed here from the task folders as Harbor does
(``path NUL sha256 LF`` per published file, in path order), not by freezer.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import run_inprocess

TB = ["count-words", "rotate-logs", "fix-csv-header"]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> Path:
    """The demo registry with tb_v1 and a tb_v2 whose count-words task says one more sentence."""
    root = tmp_path_factory.mktemp("harbor-evidence") / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    drafts = root / "drafts" / "tb"
    version = drafts / "version.yaml"
    version.write_text(version.read_text().replace("\nversion: 1\n", "\nversion: 2\n"))
    with (drafts / "tasks" / "count-words" / "instruction.md").open("a") as out:
        out.write("Count the words of every file.\n")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "tb v2: count-words says more"], cwd=root, check=True)
    cut = run_inprocess("cut", "tb_v2", cwd=root)
    assert cut.code == 0, cut.text
    return root


def _harbor_digest(folder: Path) -> str:
    records = sorted(
        (path.relative_to(folder).as_posix(), hashlib.sha256(path.read_bytes()).hexdigest())
        for path in folder.rglob("*")
        if path.is_file()
    )
    return "sha256:" + hashlib.sha256("".join(f"{rel}\0{sha}\n" for rel, sha in records).encode()).hexdigest()


def _trial(job: Path, task: str, rewards: dict[str, float], *, digest: str | None, n: int = 1) -> Path:
    """A Harbor trial folder: result.json (TrialResult) and, when ``digest``, lock.json."""
    trial = job / f"{task}__{n}"
    trial.mkdir(parents=True)
    result: dict[str, Any] = {
        "id": f"6f1c2a9e-0000-4000-8000-{n:012d}",
        "task_name": task,
        "trial_name": trial.name,
        "trial_uri": trial.as_uri(),
        "task_id": {"path": f"tasks/{task}"},
        "source": "tb",
        "task_checksum": hashlib.sha256(task.encode()).hexdigest(),
        "config": {"trials_dir": str(job), "timeout_multiplier": 1.0},
        "agent_info": {"name": "oracle", "version": "0.26.0", "model_info": None},
        "verifier_result": {"rewards": rewards},
        "exception_info": None,
        "started_at": "2026-12-01T10:00:00",
        "finished_at": "2026-12-01T10:05:00",
    }
    (trial / "result.json").write_text(json.dumps(result, indent=4))
    if digest is not None:
        lock = {"task": {"name": task, "path": f"tasks/{task}", "digest": digest}, "agent": {"name": "oracle"}}
        (trial / "lock.json").write_text(json.dumps(lock, indent=4))
    return trial / "result.json"


def _job(demo: Path, tmp_path: Path, version: str, rewards: dict[str, dict[str, float]] | None = None) -> Path:
    """A job that ran ``version``'s frozen tasks, each trial's lock.json naming the task's digest."""
    job = tmp_path / "jobs" / "2026-12-01__10-00-00"
    for task in TB:
        digest = _harbor_digest(demo / "versions" / version / "tasks" / task)
        _trial(job, task, (rewards or {}).get(task, {"reward": 1.0}), digest=digest)
    (job / "result.json").write_text(json.dumps({"id": "job", "n_total_trials": len(TB), "stats": {}}))
    return job


def _run(demo: Path, command: str, job: Path, version: str, *more: str) -> Any:
    result = run_inprocess("results", command, "--from", "harbor", str(job), "--version", version, *more, cwd=demo)
    assert "Traceback" not in result.err and "internal error" not in result.err
    return result


def test_a_job_whose_lock_digests_are_the_frozen_tasks_is_imported(demo: Path, tmp_path: Path) -> None:
    job = _job(demo, tmp_path, "tb_v2")
    result = _run(demo, "import", job, "tb_v2")
    assert result.code == 0, result.out + result.err
    assert len([line for line in result.out.splitlines() if line.startswith("{")]) == len(TB)
    assert "lock.json" not in result.err  # every digest was recorded and checked


def test_a_job_that_ran_v1s_tasks_imported_as_v2s_is_refused_with_both_digests(demo: Path, tmp_path: Path) -> None:
    job = _job(demo, tmp_path, "tb_v1")
    ran = _harbor_digest(demo / "versions" / "tb_v1" / "tasks" / "count-words")
    frozen = _harbor_digest(demo / "versions" / "tb_v2" / "tasks" / "count-words")
    assert ran != frozen
    for command in ("import", "check"):
        result = _run(demo, command, job, "tb_v2")
        assert result.code == 1, result.out + result.err
        lock = job / "count-words__1" / "lock.json"
        assert f"{lock}:" in result.out and "$.task.digest:" in result.out, result.out
        assert ran in result.out and frozen in result.out, result.out
        assert "rotate-logs" not in result.out  # the tasks v1 and v2 share are no contradiction
    assert _run(demo, "import", job, "tb_v1").code == 0


def test_a_trial_without_lock_json_is_shown_as_not_recorded(demo: Path, tmp_path: Path) -> None:
    job = _job(demo, tmp_path, "tb_v2")
    (job / "rotate-logs__1" / "lock.json").unlink()
    result = _run(demo, "import", job, "tb_v2")
    assert result.code == 0, result.out + result.err
    assert f"not checked: {job / 'rotate-logs__1' / 'result.json'}: no lock.json beside it" in result.err
    assert "task digest not recorded" in result.err


def test_trials_missing_the_same_record_are_one_line_not_one_per_trial(demo: Path, tmp_path: Path) -> None:
    job = _job(demo, tmp_path, "tb_v2")
    locks = sorted(job.glob("*/lock.json"))
    assert len(locks) > 1
    for lock in locks:
        lock.unlink()
    result = _run(demo, "import", job, "tb_v2")
    assert result.code == 0, result.out + result.err
    lines = [line for line in result.err.splitlines() if "not checked" in line]
    assert len(lines) == 1, result.err
    assert f"not checked in {len(locks)} files (" in lines[0]
    assert lines[0].endswith("no lock.json beside it: the task digest not recorded"), lines[0]


def test_a_job_mixing_single_and_several_reward_tasks_is_imported_task_by_task(demo: Path, tmp_path: Path) -> None:
    several = {"accuracy": 0.5, "format": 1.0}
    job = _job(demo, tmp_path, "tb_v2", {"count-words": several, "rotate-logs": {"reward": 0.0}})
    result = _run(demo, "import", job, "tb_v2", "--metric", "accuracy")
    assert result.code == 0, result.out + result.err
    rows = {r["task_id"]: r["score"] for r in map(json.loads, result.out.splitlines()[: len(TB)])}
    assert rows == {"count-words": 0.5, "rotate-logs": 0.0, "fix-csv-header": 1.0}


def test_a_task_with_several_rewards_and_none_named_is_refused_naming_the_task_and_its_keys(
    demo: Path, tmp_path: Path
) -> None:
    job = _job(demo, tmp_path, "tb_v2", {"count-words": {"accuracy": 0.5, "format": 1.0}})
    result = _run(demo, "import", job, "tb_v2")
    assert result.code == 1, result.out + result.err
    assert "$.verifier_result.rewards: count-words has several rewards (accuracy, format)" in result.out
    assert "--metric" in result.out
    named = _run(demo, "import", job, "tb_v2", "--metric", "precision")
    assert named.code == 1
    assert "count-words has no reward 'precision'; its rewards: accuracy, format" in named.out, named.out


def test_a_lock_json_that_is_a_link_is_refused_never_read(demo: Path, tmp_path: Path) -> None:
    job = _job(demo, tmp_path, "tb_v2")
    lock = job / "count-words__1" / "lock.json"
    elsewhere = tmp_path / "elsewhere.json"
    lock.rename(elsewhere)
    lock.symlink_to(elsewhere)
    for named in (job, job / "count-words__1" / "result.json"):
        result = _run(demo, "import", named, "tb_v2")
        assert result.code == 1, result.out + result.err
        assert f"{lock}:" in result.out and "link" in result.out, result.out
