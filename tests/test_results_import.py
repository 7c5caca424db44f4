"""Issue 28, item 4: ``freezer results import --from lm-eval|inspect|harbor`` and ``results check --from``.

Each harness's file is written here in its own format, as its project documents it (lm-eval's
results JSON, Inspect's EvalLog written by Inspect itself, Harbor's trial result.json), against a
real registry from ``freezer demo``: bbh (lm-eval), swe (records), tb (folders).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import needs_inspect, run_inprocess

BBH = ["bbh_slice_boolean_logic", "bbh_slice_item_tally", "bbh_slice_calendar_steps"]
SWE = ["toyshop__cart-101", "toyshop__cart-102", "toyshop__ledger-7"]
TB = ["count-words", "rotate-logs", "fix-csv-header"]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> Path:
    root = tmp_path_factory.mktemp("harness") / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    return root


def _config(task: str) -> dict[str, Any]:
    return {"task": task, "dataset_path": "freezer-examples/bbh-slice", "test_split": "test",
            "output_type": "generate_until", "num_fewshot": 0}  # fmt: skip


def _lmeval(folder: Path, tasks: list[str], *, version: object = 1.0, name: str = "results.json", **extra: Any) -> Path:
    """lm-eval's results JSON: results (tasks and the group), groups, versions, configs, n-shot, n-samples."""
    results: dict[str, Any] = {"bbh_slice": {"alias": "bbh_slice", "exact_match,final-answer": 0.5}}
    for i, task in enumerate(tasks):
        results[task] = {"alias": f" - {task}", "exact_match,final-answer": [1.0, 0.25, 0.0][i % 3],
                         "exact_match_stderr,final-answer": 0.1}  # fmt: skip
    document = {
        "results": results,
        "groups": {"bbh_slice": results["bbh_slice"]},
        "group_subtasks": {"bbh_slice": tasks},
        "configs": {t: _config(t) for t in tasks},
        "versions": {"bbh_slice": 1.0, **{t: version for t in tasks}},
        "n-shot": {t: 0 for t in tasks},
        "n-samples": {t: {"original": 20, "effective": 20} for t in tasks},
        "config": {"model": "hf", "model_args": "pretrained=EleutherAI/pythia-160m", "limit": None},
        "git_hash": "4f5e6d7",
        "date": 1764583200.0,
        "model_name": "EleutherAI/pythia-160m",
        **extra,
    }
    path = folder / name
    path.write_text(json.dumps(document, indent=2))
    return path


def _inspect(folder: Path, scores: dict[str, str], *, task_version: int | str = 1, suffix: str = ".eval") -> Path:
    """An eval log written by Inspect's own writer."""
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSample, EvalSpec, write_eval_log
    from inspect_ai.scorer import Score

    spec = EvalSpec(created="2026-12-01T10:00:00+00:00", task="swe_slice", task_version=task_version,
                    dataset=EvalDataset(name="swe", samples=len(scores)), model="mockllm/model",
                    config=EvalConfig(), run_id="run1")  # fmt: skip
    samples = [EvalSample(id=i, epoch=1, input="fix it", target="", scores={"match": Score(value=v)})
               for i, v in scores.items()]  # fmt: skip
    path = folder / f"log{suffix}"
    write_eval_log(EvalLog(eval=spec, samples=samples, status="success"), str(path))
    return path


def _trial(job: Path, task: str, reward: float | None, *, checksum: str = "a" * 64, n: int = 1) -> Path:
    """A Harbor trial's result.json in jobs/<job>/<trial>/."""
    trial = job / f"{task}__{n}"
    trial.mkdir(parents=True)
    document = {
        "id": "6f1c2a9e-0000-4000-8000-00000000000" + str(n),
        "task_name": task,
        "trial_name": trial.name,
        "trial_uri": trial.as_uri(),
        "task_id": {"path": f"tasks/{task}"},
        "source": "tb",
        "task_checksum": checksum,
        "config": {"trials_dir": str(job), "timeout_multiplier": 1.0},
        "agent_info": {"name": "terminus-2", "version": "2.0.0", "model_info": {"name": "gpt-5", "provider": "openai"}},
        "verifier_result": None if reward is None else {"rewards": {"reward": reward}},
        "exception_info": None if reward is not None else {"exception_type": "AgentTimeoutError",
                                                           "exception_message": "timed out",
                                                           "exception_traceback": "", "occurred_at": "2026-12-01"},
        "started_at": "2026-12-01T10:00:00",
        "finished_at": "2026-12-01T10:05:00",
    }  # fmt: skip
    path = trial / "result.json"
    path.write_text(json.dumps(document, indent=4))
    return path


def _round_trip(demo: Path, tmp_path: Path, harness: str, files: list[Path], version: str, count: int) -> None:
    import jsonschema

    from freezer.runtime import resources

    out = tmp_path / "rows.jsonl"
    args = ["--from", harness, *map(str, files), "--version", version]
    made = run_inprocess("results", "import", *args, "--out", str(out), cwd=demo)
    assert made.code == 0, made.out + made.err
    assert "Traceback" not in made.err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == count
    validator = jsonschema.Draft202012Validator(resources.schema("results"))
    import freezer

    frozen = freezer.load(version, registry=demo)
    for row in rows:
        assert validator.is_valid(row), row
        assert row["manifest_sha256"] == frozen.manifest_sha256 and row["harness"] == harness
        assert row["fixture_digest"] == frozen.fixture_digest(row["task_id"])
    checked = run_inprocess("results", "check", str(out), "--format", "json", cwd=demo)
    assert checked.code == 0, checked.out
    assert json.loads(checked.out)["result"]["rows"] == count
    direct = run_inprocess("results", "check", *args, "--format", "json", cwd=demo)
    assert direct.code == 0, direct.out
    assert json.loads(direct.out)["result"]["runs"] == json.loads(checked.out)["result"]["runs"]


def _refused(demo: Path, harness: str, files: list[Path], version: str, *expected: str) -> None:
    for command in ("import", "check"):
        result = run_inprocess("results", command, "--from", harness, *map(str, files), "--version", version, cwd=demo)
        assert result.code == 1, result.out + result.err
        assert "Traceback" not in result.err and "internal error" not in result.err
        for text in expected:
            assert text in result.out, result.out
        if command == "import":
            assert "nothing imported" in result.out and '"manifest_sha256"' not in result.out


def test_lmeval_round_trip_skips_the_group(demo: Path, tmp_path: Path) -> None:
    path = _lmeval(tmp_path, BBH, task_hashes={t: f"{n:064x}" for n, t in enumerate(BBH)})
    _round_trip(demo, tmp_path, "lm-eval", [path], "bbh_v2", len(BBH))
    rows = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()]
    assert {r["task_id"] for r in rows} == set(BBH) and "bbh_slice" not in {r["task_id"] for r in rows}
    assert {r["score"] for r in rows} == {1.0, 0.25, 0.0}
    assert {r["run"] for r in rows} == {"EleutherAI/pythia-160m 2025-12-01T10:00:00Z"}


def test_lmeval_refusals_name_both_values_and_the_place(demo: Path, tmp_path: Path) -> None:
    wrong = _lmeval(tmp_path, BBH[:2], version=2.0)
    _refused(demo, "lm-eval", [wrong], "bbh_v2",
             f"{wrong}:", "$.versions.bbh_slice_boolean_logic: bbh_slice_boolean_logic ran at version 2.0; "
             "bbh_v2 froze it at version 1.0")  # fmt: skip
    unknown = _lmeval(tmp_path, ["bbh_slice_boolean_logic", "bbh_slice_word_sorting"], name="unknown.json")
    _refused(demo, "lm-eval", [unknown], "bbh_v2", "'bbh_slice_word_sorting' names no landed fixture of bbh_v2")
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "results": {\n    "bbh_slice_boolean_logic": {"exact_match,none": 1.0,}\n  }\n}\n')
    _refused(demo, "lm-eval", [broken], "bbh_v2", f"{broken}:3:57: $: not JSON")
    limited = _lmeval(tmp_path, BBH[:1], name="limited.json")
    data = json.loads(limited.read_text())
    data["n-samples"][BBH[0]]["effective"] = 5
    limited.write_text(json.dumps(data, indent=2))
    _refused(demo, "lm-eval", [limited], "bbh_v2", "scored 5 of its 20 samples (--limit)")


def test_lmeval_two_runs_of_one_task_with_different_hashes_are_refused(demo: Path, tmp_path: Path) -> None:
    first = _lmeval(tmp_path, BBH[:1], name="a.json", task_hashes={BBH[0]: "1" * 64})
    second = _lmeval(tmp_path, BBH[:1], name="b.json", task_hashes={BBH[0]: "2" * 64})
    _refused(demo, "lm-eval", [first, second], "bbh_v2", f"content hash {'2' * 64}, but {first} ran it with {'1' * 64}")


@needs_inspect
def test_inspect_round_trip_in_both_log_formats(demo: Path, tmp_path: Path) -> None:
    for suffix in (".eval", ".json"):
        folder = tmp_path / suffix.strip(".")
        folder.mkdir()
        path = _inspect(folder, {SWE[0]: "C", SWE[1]: "I", SWE[2]: "P"}, suffix=suffix)
        _round_trip(demo, folder, "inspect", [path], "swe_v1", 3)
        rows = [json.loads(line) for line in (folder / "rows.jsonl").read_text().splitlines()]
        assert {r["task_id"]: r["score"] for r in rows} == {SWE[0]: 1.0, SWE[1]: 0.0, SWE[2]: 0.5}


@needs_inspect
def test_inspect_refusals(demo: Path, tmp_path: Path) -> None:
    (tmp_path / "v").mkdir()
    versioned = _inspect(tmp_path / "v", {SWE[0]: "C"}, task_version=4)
    _refused(demo, "inspect", [versioned], "swe_v1", "swe_slice ran at task version 4; the frozen version is swe_v1")
    (tmp_path / "u").mkdir()
    unknown = _inspect(tmp_path / "u", {SWE[0]: "C", "toyshop__cart-999": "I"})
    _refused(demo, "inspect", [unknown], "swe_v1", "'toyshop__cart-999' names no landed fixture of swe_v1")
    broken = tmp_path / "broken.json"
    broken.write_text('{"version": 2,\n "status": "success",\n "eval": {"task": }\n}\n')
    _refused(demo, "inspect", [broken], "swe_v1", f"{broken}:3:19: $: not JSON")


def test_harbor_round_trip_from_a_job_folder_and_from_trials(demo: Path, tmp_path: Path) -> None:
    job = tmp_path / "jobs" / "2026-12-01__10-00-00"
    trials = [_trial(job, task, reward) for task, reward in zip(TB, [1.0, 0.0, 1.0], strict=True)]
    trials.append(_trial(job, TB[1], 1.0, n=2))  # a second attempt: averaged with the first
    (job / "result.json").write_text(json.dumps({"id": "job", "n_total_trials": 4, "stats": {}}))
    _round_trip(demo, tmp_path, "harbor", [job], "tb_v1", 3)
    rows = {r["task_id"]: r for r in map(json.loads, (tmp_path / "rows.jsonl").read_text().splitlines())}
    assert rows[TB[1]]["score"] == 0.5 and rows[TB[0]]["harness_hash"] == "a" * 64
    assert rows[TB[0]]["run"] == "terminus-2 gpt-5 2026-12-01__10-00-00"
    _round_trip(demo, tmp_path, "harbor", trials[:2], "tb_v1", 2)


def test_harbor_refusals(demo: Path, tmp_path: Path) -> None:
    job = tmp_path / "job"
    unknown = _trial(job, "count-lines", 1.0)
    _refused(demo, "harbor", [unknown], "tb_v1", f"{unknown}:3:18: $.task_name: 'count-lines' names no landed fixture")
    first, second = _trial(job, TB[0], 1.0, n=1), _trial(job, TB[0], 1.0, checksum="b" * 64, n=2)
    _refused(demo, "harbor", [first, second], "tb_v1", f"but {first} ran it with {'a' * 64}: two different tasks")
    failed = _trial(job, TB[2], None)
    _refused(demo, "harbor", [failed], "tb_v1", "has no reward (the trial raised AgentTimeoutError)")
    broken = tmp_path / "result.json"
    broken.write_text('{"task_name": "count-words",\n "verifier_result": {"rewards": {"reward": NaN}}}\n')
    _refused(demo, "harbor", [broken], "tb_v1", f"{broken}:2:44: $.verifier_result.rewards.reward: NaN is not JSON")


def test_usage_errors_exit_2(demo: Path, tmp_path: Path) -> None:
    path = _lmeval(tmp_path, BBH[:1])
    for args, text in (
        (["import", "--from", "lm-eval", str(path)], "needs --version"),
        (["import", "--from", "lm-eval", str(path), "--version", "bbh_v9"], "names no frozen version"),
        (["import", "--from", "helm", str(path), "--version", "bbh_v2"], "no harness freezer reads"),
        (["import", "--from", "lm-eval", str(path), "--version", "graph_v2"], "name the one that ran with --arm"),
        (["check", str(path), "--version", "bbh_v2"], "give --from too"),
        (["check", "--from", "lm-eval", str(tmp_path / "gone.json"), "--version", "bbh_v2"], "file not found"),
    ):
        result = run_inprocess("results", *args, cwd=demo)
        assert result.code == 2, (args, result.out, result.err)
        assert text in result.err + result.out and "Traceback" not in result.err
