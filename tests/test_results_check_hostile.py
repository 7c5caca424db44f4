"""Issue 23, class 9: hostile results files for ``freezer results check``.

The cases are data (tests/hostile/results_cases.py and results_files/): each
names the exit code and one line the output must hold. Every refusal is
``file:line:col: $.path: message``; no quoted value is longer than a short
excerpt; the file is streamed, so a million rows take seconds and little memory.
"""

from __future__ import annotations

import copy
import json
import os
import re
import resource
import shutil
import subprocess
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from hostile import results_cases

from freezer.schema.resultrow import is_row, row_problems

from conftest import REPO, run_inprocess

# Slow (a hostile corpus): CI runs it; `pytest -m slow` runs it here.
pytestmark = pytest.mark.slow

MEMORY_LIMIT = 1 << 30
LONGEST_LINE = 400  # no line of output may quote a value at length


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> Path:
    root = tmp_path_factory.mktemp("r3results") / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    return root


@pytest.fixture(scope="module")
def three(tmp_path_factory: pytest.TempPathFactory, demo: Path) -> Path:
    """The demo plus graph_v3, a copy of v2 with one fixture's question changed: for the grep-only
    arm that fixture cannot be pooled across v2 and v3, and the others can."""
    root = tmp_path_factory.mktemp("r3results3") / "demo"
    shutil.copytree(demo, root, symlinks=True)
    assert run_inprocess("next", "--suite", "graph", cwd=root).code == 0
    version = root / "drafts/graph/version.yaml"
    version.write_text(re.sub(r"# TODO\(freezer next\).*\n", "", version.read_text()))
    fixture = root / "drafts/graph/fixtures/callers-run-deterministic-containers.yaml"
    fixture.write_text(fixture.read_text().replace("Which functions call", "Which functions do call"))
    cut = run_inprocess("cut", "v3", "--suite", "graph", cwd=root)
    assert cut.code == 0, cut.text
    return root


def _sha(root: Path, name: str = "graph_v2") -> str:
    import freezer

    return freezer.load(name, registry=root).manifest_sha256


CASES = results_cases.cases()


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_each_hostile_results_file_gets_its_one_clear_answer(
    case: results_cases.ResultsCase, demo: Path, tmp_path: Path
) -> None:
    path = case.build(tmp_path, _sha(demo))
    text = run_inprocess("results", "check", str(path), cwd=demo)
    lines = (text.out + text.err).splitlines()
    assert text.code == case.code, text.out + text.err
    assert case.expected.replace("{file}", str(path)) in lines, "\n".join(lines[:5])
    assert "Traceback" not in text.err and "internal error" not in text.err
    assert max(len(line) for line in lines) < LONGEST_LINE
    # The same answer as JSON: valid (never NaN), the same verdict, the same count of problems.
    as_json = run_inprocess("results", "check", str(path), "--format", "json", cwd=demo)
    assert as_json.code == case.code
    document = json.loads(as_json.out)
    assert document["ok"] is (case.code == 0)
    if case.code == 1:
        result = document["result"]
        shown = sum(line.startswith(str(path)) for line in lines)
        assert len(result["problems"]) + result["problems_not_shown"] >= shown
        assert all(p["line"] is None or p["col"] >= 1 for p in result["problems"])


def test_the_corpus_in_one_process_under_a_memory_limit(demo: Path, tmp_path: Path) -> None:
    """Every file case at once, as a user would run it, in a process limited to 1 GiB."""
    sha = _sha(demo)
    built = []
    for case in results_cases.cases():
        if case.code == 1:
            folder = tmp_path / case.id
            folder.mkdir()
            built.append((case, case.build(folder, sha)))
    proc = _limited(["results", "check", *(str(path) for _, path in built)], demo)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr and "Exception" not in proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1].startswith("✗ ") and "problem(s) in" in lines[-1]
    # Two hundred problems are shown: the first cases' lines are among them.
    for case, path in built[:20]:
        assert case.expected.replace("{file}", str(path)) in lines


def _limited(args: list[str], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("FREEZER_DEBUG", None)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    return subprocess.run(
        [sys.executable, "-m", "freezer", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        preexec_fn=limit,
        timeout=timeout,
    )


# Linux carries a process's RSS high-water mark across exec: a child forked from this (large)
# pytest worker would report the worker's size. So a small launcher spawns the CLI (posix_spawn
# shares the launcher's memory, not the worker's) and reports that child's own peak.
_LAUNCHER = """
import os, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]), int(sys.argv[1])))
pid = os.posix_spawn(sys.argv[3], sys.argv[3:], os.environ)
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[2], "w") as report:
    report.write(f"{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss}")
"""


def _peak_kib(args: list[str], cwd: Path, out: Path) -> tuple[int, str, int]:
    """Run the CLI limited to 1 GiB, its output to ``out``; (exit code, output, its own peak RSS in KiB)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("FREEZER_DEBUG", None)
    report = out.with_suffix(".peak")
    with out.open("wb") as sink:
        launcher = [sys.executable, "-c", _LAUNCHER, str(MEMORY_LIMIT), str(report)]
        subprocess.run(
            [*launcher, sys.executable, "-m", "freezer", *args],
            cwd=cwd,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            check=True,
        )
    code, peak = (int(n) for n in report.read_text().split())
    return code, out.read_text(), peak


# Slow lane: its point is size (tens of seconds of the default lane's wall on two cores).
@pytest.mark.slow
def test_a_million_empty_objects_stream_in_bounded_memory(demo: Path, tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("{}\n" * 1_000_000)
    code, output, peak = _peak_kib(["results", "check", str(path)], demo, tmp_path / "out")
    assert code == 1, output
    lines = output.splitlines()
    assert lines[-1] == "✗ 4000000 problem(s) in 1 file(s)"
    assert lines[-2] == "  … and 3999800 more problem(s), not shown"
    assert lines[0] == f"{path}:1:1: $: missing required field 'manifest_sha256'"
    assert peak < 200 * 1024  # KiB; it was a MemoryError at 1 GiB


@pytest.mark.slow
def test_a_million_valid_rows_stream_in_bounded_memory(demo: Path, tmp_path: Path) -> None:
    row = {"manifest_sha256": _sha(demo), "task_id": "locate-loopaudit-variants", "arm": "grep-only", "score": 1}
    path = tmp_path / "valid.jsonl"
    with path.open("w") as out:
        line = json.dumps(row) + "\n"
        for _ in range(100):
            out.write(line * 10_000)
    code, output, peak = _peak_kib(["results", "check", str(path), "-f", "json"], demo, tmp_path / "out")
    assert code == 0, output
    result = json.loads(output)["result"]
    assert result["rows"] == 1_000_000
    assert result["runs"][0]["fixtures"] == 1_000_000
    assert peak < 200 * 1024  # KiB: the 170 MB file is never held


def test_locating_many_long_refused_lines_stays_linear(demo: Path, tmp_path: Path) -> None:
    """Each kept refusal is located by a second walk; the walk steps over what the C scanner reads
    whole, and a line past the kept problems is not walked at all."""
    row = {"manifest_sha256": _sha(demo), "task_id": "locate-loopaudit-variants", "arm": "grep-only", "score": 1}
    line = json.dumps({**row, "x": [[0]] * 10_000})[:-1] + ', "score": 0}\n'  # ~50 kB, a key given twice
    path = tmp_path / "long.jsonl"
    path.write_text(line * 60)
    # Counted, not timed: each row costs a few dozen calls into the parser, where walking into the
    # 10,000-item list would cost over 10,000 per row.
    calls = 0

    def count(frame: FrameType, event: str, arg: object) -> None:
        nonlocal calls
        if event == "call" and frame.f_code.co_filename.endswith("strictjson.py"):
            calls += 1

    sys.setprofile(count)
    try:
        result = run_inprocess("results", "check", str(path), cwd=demo)
    finally:
        sys.setprofile(None)
    assert 0 < calls < 100 * 60
    lines = result.out.splitlines()
    assert lines[-1] == "✗ 60 problem(s) in 1 file(s)"
    assert lines[0].startswith(f"{path}:1:") and "$.score: key 'score' is given twice" in lines[0]


def test_a_line_separator_inside_a_row_does_not_split_it(demo: Path, tmp_path: Path) -> None:
    """JSON Lines ends a line at LF only: U+2028, U+2029, NEL, VT, FF or a file separator inside
    a string are characters of the row (or, raw controls, an error at their column), never a new line."""
    row = {"manifest_sha256": _sha(demo), "task_id": "locate-loopaudit-variants", "arm": "grep-only", "score": 1}
    path = tmp_path / "seps.jsonl"
    lines = [json.dumps({**row, "run": f"m{n}", "note": f"a{sep}b"}, ensure_ascii=False) for n, sep in
             enumerate(["\u2028", "\u2029", "\u0085"])]  # fmt: skip
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run_inprocess("results", "check", str(path), "--format", "json", cwd=demo)
    assert result.code == 0, result.out
    report = json.loads(result.out)["result"]
    assert report["rows"] == 3 and {run["run"] for run in report["runs"]} == {"m0", "m1", "m2"}
    raw = tmp_path / "raw.jsonl"
    raw.write_bytes(b"\n".join(line.encode().replace(b"\xe2\x80\xa8", b"\x0b") for line in lines[:1]) + b"\n")
    refused = run_inprocess("results", "check", str(raw), cwd=demo)
    assert refused.code == 1 and f"{raw}:1:" in refused.out and "Invalid control character" in refused.out


def test_pooling_refused_totals_each_run_on_the_common_subset(three: Path, tmp_path: Path) -> None:
    """When fixtures must be left out, the files are read a second time to total each run on the
    subset; the totals must be those of the rows on that subset, interleaved as they may be."""
    import freezer

    demo = three
    v2, v3 = _sha(demo, "graph_v2"), _sha(demo, "graph_v3")
    subset = set(freezer.comparable("graph_v2", "graph_v3", arm="grep-only", registry=demo).fixtures)
    landed = {
        "graph_v2": [f["task_id"] for f in freezer.load("graph_v2", registry=demo).landed],
        "graph_v3": [f["task_id"] for f in freezer.load("graph_v3", registry=demo).landed],
    }
    rows = []
    for n in range(3):
        for version, sha in (("graph_v2", v2), ("graph_v3", v3)):
            for i, task in enumerate(landed[version]):
                score = ((n + i) % 4) / 4
                rows.append({"manifest_sha256": sha, "task_id": task, "arm": "grep-only", "score": score,
                             "run": f"seed{n}", "version": version})  # fmt: skip
    rows.reverse()
    path = tmp_path / "mixed.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = run_inprocess("results", "check", str(path), "--format", "json", cwd=demo)
    report = json.loads(result.out)["result"]
    assert report["pooled_refused"] is True and result.code == 1
    assert set(report["common"]["grep-only"]) == subset & set(landed["graph_v2"]) & set(landed["graph_v3"])
    common = set(report["common"]["grep-only"])
    assert common and report["excluded"]["grep-only"]  # some rows on each side of the line
    assert list(report["excluded"]["grep-only"]) == ["callers-run-deterministic-containers"]
    assert {run["version"] for run in report["runs"]} == {"graph_v2", "graph_v3"}
    for run in report["runs"]:
        members = [r["score"] for r in rows if r["version"] == run["version"] and r["run"] == run["run"]
                   and r["task_id"] in common]  # fmt: skip
        assert (run["fixtures"], run["passed"]) == (len(members), sum(s >= 1 for s in members))
        assert run["mean"] == round(sum(members) / len(members), 6)


def test_booleans_are_scores_as_documented(demo: Path, tmp_path: Path) -> None:
    """The README and the schema allow true/false as a score (1 and 0): kept, and counted so."""
    row = {"manifest_sha256": _sha(demo), "task_id": "locate-loopaudit-variants", "arm": "grep-only"}
    path = tmp_path / "bools.jsonl"
    path.write_text(json.dumps({**row, "score": True}) + "\n" + json.dumps({**row, "score": False}) + "\n")
    report = json.loads(run_inprocess("results", "check", str(path), "-f", "json", cwd=demo).out)["result"]
    assert report["runs"][0]["passed"] == 1 and report["runs"][0]["mean"] == 0.5


def test_every_path_must_exist_before_anything_is_read(demo: Path, tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text("{}\n")
    result = run_inprocess("results", "check", str(good), str(tmp_path / "gone.jsonl"), "-f", "json", cwd=demo)
    assert result.code == 2
    document = json.loads(result.out)
    assert document["exit_code"] == 2 and document["error"]["message"].endswith("gone.jsonl: file not found")


# The row check against the schema it stands for.
VALID = {
    "manifest_sha256": "a" * 64,
    "task_id": "t",
    "arm": "grep-only",
    "score": 0.5,
    "run": "m1",
    "fixture_digest": "b" * 64,
}
VALUES: list[Any] = [
    *(None, True, False, 0, 1, -1, 0.5, 1.5, 2, -0.0, "", "x", "1", [], {}, [1]),
    *("t" * 120, "t" * 121, "r" * 200, "r" * 201, "a" * 64, "A" * 64, "a" * 63, "grep-only", "Grep", "g" * 61),
]


def _mutations() -> list[dict[str, Any]]:
    rows: list[Any] = [VALID, {}, [], "row", 1, None]
    for key in VALID:
        removed = dict(VALID)
        del removed[key]
        rows.append(removed)
        for value in VALUES:
            changed = copy.deepcopy(VALID)
            changed[key] = value
            rows.append(changed)
    rows.append({**VALID, "extra": {"nested": [1, 2]}})
    return rows


def test_the_row_check_decides_as_the_schema_does() -> None:
    import jsonschema

    from freezer.runtime import resources

    validator = jsonschema.Draft202012Validator(resources.schema("results"))
    rows = _mutations()
    assert len(rows) > 150
    for row in rows:
        problems = row_problems(row)
        assert is_row(row) == (not problems), row
        assert is_row(row) == validator.is_valid(row), row
        for path, message in problems:
            assert len(message) < 200 and all(isinstance(part, (str, int)) for part in path)


def test_where_the_row_check_is_stricter_than_pythons_jsonschema() -> None:
    """ECMA-262's ``$`` (JSON Schema's) ends the value; Python's also matches before a final newline.
    And a run name is printed, so it may not hold a control, bidi or separator character."""
    import jsonschema

    from freezer.runtime import resources

    validator = jsonschema.Draft202012Validator(resources.schema("results"))
    for row in (
        {**VALID, "arm": "grep-only\n"},
        {**VALID, "manifest_sha256": "a" * 64 + "\n"},
        {**VALID, "fixture_digest": "b" * 64 + "\n"},
        {**VALID, "run": "m\x1b[2J"},
        {**VALID, "run": "m\u202e"},
        {**VALID, "run": "m\ud800"},
    ):
        assert validator.is_valid(row) and not is_row(row) and row_problems(row), row
