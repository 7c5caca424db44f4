"""A harness's results file cannot flood the terminal or take quadratic time (issue 34, items 4 and 9).

Every message quotes at most an excerpt of a value from the file, the problems printed are capped
with the rest counted, and each problem still names the line and column of its value.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_results_import import BBH, TB, _lmeval, _trial

from conftest import run_inprocess

HUGE = "x" * 200_000
MAX_LINE = 600  # a problem's line: the file, the place, the message and at most excerpts of values


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> Path:
    root = tmp_path_factory.mktemp("floods") / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    return root


def _refused(demo: Path, harness: str, path: Path, version: str, *args: str) -> str:
    result = run_inprocess("results", "import", "--from", harness, str(path), "--version", version, *args, cwd=demo)
    assert result.code == 1, result.out[:2000] + result.err[:2000]
    assert "Traceback" not in result.err
    return result.out


def _rewritten(path: Path, change: dict[str, object]) -> Path:
    data = json.loads(path.read_text())
    for dotted, value in change.items():
        *parents, last = dotted.split("|")
        node = data
        for key in parents:
            node = node[key]
        node[last] = value
    path.write_text(json.dumps(data, indent=2))
    return path


@pytest.mark.parametrize(
    "change",
    [
        {f"versions|{BBH[0]}": HUGE},
        {f"n-shot|{BBH[0]}": HUGE},
        {f"configs|{BBH[0]}|dataset_path": HUGE},
        {f"n-samples|{BBH[0]}|effective": HUGE},
        {"config|limit": HUGE, f"n-samples|{BBH[0]}": None},
        {f"results|{BBH[0]}|exact_match,final-answer": HUGE},
        {f"results|{BBH[0]}": {f"metric_{n}{HUGE[:50]}": 1.0 for n in range(2000)}},
    ],
    ids=["version", "n-shot", "config", "n-samples", "limit", "metric-value", "metric-names"],
)
def test_lmeval_messages_quote_an_excerpt_of_a_value(demo: Path, tmp_path: Path, change: dict[str, object]) -> None:
    path = _rewritten(_lmeval(tmp_path, BBH[:1]), change)
    out = _refused(demo, "lm-eval", path, "bbh_v2")
    assert f"{path}:" in out
    assert max(map(len, out.splitlines())) < MAX_LINE, max(map(len, out.splitlines()))
    assert len(out) < 3 * MAX_LINE


def test_lmeval_task_hashes_of_a_huge_value_are_quoted_as_an_excerpt(demo: Path, tmp_path: Path) -> None:
    first = _lmeval(tmp_path, BBH[:1], name="a.json", task_hashes={BBH[0]: HUGE})
    second = _lmeval(tmp_path, BBH[:1], name="b.json", task_hashes={BBH[0]: "y" + HUGE})
    result = run_inprocess("results", "import", "--from", "lm-eval", str(first), str(second), "--version", "bbh_v2",
                           cwd=demo)  # fmt: skip
    assert result.code == 1
    assert "two different tasks" in result.out and max(map(len, result.out.splitlines())) < MAX_LINE


def test_harbor_reward_keys_on_one_line_are_listed_as_an_excerpt(demo: Path, tmp_path: Path) -> None:
    trial = _trial(tmp_path / "job", TB[0], 1.0)
    data = json.loads(trial.read_text())
    data["verifier_result"]["rewards"] = {f"reward_{n:05}": 1.0 for n in range(20_000)}
    trial.write_text(json.dumps(data))  # one line of about 360 KB
    out = _refused(demo, "harbor", trial, "tb_v1")
    assert "count-words has several rewards (reward_00000" in out and "reward_00000" in out and "more" in out
    assert max(map(len, out.splitlines())) < MAX_LINE
    data["verifier_result"]["rewards"] = {"reward": HUGE}
    trial.write_text(json.dumps(data))
    out = _refused(demo, "harbor", trial, "tb_v1")
    assert "is no score from 0 to 1" in out and max(map(len, out.splitlines())) < MAX_LINE


def test_lmeval_many_unknown_tasks_print_a_capped_count_each_at_its_line(demo: Path, tmp_path: Path) -> None:
    from freezer.runtime.limits import MAX_RESULT_PROBLEMS

    unknown = [f"task_{n:05}" for n in range(MAX_RESULT_PROBLEMS + 400)]
    path = _lmeval(tmp_path, unknown)
    out = _refused(demo, "lm-eval", path, "bbh_v2")
    lines = out.splitlines()
    assert len(lines) < MAX_RESULT_PROBLEMS + 10, len(lines)
    assert "and 400 more problem(s), not shown" in out
    text = path.read_text().splitlines()
    for task in (unknown[0], unknown[MAX_RESULT_PROBLEMS // 2], unknown[MAX_RESULT_PROBLEMS - 1]):
        shown = next(line for line in lines if f"$.results.{task}:" in line)
        place = shown.split(": $.results.")[0].removeprefix(f"{path}:")
        row, col = map(int, place.split(":"))
        assert text[row - 1][col - 1 :].startswith("{") and f'"{task}"' in text[row - 1], (shown, text[row - 1])
    as_json = run_inprocess("results", "import", "--from", "lm-eval", str(path), "--version", "bbh_v2",
                            "--format", "json", cwd=demo)  # fmt: skip
    result = json.loads(as_json.out)["result"]
    assert len(result["problems"]) == MAX_RESULT_PROBLEMS and result["problems_not_shown"] == 400
