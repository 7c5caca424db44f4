"""Issue 26: the demo cuts the folders example (tb_v1) and the records example (swe_v1), with no
code under test; the frozen files are the examples' bytes and modes, and check and audit pass."""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from conftest import EXAMPLES, run_inprocess


@pytest.fixture
def demo(tmp_path: Path, demo_build: Path) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    return root


def _files(folder: Path) -> dict[str, Path]:
    return {p.relative_to(folder).as_posix(): p for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(("version", "example"), [("tb_v1", "tb/v1"), ("swe_v1", "swe/v1")])
def test_the_frozen_files_are_the_examples_bytes_and_modes(demo: Path, version: str, example: str) -> None:
    frozen, source = _files(demo / "versions" / version), _files(EXAMPLES / example)
    assert source and set(source) <= set(frozen)
    for rel, path in source.items():
        assert frozen[rel].read_bytes() == path.read_bytes(), rel
        executable = bool(path.stat().st_mode & stat.S_IXUSR)
        assert bool(frozen[rel].stat().st_mode & stat.S_IXUSR) is executable, rel
    subprocess.run(["sha256sum", "-c", "--quiet", "SHA256SUMS"], cwd=demo / "versions" / version, check=True)
    manifest = json.loads((demo / "versions" / version / "manifest.json").read_text())
    assert manifest["code_under_test"] is False


def test_the_task_scripts_stay_executable_in_git(demo: Path) -> None:
    listed = subprocess.run(
        ["git", "ls-files", "-s", "versions/tb_v1"], cwd=demo, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    modes = {line.split("\t")[1]: line.split()[0] for line in listed}
    scripts = [path for path in modes if path.endswith("/tests/test.sh")]
    assert len(scripts) == 3
    assert all(modes[path] == "100755" for path in scripts)
    assert modes["versions/tb_v1/tasks/count-words/task.toml"] == "100644"


@pytest.mark.parametrize(
    ("suite", "fixtures"),
    [
        ("tb", ["count-words", "fix-csv-header", "rotate-logs"]),
        ("swe", ["toyshop__cart-101", "toyshop__cart-102", "toyshop__ledger-7"]),
    ],
)
def test_the_fixtures_are_named_by_the_kind(demo: Path, suite: str, fixtures: list[str]) -> None:
    manifest = json.loads((demo / "versions" / f"{suite}_v1" / "manifest.json").read_text())
    assert sorted(manifest["comparability"]["fixtures"]) == fixtures
    audit = run_inprocess("audit", "--suite", suite, cwd=demo)
    assert audit.code == 0 and "no code under test" in audit.out, audit.text


def test_check_and_log_accept_the_versions_without_code(demo: Path) -> None:
    # check once read a folders suite's glob (tasks/*/) as naming files and called every frozen file lost
    checked = run_inprocess("check", "--base", "HEAD", cwd=demo)
    assert checked.code == 0, checked.text
    logged = run_inprocess("log", cwd=demo)
    assert logged.code == 0 and "internal error" not in logged.text, logged.text
    rows = {line.split()[0]: line for line in logged.out.splitlines() if line.strip()}
    assert "no code" in rows["tb_v1"] and "no code" in rows["swe_v1"]
    assert "no code" not in rows["graph_v2"]
