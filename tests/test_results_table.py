"""``freezer results table``: one table per version of the stored runs, and a cross-version table
over the comparable subset only, its size and digest above it, each excluded fixture with its reason.

The registry is tests/results_board.py's: three versions, one step moving half the fixtures. The
expected numbers are computed here from the scores the logs were written with, never read back
from freezer.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import needs_inspect, run_inprocess
from registry_helpers import commit_all, public_line, ssh_key
from results_board import MOVED, SCORES, TASKS, VALUE, build_board

pytestmark = needs_inspect


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> Path:
    return build_board(tmp_path_factory.mktemp("table"), demo_build)


def _mean(model: str, version: int, tasks: list[str]) -> float:
    values = dict(zip(TASKS, SCORES[model][version], strict=True))
    return round(sum(VALUE[values[task]] for task in tasks) / len(tasks), 6)


def _table(root: Path, *args: str) -> Any:
    shown = run_inprocess("results", "table", "--suite", "quiz", *args, cwd=root)
    assert shown.code == 0, shown.text
    assert "Traceback" not in shown.text
    return shown


def _subset_digest(root: Path, tasks: list[str]) -> str:
    """sha256 over each comparable task id and its score digest in v3, as v3's stored rows record it."""
    digests = {}
    for path in (root / "results" / "quiz_v3").iterdir():
        for line in path.read_text().splitlines()[1:]:
            row = json.loads(line)
            digests[row["task_id"]] = row["fixture_digest"]
    return hashlib.sha256("".join(f"{task} {digests[task]}\n" for task in tasks).encode()).hexdigest()


def test_cross_version_scores_are_over_the_comparable_subset_only(board: Path) -> None:
    [suite] = json.loads(_table(board, "--format", "json").out)["result"]["suites"]
    [cross] = suite["cross"]
    common = [task for task in TASKS if task not in MOVED]
    assert cross["versions"] == ["quiz_v1", "quiz_v2", "quiz_v3"]
    assert cross["subset"] == common and cross["subset_size"] == 2
    assert cross["subset_sha256"] == _subset_digest(board, common)
    assert sorted(cross["excluded"]) == sorted(MOVED)
    assert all("quiz_v3: changed" in why and why.endswith("answer") for why in cross["excluded"].values()), cross
    steps = [(step["from"], step["to"], sorted(step["excluded"])) for step in suite["steps"]]
    assert steps == [("quiz_v1", "quiz_v2", []), ("quiz_v2", "quiz_v3", sorted(MOVED))]
    scores = {row["model"]: row["scores"] for row in cross["rows"]}
    expected = {model: {f"quiz_v{v}": _mean(model, v, common) for v in (1, 2, 3)} for model in SCORES}
    assert scores == expected
    # The pooled mean over all four fixtures differs from the subset's for alpha on v3: it is never shown.
    assert _mean("mockllm/alpha", 3, TASKS) != expected["mockllm/alpha"]["quiz_v3"]


def test_each_version_table_scores_every_stored_row(board: Path) -> None:
    [suite] = json.loads(_table(board, "--format", "json").out)["result"]["suites"]
    for one in suite["versions"]:
        number = int(one["version"].rsplit("_v", 1)[1])
        assert one["status"] == "current"
        got = {
            run["model"]: (run["fixtures"], run["mean"], run["harness"], run["harness_version"]) for run in one["runs"]
        }
        assert got == {model: (4, _mean(model, number, TASKS), "inspect", "0.3.285") for model in SCORES}


def test_text_prints_the_subset_size_and_digest_above_the_table_and_each_excluded_fixture(board: Path) -> None:
    lines = _table(board).out.splitlines()
    common = [task for task in TASKS if task not in MOVED]
    title = next(i for i, line in enumerate(lines) if line.startswith("quiz_v1 → quiz_v2 → quiz_v3"))
    assert "comparable subset of 2 fixture(s)" in lines[title]
    assert _subset_digest(board, common) in lines[title]
    alpha = next(line for line in lines[title:] if line.strip().startswith("mockllm/alpha"))
    assert alpha.split()[-3:] == [f"{_mean('mockllm/alpha', v, common):.3f}" for v in (1, 2, 3)]
    excluded = [line.strip() for line in lines[title:] if line.strip().startswith(("quiz-3:", "quiz-4:"))]
    assert [line.split(":")[0] for line in excluded] == ["quiz-3", "quiz-4"]


def test_csv_and_markdown_carry_the_same_numbers(board: Path) -> None:
    common = [task for task in TASKS if task not in MOVED]
    rows = list(csv.DictReader(io.StringIO(_table(board, "--format", "csv").out)))
    cross = {(r["model"], r["version"]): r["mean"] for r in rows if r["table"] == "cross"}
    assert cross[("mockllm/beta", "quiz_v2")] == f"{_mean('mockllm/beta', 2, common):.3f}"
    assert {r["task_id"] for r in rows if r["table"] == "excluded"} == MOVED
    assert {r["subset_size"] for r in rows if r["table"] != "version"} == {"2"}
    markdown = _table(board, "--format", "markdown").out
    assert "| model | harness | quiz_v1 | quiz_v2 | quiz_v3 |" in markdown


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")
def test_a_yanked_version_is_marked_and_never_pooled_a_deprecated_one_flagged(board: Path, tmp_path: Path) -> None:
    root = tmp_path / "demo"
    shutil.copytree(board, root, symlinks=True)
    key = ssh_key(tmp_path / "alice")
    (root / "allowed_signers").write_text(f"alice@example.org {public_line(key)}\n")
    commit_all(root, "allowed signers")
    signed = ["--key", str(key)]
    assert run_inprocess("yank", "quiz_v1", "--reason", "answers leaked", *signed, cwd=root).code == 0
    assert run_inprocess("deprecate", "quiz_v2", "--superseded-by", "quiz_v3", *signed, cwd=root).code == 0
    [suite] = json.loads(_table(root, "--format", "json").out)["result"]["suites"]
    status = {one["version"]: (one["status"], one["reason"]) for one in suite["versions"]}
    assert status == {"quiz_v1": ("yanked", "answers leaked"), "quiz_v2": ("deprecated", "quiz_v3"),
                      "quiz_v3": ("current", None)}  # fmt: skip
    [cross] = suite["cross"]
    assert cross["versions"] == ["quiz_v2", "quiz_v3"] and cross["left_out"] == {"quiz_v1": "yanked (answers leaked)"}
    text = _table(root).out
    assert "quiz_v1: YANKED (answers leaked), its scores are never pooled" in text
    assert "quiz_v2: deprecated, superseded by quiz_v3" in text


def test_a_hand_edited_stored_row_shows_its_problem_and_no_number(board: Path, tmp_path: Path) -> None:
    root = tmp_path / "demo"
    shutil.copytree(board, root, symlinks=True)
    stored = sorted((root / "results" / "quiz_v3").iterdir())[0]
    lines = stored.read_text().splitlines()
    edited = (
        lines[1].replace('"score":0.0', '"score":1.0')
        if '"score":0.0' in lines[1]
        else lines[1].replace('"score":1.0', '"score":0.0')
    )
    assert edited != lines[1]
    lines[1] = edited
    stored.write_text("\n".join(lines) + "\n")
    shown = run_inprocess("results", "table", "--suite", "quiz", cwd=root)
    assert shown.code == 1 and "Traceback" not in shown.text
    assert f"{stored.relative_to(root)}:2" in shown.out and "row_sha256" in shown.out
    assert "comparable subset" not in shown.out
