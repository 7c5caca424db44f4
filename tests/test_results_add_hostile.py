"""Issue 37: hostile results files never crash, hang or write outside the registry through
``freezer results add`` (tests/hostile/results_add_cases.py: the ``results check`` corpus spliced into
lm-eval's and Harbor's files, links out of the registry, Inspect archives with zip bombs and
traversing member names).

Each case runs the real CLI in a process of its own (forked from the tests' fork server), under an
address-space limit and a timeout, on a copy of ``freezer demo``'s registry (a git repository with
stored runs), beside a folder outside it that holds a file and a link. ``add`` must end with the
case's exit code, never 3 and never a traceback; refused, it names one problem and leaves every
byte and link of the registry, the outside folder and the inputs as they were. Accepted, it adds
exactly one regular file, in ``results/<version>/``, which ``results table``, ``check`` and
``audit`` then read without a problem.
"""

from __future__ import annotations

import json
import re
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest
from hostile import results_add_cases
from hostile.results_add_cases import OUTSIDE_NAME, AddCase
from hostile.treestate import tree_state

from conftest import Run, run_forked

# Slow (148 cases, each a forked process): CI runs it; `pytest -m slow` runs it here.
pytestmark = pytest.mark.slow

MEMORY_LIMIT = 1 << 30
TIME_LIMIT = 60.0
STORED = re.compile(r"results/(?P<version>[a-z0-9_]+_v[0-9]+)/[0-9a-f]{16}\.jsonl")

CASES = results_add_cases.cases()


def _param(case: AddCase) -> Any:
    marks = [pytest.mark.slow] if case.slow else []
    return pytest.param(case, id=case.id, marks=marks)


@pytest.fixture(scope="module")
def demo_once(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> Path:
    root = tmp_path_factory.mktemp("addhostile") / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    return root


def _run(case: AddCase, *args: str, cwd: Path) -> Run:
    ran = run_forked(*args, cwd=cwd, env={"NO_COLOR": "1"}, memory_limit=MEMORY_LIMIT, timeout=TIME_LIMIT)
    assert ran.code != 3 and ran.code >= 0, f"freezer {' '.join(args)}: exit {ran.code}\n{ran.text[-3000:]}"
    assert "Traceback" not in ran.text and "internal error" not in ran.text, ran.text[-3000:]
    return ran


def _problems(document: dict[str, Any]) -> list[dict[str, Any]]:
    result = document.get("result") or {}
    error = document.get("error") or {}
    found: list[dict[str, Any]] = result.get("problems") or error.get("problems") or []
    if not found and error.get("message"):
        found = [{"file": None, "line": None, "message": error["message"]}]
    return found


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_results_add_answers_each_hostile_file_and_writes_only_its_run(
    case: AddCase, demo_once: Path, tmp_path: Path
) -> None:
    if case.inspect:
        pytest.importorskip("inspect_ai")
    root = tmp_path / "demo"
    shutil.copytree(demo_once, root, symlinks=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.jsonl").write_bytes(b'{"precious": true}\n')
    (outside / "link-to-victim").symlink_to(outside / "victim.jsonl")
    inputs = tmp_path / "in"
    inputs.mkdir()
    if case.prepare is not None:
        case.prepare(root, outside)
    path = case.build(inputs, outside)
    before = tree_state(tmp_path)

    args = ["results", "add", "--from", case.harness, str(path), "--version", case.version, "--format", "json"]
    added = _run(case, *args, *(["--metric", case.metric] if case.metric else []), cwd=root)
    assert added.code == case.code, f"exit {added.code}, not {case.code}:\n{added.text[-3000:]}"
    document = json.loads(added.out)
    after = tree_state(tmp_path)
    if case.code != 0:
        assert after == before, _changed(before, after)
        problems = _problems(document)
        assert len(problems) == 1, problems
        [problem] = problems
        assert case.expected in problem["message"], problem
        if problem["file"] is not None:
            assert problem["file"] == str(path), problem
            if case.id.startswith(("lm-eval-", "harbor-")) and case.id.endswith(_LOCATED) and problem["line"] is None:
                pytest.fail(f"a refusal inside the file is located at a line: {problem}")
        else:
            assert str(path) in problem["message"] or "results" in problem["message"], problem
        return
    # Accepted: exactly one new entry, a regular file of results/<version>/ (its folder too when new).
    new = {name: entry for name, entry in after.items() if name not in before}
    assert {name for name in before if name not in after} == set(), "add removed an entry"
    assert {n: e for n, e in after.items() if n in before and before[n] != e} == {}, _changed(before, after)
    files = [name for name, (mode, _) in new.items() if not stat.S_ISDIR(mode)]
    assert len(files) == 1, new
    [stored] = files
    relative = Path(stored).relative_to("demo").as_posix()
    match = STORED.fullmatch(relative)
    assert match and match["version"] == case.version, relative
    assert stat.S_ISREG(new[stored][0])
    assert (root / relative).resolve().is_relative_to((root / "results").resolve())
    assert document["result"]["stored"] == relative
    for args in (["results", "table", "--format", "json"], ["audit", "--no-code", "--format", "json"],
                 ["check", "--base", "HEAD", "--no-code", "--format", "json"]):  # fmt: skip
        answered = _run(case, *args, cwd=root)
        assert answered.code == 0, answered.text[-3000:]
    assert not (root.parent / OUTSIDE_NAME).exists() and not (tmp_path.parent / OUTSIDE_NAME).exists()
    assert tree_state(outside) == {k.removeprefix("outside/"): v for k, v in before.items() if k.startswith("outside/")}


# The corpus cases whose refusal is inside a regular file's text: located at a line of it (Inspect's
# reader gives no place; its refusals name the sample instead).
_LOCATED = ("-score", "-key", "-deep", "-twice", "nan-in-an-extra-field", "nested-101-deep")


def _changed(before: dict[str, tuple[int, str]], after: dict[str, tuple[int, str]]) -> str:
    names = sorted(set(before) | set(after))
    return "\n".join(f"{n}: {before.get(n)} -> {after.get(n)}" for n in names if before.get(n) != after.get(n))[:3000]
