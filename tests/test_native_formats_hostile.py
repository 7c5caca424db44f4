"""The hostile-input limits hold for the benchmark-native formats (tests/hostile/native_formats.py).

Every case runs the real CLI in a process of its own (forked from a server that imported freezer
once, tests/forkserver.py), under an address-space limit and a timeout, in a real registry of three
suites (folders, records, lm-eval) with no code under test: ``validate``
and ``cut`` (and, slow, ``cut --dry-run``); where the input is legitimately fine, the cut version
is audited. Each must end with the case's exit status and, when refused, exactly one problem
naming the case's file (at a line where the format has one), no traceback, no byte written into
versions/ or changed in the drafts, and nothing read from the ``outside`` folder the case points
at (its secret never reaches an output or a frozen file).
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hostile import native_formats
from hostile.corpus import make_unreadable_dirs_traversable
from hostile.native_formats import SECRET, Case
from hostile.treestate import tree_state

from conftest import nobody_can_run_python, run_forked

MEMORY_LIMIT = 1 << 30
TIME_LIMIT = 60.0

CASES = native_formats.all_cases()


def _param(case: Case) -> Any:
    marks = [pytest.mark.slow] if case.slow else []
    if case.xfail:
        marks.append(pytest.mark.xfail(strict=True, reason=case.xfail))
    return pytest.param(case, id=case.id, marks=marks)


def _run(args: list[str], cwd: Path, as_nobody: bool) -> tuple[int, str, str]:
    """Exit status, stdout, and stdout with stderr after it."""
    ran = run_forked(
        *args, cwd=cwd, env={"NO_COLOR": "1"}, memory_limit=MEMORY_LIMIT, as_nobody=as_nobody, timeout=TIME_LIMIT
    )
    return ran.code, ran.out, ran.out + ran.err


def _problems(output: str) -> list[dict[str, Any]]:
    data = json.loads(output)
    result = data.get("result") or {}
    error = data.get("error") or {}
    found: list[dict[str, Any]] = result.get("problems") or error.get("problems") or []
    return found


def _assert_one_problem(case: Case, command: str, code: int, stdout: str, output: str) -> None:
    assert code == case.expect, f"{command}: exit {code}, not {case.expect}:\n{output[-3000:]}"
    assert "Traceback" not in output and "internal error" not in output, output[-3000:]
    problems = _problems(stdout)
    if case.expect == 0:
        assert problems == [], problems
        return
    if case.many:
        assert problems and all(p["file"] == problems[0]["file"] for p in problems), problems[:10]
        assert len(problems) <= 101, f"{len(problems)} problems: a bounded report cuts them short"
        problems = problems[:1]
    assert len(problems) == 1, f"{command}: {len(problems)} problems, not one:\n" + "\n".join(map(str, problems[:10]))
    [problem] = problems
    assert problem["file"].startswith(case.names), f"{command}: names {problem['file']!r}, not {case.names!r}"
    if case.located:
        assert problem["line"] is not None, problem
    assert len(problem["message"]) < 600, problem["message"][:600]


def _registry(case: Case, tmp_path: Path) -> Path:
    root = tmp_path / "registry"
    native_formats.base_registry(root)
    case.build(root)
    if case.as_nobody:
        if not nobody_can_run_python():
            pytest.skip("needs root, and an interpreter user nobody can run (root reads every file)")
        make_unreadable_dirs_traversable(root)
        for path in [root, *root.rglob("*")]:
            if not path.is_symlink() and path.stat().st_mode & 0o777:
                path.chmod(path.stat().st_mode | (0o005 if path.is_dir() else 0o004))
    return root


def _check_commands(case: Case, tmp_path: Path, commands: list[list[str]], audit: bool = True) -> None:
    root = _registry(case, tmp_path)
    if case.expect is None:  # either outcome, the same for every command: the first one says which
        first, _, output = _run(commands[0], root, case.as_nobody)
        assert first in (0, 1), output[-3000:]
        case = dataclasses.replace(case, expect=first, names=case.names if first else "")
    outside = tmp_path / native_formats.OUTSIDE
    drafts_before, outside_before = tree_state(root / "drafts"), tree_state(outside)
    for args in commands:
        code, stdout, output = _run(args, root, case.as_nobody)
        if "--format" in args:
            _assert_one_problem(case, " ".join(args), code, stdout, output)
        else:
            assert code == case.expect, f"{' '.join(args)}: exit {code}:\n{output[-3000:]}"
            assert "Traceback" not in output and "internal error" not in output, output[-3000:]
            if case.expect:  # the text output shows the one problem at the start of a line
                lines = [line for line in output.splitlines() if re.match(r"drafts/\S*?(:\d+(:\d+)?)?: ", line)]
                assert lines and lines[0].startswith(case.names), output[-3000:]
                assert len(lines) == 1 or case.many, output[-3000:]
        assert SECRET not in output
    assert tree_state(root / "drafts") == drafts_before
    assert tree_state(outside) == outside_before
    versions = root / "versions"
    if case.expect or not audit:
        assert not versions.exists()
        return
    for path in versions.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
            assert path.stat().st_nlink == 1, f"{path} shares its inode with another file (a hard link)"
    code, _, output = _run(["audit", "--suite", case.suite], root, case.as_nobody)
    assert code == 0 and "Traceback" not in output, output[-3000:]


@pytest.mark.parametrize("case", [_param(case) for case in CASES])
def test_native_format_case(case: Case, tmp_path: Path) -> None:
    """validate (text) and cut (JSON): the expected exit, one located problem, nothing written, nothing leaked."""
    _check_commands(case, tmp_path, [["validate"], ["cut", "v1", "--suite", case.suite, "--format", "json"]])


@pytest.mark.slow
@pytest.mark.parametrize("case", [_param(case) for case in CASES])
def test_native_format_case_dry_run(case: Case, tmp_path: Path) -> None:
    """cut --dry-run and validate as JSON say the same one problem."""
    _check_commands(
        case,
        tmp_path,
        [["validate", "--format", "json"], ["cut", "v1", "--suite", case.suite, "--dry-run", "--format", "json"]],
        audit=False,
    )


def test_the_corpus_covers_every_format() -> None:
    ids = [case.id for case in CASES]
    assert len(ids) == len(set(ids))
    for prefix, least in (("toml-", 50), ("records-", 70), ("folders-", 30), ("lmeval-", 50)):
        assert sum(case_id.startswith(prefix) for case_id in ids) >= least, prefix
    assert {case.expect for case in CASES} == {0, 1, None}
