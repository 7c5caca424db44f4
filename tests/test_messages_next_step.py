"""Each message a maintainer meets on the first week names the next step, not only the fact: a
misspelt field, an empty fixture file, a local check's base, a cut of drafts that are still the last
version's, ground truth in a file not committed yet, the demo's "then try" line and the help."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import REPO, run_inprocess
from registry_helpers import code_commit

FIXTURE = "drafts/graph/fixtures/impact-default-timeout-users.yaml"


def _init(tmp_path: Path) -> Path:
    root = tmp_path / "bench"
    result = run_inprocess("init", str(root))
    assert result.code == 0, result.text
    return root


def test_a_misspelt_field_names_the_field_it_meant_and_no_schema_dump(tmp_path: Path) -> None:
    root = _init(tmp_path)
    (fixture,) = (root / "drafts/bench/fixtures").glob("*.yaml")
    fixture.write_text(fixture.read_text(encoding="utf-8").replace("\nquestion:", "\nquestoin:"), encoding="utf-8")

    result = run_inprocess("validate", cwd=root)

    assert result.code == 1, result.text
    assert "$.questoin: unknown field 'questoin': did you mean 'question'?" in result.out
    assert "$: needs at least one of 'question', 'prompt'" in result.out
    assert "{'required'" not in result.text and "fails the 'anyOf' rule" not in result.text


def test_an_empty_fixture_file_says_it_holds_no_fields(tmp_path: Path) -> None:
    root = _init(tmp_path)
    (fixture,) = (root / "drafts/bench/fixtures").glob("*.yaml")
    fixture.write_text("# nothing yet\n", encoding="utf-8")

    result = run_inprocess("validate", cwd=root)

    assert result.code == 1, result.text
    assert (
        "$: the file holds no fields (it is empty, comments only or null): expected an object (a mapping of fields)"
        in (result.out)
    )
    assert "null None" not in result.text


def test_cutting_the_next_number_on_the_last_versions_drafts_names_freezer_next(reg: Path) -> None:
    assert run_inprocess("cut", "v1", cwd=reg).code == 0

    result = run_inprocess("cut", "v2", cwd=reg)

    assert result.code == 1, result.text
    assert "the drafts say version 1, not 2" in result.text
    assert "these are still the drafts of v1: start v2's drafts with freezer next" in result.text


def test_ground_truth_in_a_file_not_yet_committed_says_so(reg: Path) -> None:
    code = reg / "sample-code"
    (code / "src_new.rs").write_text("fn main() {}\n", encoding="utf-8")
    fixture = reg / FIXTURE
    text = fixture.read_text(encoding="utf-8")
    fixture.write_text(text.replace("file: crates/orbit-engine/src/config.rs", "file: src_new.rs", 1), encoding="utf-8")

    untracked = run_inprocess("cut", "v1", cwd=reg)  # the cut checks ground truth at the pinned commit
    subprocess.run(["git", "add", "src_new.rs"], cwd=code, check=True)
    staged = run_inprocess("cut", "v1", cwd=reg)
    head = code_commit(reg, {"src_new.rs": "fn main() {}\n"}, "add src_new.rs")
    committed = run_inprocess("cut", "v1", cwd=reg)

    assert [untracked.code, staged.code, committed.code] == [1, 1, 1]
    assert not (reg / "versions/graph_v1").exists()

    assert "src_new.rs does not exist at" in untracked.text
    assert "it is in the working tree, never committed: commit it, then pin that commit" in untracked.text
    assert "it is staged, not yet committed: commit it, then pin that commit" in staged.text
    assert f"it is at HEAD ({head[:8]}): pin a commit that holds it" in committed.text


def test_the_demos_then_try_line_runs_freezer_as_it_was_started(tmp_path: Path) -> None:
    """Started as `python -m freezer` with no freezer on PATH, the line says how to run it again."""
    env = {**os.environ, "PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "freezer", "demo", str(tmp_path / "demo")],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("Then try:")]
    again = f"{sys.executable} -m freezer"
    assert line == f"Then try: cd {tmp_path / 'demo'} && {again} audit && {again} compare bbh_v1 bbh_v2"


def test_help_lists_a_versions_life_first_with_examples() -> None:
    top = run_inprocess("--help").out
    commands = [line.split()[0] for line in top.split("Commands:")[1].splitlines() if line.startswith("  ")]
    assert commands.index("init") < commands.index("cut") < commands.index("check") < commands.index("list")
    assert "Examples:" in top and "  freezer cut v1 " in top
    assert "no JavaScript" not in run_inprocess("site", "--help").out
    assert "graph v1 and v2" not in run_inprocess("demo", "--help").out


def test_a_local_check_says_which_base_it_took_as_a_fact_not_a_warning(reg: Path) -> None:
    result = run_inprocess("check", cwd=reg)
    assert result.code == 0, result.text
    assert "HEAD, as there is no upstream branch or origin/HEAD: the uncommitted changes" in result.text
    assert "--base REF checks commits too" in result.text
    assert "no upstream…; pass --base" not in result.text and "warning" not in result.text.lower()
