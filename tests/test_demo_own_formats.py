"""Issue 26: the demo cuts the folders example (tb_v1), the records example (swe_v1) and the
lm-eval example (bbh_v1, bbh_v2), with no code under test; the frozen files are the examples'
bytes and modes, check and audit pass, and compare keeps the lm-eval tasks v2 did not move."""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from freezer.demo.registry import COMPARE_HINT, LOOK_AT, SUITES

from conftest import EXAMPLES, run_inprocess

BBH_TASKS = ["alphabetical_order", "boolean_logic", "bracket_closing", "calendar_steps", "item_tally"]
MOVED_BY_UTILS = ["bbh_slice_alphabetical_order", "bbh_slice_bracket_closing", "bbh_slice_item_tally"]


@pytest.fixture
def demo(tmp_path: Path, demo_build: Path) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    return root


def _files(folder: Path) -> dict[str, Path]:
    return {p.relative_to(folder).as_posix(): p for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(
    ("version", "example"), [("tb_v1", "tb/v1"), ("swe_v1", "swe/v1"), ("bbh_v1", "bbh/v1"), ("bbh_v2", "bbh/v2")]
)
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
        ("bbh", [f"bbh_slice_{task}" for task in BBH_TASKS]),
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
    assert "no code" in rows["bbh_v1"] and "no code" in rows["bbh_v2"]
    assert "no code" not in rows["graph_v2"]


def test_the_lm_eval_tasks_keep_their_dependencies_and_a_source_pin(demo: Path) -> None:
    manifest = json.loads((demo / "versions/bbh_v1/manifest.json").read_text())
    assert manifest["fixture_kind"] == {"kind": "lm-eval", "fixtures": "tasks/*.yaml"}
    assert manifest["contents"]["fixtures"] == [f"tasks/{task}.yaml" for task in BBH_TASKS]
    # The group file is a group, frozen as a suite asset beside the template and the module.
    assert manifest["contents"]["assets"] == ["tasks/_bbh_slice.yaml", "tasks/_template_yaml", "tasks/utils.py"]
    version = (demo / "versions/bbh_v1/version.yaml").read_text()
    assert "kind: huggingface" in version and "revision: 5e0c3b1a9d7f2468ace13579bdf02468ace13579" in version
    method = (demo / "versions/bbh_v1/METHOD.md").read_text()
    assert "freezer-examples/bbh-slice" in method


def test_compare_names_the_tasks_v2_moved_through_utils_and_keeps_the_others(demo: Path) -> None:
    compared = run_inprocess("compare", "bbh_v1", "bbh_v2", "--format", "json", cwd=demo)
    assert compared.code == 0, compared.text
    [arm] = json.loads(compared.out)["result"]["arms"]
    assert sorted(arm["excluded"]) == MOVED_BY_UTILS, arm["excluded"]
    assert all("its file tasks/utils.py changed" in why for why in arm["excluded"].values()), arm["excluded"]
    assert arm["comparable"] == ["bbh_slice_boolean_logic", "bbh_slice_calendar_steps"]
    delta = json.loads((demo / "versions/bbh_v2/delta.json").read_text())["fixtures"]
    through = {entry["task_id"]: entry["files"] for entry in delta["changed_through_files"]}
    assert through == {task: ["tasks/utils.py"] for task in MOVED_BY_UTILS}
    assert delta["changed"] == [] and delta["added"] == [] and delta["removed"] == []
    # The examples differ in utils.py and version.yaml alone: the frozen task files are the same bytes.
    for task in BBH_TASKS:
        rel = f"tasks/{task}.yaml"
        assert (demo / "versions/bbh_v1" / rel).read_bytes() == (demo / "versions/bbh_v2" / rel).read_bytes()


def test_the_hints_name_every_suite_the_demo_cuts_and_each_path_exists(demo: Path) -> None:
    for path, what in LOOK_AT:
        assert (demo / path).exists(), path
        assert what
    named = " ".join(path for path, _ in LOOK_AT) + " " + COMPARE_HINT
    for suite in SUITES:
        assert f"{suite}_v" in named, suite
    for version in ("tb_v1", "swe_v1", "bbh_v1", "bbh_v2"):
        assert version in named, version
