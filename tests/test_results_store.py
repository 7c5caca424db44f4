"""``freezer results add`` stores an imported run beside its version (results/<suite>_vN/), and
``check`` and ``audit`` hold every stored run to its version: a hand-edited row, a row for a fixture
the version does not have, a source hash that no longer matches, and a stored run modified or
deleted in a change are each caught at the file and line.

All on a copy of ``freezer demo``'s registry (a real git repository), through the real CLI.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from freezer.domain.canonical import compact
from freezer.git.gitrepo import DETERMINISTIC_ENV, run_git

from conftest import assert_clean_failure, run_inprocess
from registry_helpers import commit_all, snapshot

BBH = ["bbh_slice_boolean_logic", "bbh_slice_item_tally", "bbh_slice_calendar_steps"]


@pytest.fixture(scope="module")
def demo_once(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> Path:
    root = tmp_path_factory.mktemp("store") / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    shutil.rmtree(root / "results")  # the demo's own stored runs: these tests start from none
    commit_all(root, "no stored runs")
    return root


@pytest.fixture
def demo(demo_once: Path, tmp_path: Path) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(demo_once, root, symlinks=True)
    return root


def _lmeval(folder: Path, tasks: list[str], name: str = "results.json") -> Path:
    """lm-eval's results JSON for the demo's bbh tasks (as tests/test_results_import.py writes it)."""
    results: dict[str, Any] = {
        task: {"alias": task, "exact_match,final-answer": [1.0, 0.25, 0.0][i % 3]} for i, task in enumerate(tasks)
    }
    config = {"dataset_path": "freezer-examples/bbh-slice", "test_split": "test", "output_type": "generate_until"}
    document = {
        "results": results,
        "configs": {t: {"task": t, **config, "num_fewshot": 0} for t in tasks},
        "versions": {t: 1.0 for t in tasks},
        "n-shot": {t: 0 for t in tasks},
        "n-samples": {t: {"original": 20, "effective": 20} for t in tasks},
        "config": {"model": "hf", "model_args": "pretrained=EleutherAI/pythia-160m", "limit": None},
        "date": 1764583200.0,
        "model_name": "EleutherAI/pythia-160m",
    }
    path = folder / name
    path.write_text(json.dumps(document, indent=2))
    return path


def _add(root: Path, source: Path, *extra: str) -> Any:
    args = ["--from", "lm-eval", str(source), "--version", "bbh_v2", "--model", "pythia-160m"]
    return run_inprocess("results", "add", *args, "--harness-version", "0.4.8", *extra, cwd=root)


def _stored(root: Path) -> Path:
    [path] = sorted((root / "results" / "bbh_v2").iterdir())
    return path


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, lines: list[dict[str, Any]]) -> None:
    """Write a stored run back as results add writes it: every row with its digest recomputed, and the
    header's digest too, as a careful forger would (a hand edit is made on the file's text instead)."""
    from freezer.guard.storedresults import record_digest, row_line

    header, *rows = lines
    written = [row_line({k: v for k, v in row.items() if k != "row_sha256"}) for row in rows]
    header["digest"] = record_digest(header, (json.loads(line)["row_sha256"] for line in written))
    path.write_bytes(b"".join(line + b"\n" for line in [compact(header), *written]))


def _hand_edit(path: Path, number: int, old: str, new: str) -> None:
    """Edit line ``number`` (1-based) of the file's text, as a person in an editor would."""
    lines = path.read_text().splitlines(keepends=True)
    assert old in lines[number - 1]
    lines[number - 1] = lines[number - 1].replace(old, new, 1)
    path.write_text("".join(lines))


def _stored_and_committed(demo: Path, tmp_path: Path) -> Path:
    added = _add(demo, _lmeval(tmp_path, BBH))
    assert added.code == 0, added.text
    commit_all(demo, "store a bbh_v2 run")
    return _stored(demo)


def _audit(root: Path) -> Any:
    return run_inprocess("audit", "--no-code", "--format", "json", cwd=root)


def _check(root: Path) -> Any:
    return run_inprocess("check", "--base", "HEAD", "--no-code", "--format", "json", cwd=root)


def _problems(result: Any, key: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = json.loads(result.out)["result"][key]
    return found


def test_add_stores_the_run_beside_its_version_with_its_source_and_labels(demo: Path, tmp_path: Path) -> None:
    source = _lmeval(tmp_path, BBH)
    versions_before = snapshot(demo / "versions")
    added = _add(demo, source)
    assert added.code == 0, added.text
    path = _stored(demo)
    sha = hashlib.sha256(source.read_bytes()).hexdigest()
    assert path.name == f"{sha[:16]}.jsonl"
    assert f"results/bbh_v2/{path.name}" in added.out
    header, *rows = _lines(path)
    assert header["sources"] == [{"name": "results.json", "sha256": sha}]
    assert (header["harness"], header["harness_version"], header["model"]) == ("lm-eval", "0.4.8", "pythia-160m")
    assert header["rows"] == 3 and sorted(r["task_id"] for r in rows) == sorted(BBH)
    shown = json.loads(run_inprocess("show", "bbh_v2", "--format", "json", cwd=demo).out)["result"]
    assert {r["manifest_sha256"] for r in rows} == {shown["manifest_sha256"]}
    assert {r["task_id"]: r["fixture_digest"] for r in rows} == {
        task: shown["fixture_digests"][task]["score"] for task in BBH
    }
    assert snapshot(demo / "versions") == versions_before
    checked = run_inprocess("results", "check", str(path), cwd=demo)
    assert checked.code == 1 and f"{path.name}:1:" in checked.out  # line 1 is the header, not a row
    assert _audit(demo).code == 0
    assert _check(demo).code == 0  # a new stored run that verifies passes the guard


def test_adding_the_same_files_again_writes_nothing_and_other_options_are_refused(demo: Path, tmp_path: Path) -> None:
    source = _lmeval(tmp_path, BBH)
    assert _add(demo, source).code == 0
    path = _stored(demo)
    stored = path.read_bytes()
    again = _add(demo, source)
    assert again.code == 0, again.text
    assert "stored already" in again.out
    other = _add(demo, source, "--run", "another name")
    assert_clean_failure(other)
    assert "never replaced" in other.text and path.name in other.text
    assert path.read_bytes() == stored
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


def test_a_refused_import_leaves_the_registry_as_it_was(demo: Path, tmp_path: Path) -> None:
    before = snapshot(demo)
    refused = _add(demo, _lmeval(tmp_path, [*BBH, "bbh_slice_not_frozen"]))
    assert_clean_failure(refused)
    assert "nothing imported" in refused.out
    assert snapshot(demo) == before
    assert not (demo / "results").exists()


def test_a_hand_edited_row_is_caught_by_audit_and_check_at_its_line(demo: Path, tmp_path: Path) -> None:
    path = _stored_and_committed(demo, tmp_path)
    score = _lines(path)[2]["score"]
    _hand_edit(path, 3, f'"score":{json.dumps(score)}', '"score":1.0' if score != 1.0 else '"score":0.5')
    where = f"results/bbh_v2/{path.name}"
    audited = _audit(demo)
    assert audited.code == 1
    [problem] = _problems(audited, "stored_results")
    assert (problem["file"], problem["line"], problem["json_path"]) == (where, 3, "$.row_sha256")
    assert "edited" in problem["message"]
    checked = _check(demo)
    assert checked.code == 1
    found = {(p["file"], p["line"], p["message"].split(":")[0]) for p in _problems(checked, "problems")}
    assert (where, 3, "does not match the row") in found
    assert (where, 1, "stored results modified") in found  # and it is append-only


def test_a_row_for_a_fixture_the_version_does_not_have_is_caught(demo: Path, tmp_path: Path) -> None:
    path = _stored_and_committed(demo, tmp_path)
    lines = _lines(path)
    lines[3]["task_id"] = "bbh_slice_not_frozen"
    _write(path, lines)
    where = f"results/bbh_v2/{path.name}"
    audited = _audit(demo)
    assert audited.code == 1
    [problem] = _problems(audited, "stored_results")
    assert (problem["file"], problem["line"], problem["json_path"]) == (where, 4, "$.task_id")
    assert "'bbh_slice_not_frozen' is not a landed fixture of bbh_v2" in problem["message"]
    # As a new stored run that no base holds: check verifies it as it arrives.
    run_git(["rm", "-q", "--cached", str(path.relative_to(demo))], demo, DETERMINISTIC_ENV)
    commit_all(demo, "drop the stored run from the base")
    copy = path.with_name("0" * 16 + ".jsonl")
    path.rename(copy)
    checked = _check(demo)
    assert checked.code == 1
    messages = {(p["file"], p["line"], p["json_path"]): p["message"] for p in _problems(checked, "problems")}
    assert "is not a landed fixture of bbh_v2" in messages[(f"results/bbh_v2/{copy.name}", 4, "$.task_id")]


@pytest.mark.parametrize("resealed", [False, True], ids=["header-edited", "header-resealed"])
def test_a_source_hash_that_no_longer_matches_is_caught(demo: Path, tmp_path: Path, resealed: bool) -> None:
    path = _stored_and_committed(demo, tmp_path)
    lines = _lines(path)
    other = hashlib.sha256(b"another results file").hexdigest()
    if resealed:
        lines[0]["sources"][0]["sha256"] = other
        lines[0]["source_sha256"] = other
        _write(path, lines)
    else:
        _hand_edit(path, 1, lines[0]["source_sha256"], other)  # source_sha256 sorts before sources
    where = f"results/bbh_v2/{path.name}"
    for result, key in ((_audit(demo), "stored_results"), (_check(demo), "problems")):
        assert result.code == 1, result.text
        found = {(p["file"], p["line"], p["json_path"]) for p in _problems(result, key)}
        assert (where, 1, "$.source_sha256") in found, found


def test_a_stored_run_deleted_in_a_change_fails_check(demo: Path, tmp_path: Path) -> None:
    path = _stored_and_committed(demo, tmp_path)
    path.unlink()
    checked = _check(demo)
    assert checked.code == 1
    [problem] = _problems(checked, "problems")
    assert problem["file"] == f"results/bbh_v2/{path.name}" and "deleted" in problem["message"]


def test_text_output_names_the_file_and_line(demo: Path, tmp_path: Path) -> None:
    path = _stored_and_committed(demo, tmp_path)
    score = _lines(path)[1]["score"]
    _hand_edit(path, 2, f'"score":{json.dumps(score)}', '"score":0.125')
    audited = run_inprocess("audit", "--no-code", cwd=demo)
    assert_clean_failure(audited)
    assert f"results/bbh_v2/{path.name}:2: $.row_sha256:" in audited.out
    assert "1 problem(s) in stored results" in audited.out


def _trial(job: Path, task: str, reward: float) -> None:
    """A Harbor trial's result.json in <job>/<trial>/ (as tests/test_results_import.py writes it)."""
    trial = job / f"{task}__1"
    trial.mkdir(parents=True)
    document = {
        "task_name": task,
        "trial_name": trial.name,
        "task_id": {"path": f"tasks/{task}"},
        "task_checksum": "a" * 64,
        "agent_info": {"name": "terminus-2", "version": "2.0.0", "model_info": {"name": "gpt-5", "provider": "openai"}},
        "verifier_result": {"rewards": {"reward": reward}},
        "exception_info": None,
    }
    (trial / "result.json").write_text(json.dumps(document, indent=4))


def test_a_harbor_job_folder_is_stored_with_each_trial_file_by_name(demo: Path, tmp_path: Path) -> None:
    job = tmp_path / "2026-12-01__10-00-00"
    _trial(job, "count-words", 1.0)
    _trial(job, "rotate-logs", 0.0)
    args = ["--from", "harbor", str(job), "--version", "tb_v1", "--model", "gpt-5", "--harness-version", "0.26"]
    added = run_inprocess("results", "add", *args, cwd=demo)
    assert added.code == 0, added.text
    [path] = sorted((demo / "results" / "tb_v1").iterdir())
    header, *rows = _lines(path)
    names = [source["name"] for source in header["sources"]]
    assert names == [f"{job.name}/count-words__1/result.json", f"{job.name}/rotate-logs__1/result.json"]
    for source in header["sources"]:
        trial = tmp_path / source["name"]
        assert source["sha256"] == hashlib.sha256(trial.read_bytes()).hexdigest()
    assert {row["task_id"]: row["score"] for row in rows} == {"count-words": 1.0, "rotate-logs": 0.0}
    assert _audit(demo).code == 0


def test_a_results_folder_that_is_a_link_is_never_written_through(demo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (demo / "results").symlink_to(outside)
    refused = _add(demo, _lmeval(tmp_path, BBH))
    assert_clean_failure(refused)
    assert "results" in refused.err and "link" in refused.err
    assert list(outside.iterdir()) == []
    audited = _audit(demo)
    assert audited.code == 1
    [problem] = _problems(audited, "stored_results")
    assert problem["file"] == "results" and "link" in problem["message"]


def test_check_reads_only_the_stored_runs_its_change_adds_and_audit_reads_every_one(demo: Path, tmp_path: Path) -> None:
    path = _stored_and_committed(demo, tmp_path)
    _hand_edit(path, 2, '"harness":"lm-eval"', '"harness":"lm-eval "')
    commit_all(demo, "a stored run edited past the hook")
    assert _check(demo).code == 0  # the change under review (none) adds no stored run
    audited = _audit(demo)
    assert audited.code == 1
    [problem] = _problems(audited, "stored_results")
    assert (problem["line"], problem["json_path"]) == (2, "$.row_sha256")
