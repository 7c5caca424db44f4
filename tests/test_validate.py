"""freezer validate: the examples pass, every broken copy fails with one precise line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from freezer.validate.validate import validate_paths

from conftest import EXAMPLES, REPO, V2, assert_clean_failure, run_inprocess

NEGATIVE = sorted((REPO / "tests" / "cases" / "negative").glob("*.yaml"))


def test_examples_validate() -> None:
    result = run_inprocess("validate", str(EXAMPLES))
    assert result.code == 0, result.text
    assert "graph v1: 6 fixture(s), 6 landed, 0 dropped" in result.out
    assert "graph v2: 7 fixture(s), 4 landed, 3 dropped; classes: impact, locate, trace" in result.out


def test_default_is_configured_drafts() -> None:
    result = run_inprocess("validate")
    assert result.code == 0, result.text
    assert "graph v2" in result.out


@pytest.mark.parametrize("case", NEGATIVE, ids=[p.stem for p in NEGATIVE])
def test_negative_case(case: Path) -> None:
    expected = case.read_text().splitlines()[0].removeprefix("# expect: ")
    result = run_inprocess("validate", str(case))
    assert_clean_failure(result)
    problem_lines = [line for line in result.out.splitlines() if line.startswith("tests/")]
    assert len(problem_lines) == 1, result.out
    assert problem_lines[0].startswith(f"tests/cases/negative/{case.name}{expected}")


def _mutate(v2_copy: Path, name: str, old: str, new: str) -> Path:
    path = v2_copy / "fixtures" / name
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def _problems(result_out: str) -> list[str]:
    return [line for line in result_out.splitlines() if ": $" in line]


def test_duplicate_task_id_across_files(v2_copy: Path) -> None:
    _mutate(
        v2_copy,
        "locate-dispatch-trait-methods.yaml",
        "task_id: locate-dispatch-trait-methods",
        "task_id: locate-loopaudit-variants",
    )
    result = run_inprocess("validate", str(v2_copy))
    assert_clean_failure(result)
    problems = _problems(result.out)
    assert len(problems) == 1
    # Files are read in name order, so the second of the two is the one reported.
    assert (
        "locate-loopaudit-variants.yaml:1:1: $.task_id: task_id 'locate-loopaudit-variants' is already used by"
        in problems[0]
    )
    assert "locate-dispatch-trait-methods.yaml:1; task ids must be unique" in problems[0]


def test_acceptance_rules_count_landed_fixtures(v2_copy: Path) -> None:
    _mutate(
        v2_copy,
        "impact-tool-context-struct-literals.yaml",
        "status: landed",
        "status: dropped\ndropped: {stage: gate_c, reason: r}",
    )
    result = run_inprocess("validate", str(v2_copy))
    assert_clean_failure(result)
    problems = _problems(result.out)
    assert any("version.yaml" in p and "$.acceptance.min_landed: only 3 landed fixture(s)" in p for p in problems), (
        problems
    )
    assert any("$.acceptance.min_classes: landed fixtures span 2 class(es) (locate, trace)" in p for p in problems), (
        problems
    )


def test_non_utf8_file(v2_copy: Path) -> None:
    path = v2_copy / "fixtures" / "locate-fsprofile-resolution-chain.yaml"
    path.write_bytes(path.read_bytes().replace(b"spare candidate", b"spare \xe9candidate"))
    result = run_inprocess("validate", str(path))
    assert_clean_failure(result)
    lines = _problems(result.out)
    assert len(lines) == 1
    assert ":7:14: $: not valid UTF-8: byte 0xe9 at offset 194" in lines[0]


def test_bom_and_utf16_are_read(v2_copy: Path) -> None:
    path = v2_copy / "fixtures" / "locate-fsprofile-resolution-chain.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert run_inprocess("validate", str(path)).code == 0
    path.write_bytes(text.encode("utf-16"))
    assert run_inprocess("validate", str(path)).code == 0


def test_alias_bomb_is_refused_fast(tmp_path: Path) -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for index in range(1, 12):
        prev, name = chr(96 + index), chr(97 + index)
        lines.append(f"{name}: &{name} [{','.join(['*' + prev] * 9)}]")
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("\n".join(lines) + "\n")
    result = run_inprocess("validate", str(bomb), timeout=20)
    assert_clean_failure(result)
    # Aliases are refused outright now (issue 23), so a bomb is never expanded: each anchor and alias is
    # reported where it is written, up to the per-file cap.
    assert "bomb.yaml:1:4: $.a: YAML anchor &a is not allowed" in result.out
    assert "more than 100 problems in this file" in result.out


def test_oversized_file_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("notes: '" + "x" * (2 << 20) + "'\n")
    result = run_inprocess("validate", str(big))
    assert_clean_failure(result)
    assert "over the 1048576-byte limit" in result.out


def test_json_format(v2_copy: Path) -> None:
    _mutate(v2_copy, "locate-loopaudit-variants.yaml", "difficulty: easy", "difficulty: trivial")
    result = run_inprocess("validate", "--format", "json", str(v2_copy))
    assert result.code == 1
    data = json.loads(result.out)
    assert data["ok"] is False and data["exit_code"] == 1
    [problem] = data["result"]["problems"]
    assert problem["json_path"] == "$.difficulty"
    assert problem["line"] == 3
    assert problem["layer"] == "schema"


def test_github_annotations(v2_copy: Path) -> None:
    _mutate(v2_copy, "locate-loopaudit-variants.yaml", "difficulty: easy", "difficulty: trivial")
    result = run_inprocess("validate", str(v2_copy), env={"GITHUB_ACTIONS": "true"})
    assert result.code == 1
    assert "::error file=" in result.out and "locate-loopaudit-variants.yaml,line=3,col=1::$.difficulty" in result.out


def test_every_layer_reports_all_its_errors(tmp_path: Path) -> None:
    target = tmp_path / "set"
    shutil.copytree(V2, target)
    for name in ("locate-loopaudit-variants.yaml", "callers-run-deterministic-containers.yaml"):
        _mutate(target, name, "status: landed", "status: landed\nbogus: 1")
    report = validate_paths([target])
    assert [p.message for p in report.problems].count("unknown field 'bogus' (check its spelling)") == 2


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert_clean_failure(run_inprocess("validate", str(tmp_path / "nope.txt")), code=2)
    assert_clean_failure(run_inprocess("validate", "--format", "xml", str(V2)), code=2)
    assert_clean_failure(run_inprocess("frobnicate"), code=2)
    assert_clean_failure(run_inprocess("validate", cwd=tmp_path), code=2)


def test_symlinked_draft_is_reported(v2_copy: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.yaml"
    outside.write_text("secret: 1\n")
    (v2_copy / "fixtures" / "linked.yaml").symlink_to(outside)
    result = run_inprocess("validate", str(v2_copy))
    assert_clean_failure(result)
    assert "linked.yaml: $: is a symbolic link" in result.out


def test_version_flag() -> None:
    result = run_inprocess("--version")
    assert result.code == 0
    assert result.out.startswith("freezer ")


def test_parallel_validation_matches_serial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    from freezer.runtime import work
    from freezer.validate import validate as validate_mod

    if work.cores() < 2:
        pytest.skip("needs two cores and fork")

    threshold = validate_mod.PARALLEL_FROM
    root = shutil.copytree(V2, tmp_path / "v2")
    sources = sorted((root / "fixtures").glob("*.yaml"))
    for index in range(threshold + 20):
        source = sources[index % len(sources)]
        text = source.read_text().replace("task_id: ", f"task_id: copy-{index:03d}-", 1)
        if index % 50 == 7:
            text = text.replace("class: ", "class: [", 1)  # broken YAML in a few files
        (root / "fixtures" / f"copy-{index:03d}.yaml").write_text(text)
    pooled = validate_paths([root])
    monkeypatch.setattr(validate_mod, "PARALLEL_FROM", 10**9)
    serial = validate_paths([root])
    assert pooled.files == serial.files > threshold
    assert [p.to_json() for p in pooled.problems] == [p.to_json() for p in serial.problems]
    assert sum("YAML syntax" in p.message for p in serial.problems) == 7
    assert [len(s.fixtures) for s in pooled.sets] == [len(s.fixtures) for s in serial.sets]
    assert gc.isenabled()


@pytest.mark.parametrize("args", [["validate"], ["validate", "drafts"]], ids=["hook path", "typer path"])
def test_a_reader_that_goes_away_is_not_a_crash(tmp_path: Path, args: list[str]) -> None:
    import os
    import subprocess
    import sys

    root = tmp_path / "registry"
    (root / "drafts" / "fixtures").mkdir(parents=True)
    (root / "freezer.yaml").write_text(
        "freezer: 1\nsuites:\n  s:\n    drafts: drafts\n    code_repo: code\n    tool_surface: ['x/**']\n"
    )
    shutil.copy(V2 / "version.yaml", root / "drafts" / "version.yaml")
    for index in range(3000):  # far more problem lines than a pipe buffers
        (root / "drafts" / "fixtures" / f"f{index:04d}.yaml").write_text("a: [\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "freezer", *args],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline().startswith(b"drafts/fixtures/f0000.yaml:2:1: $: YAML syntax")
    proc.stdout.close()  # like `| head -1`
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141, err
    assert err == ""
