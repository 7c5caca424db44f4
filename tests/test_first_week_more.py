"""Issue 14: the rest of the first-week points (init, labels, messages, completion, progress, colour)."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import assert_clean_failure, run_inprocess
from registry_helpers import commit_all, set_drafts


# Point 4: init.
def test_init_makes_a_registry_that_validates_and_never_overwrites(reg: Path, tmp_path: Path) -> None:
    made = run_inprocess("init", str(tmp_path / "new"), "--code-repo", str(reg / "sample-code"), cwd=tmp_path)
    assert made.code == 0, made.text
    root = tmp_path / "new"
    for rel in (
        "freezer.yaml",
        "drafts/bench/version.yaml",
        "drafts/bench/fixtures/example-task.yaml",
        ".pre-commit-config.yaml",
        ".github/workflows/freezer.yml",
        ".freezer/schemas/generic.schema.json",
    ):
        assert (root / rel).is_file(), rel
    assert (root / ".git").is_dir()
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=reg / "sample-code", capture_output=True, text=True)
    assert f'pinned_sha: "{head.stdout.strip()}"' in (root / "drafts/bench/version.yaml").read_text()
    # Each YAML file names its schema for the editor, by a path that exists.
    for rel in ("freezer.yaml", "drafts/bench/version.yaml", "drafts/bench/fixtures/example-task.yaml"):
        first = (root / rel).read_text().splitlines()[0]
        target = first.removeprefix("# yaml-language-server: $schema=")
        assert target != first and (root / rel).parent.joinpath(target).resolve().is_file(), rel
    assert "freezer check" in (root / ".pre-commit-config.yaml").read_text()
    assert "fetch-depth: 0" in (root / ".github/workflows/freezer.yml").read_text()
    checked = run_inprocess("validate", cwd=root)
    assert checked.code == 0, checked.text
    before = (root / "freezer.yaml").read_bytes()
    again = run_inprocess("init", str(root), cwd=tmp_path)
    assert_clean_failure(again, code=2)
    assert "never overwrites" in again.err and (root / "freezer.yaml").read_bytes() == before


def test_init_refuses_a_bad_suite_name_and_writes_nothing(tmp_path: Path) -> None:
    result = run_inprocess("init", str(tmp_path / "x"), "--suite", "Bad Name", cwd=tmp_path)
    assert_clean_failure(result, code=2)
    assert not (tmp_path / "x").exists()


def test_init_graph_kind_uses_the_graph_schema(tmp_path: Path) -> None:
    result = run_inprocess("init", str(tmp_path / "g"), "--kind", "graph", "--suite", "graph", cwd=tmp_path)
    assert result.code == 0, result.text
    fixture = (tmp_path / "g/drafts/graph/fixtures/example-task.yaml").read_text()
    assert "fixture.schema.json" in fixture.splitlines()[0] and "naive_grep:" in fixture


# Point 8: labels.
def test_dash_c_works_before_the_subcommand(reg: Path, tmp_path: Path) -> None:
    assert run_inprocess("cut", "v1", cwd=reg).code == 0
    result = run_inprocess("-C", str(reg), "list", cwd=tmp_path)
    assert result.code == 0, result.text
    assert result.out.splitlines()[1].startswith("graph_v1")
    missing = run_inprocess("-C", str(tmp_path / "nowhere"), "list", cwd=tmp_path)
    assert_clean_failure(missing, code=2)


@pytest.mark.parametrize("label", ["V2", "v02", "graph_V2"])
def test_a_miswritten_label_gets_the_next_free_version(reg: Path, label: str) -> None:
    assert run_inprocess("cut", "v1", cwd=reg).code == 0
    result = run_inprocess("cut", label, cwd=reg)
    assert_clean_failure(result, code=2)
    assert "the next free version of graph is v2: freezer cut v2" in result.err
    shown = run_inprocess("show", label, cwd=reg)
    assert "labels are lower-case, without leading zeros" in shown.err


# Point 10: messages that teach.
def test_pinned_sha_head_says_to_pin_the_commit(reg: Path) -> None:
    version = reg / "drafts/graph/version.yaml"
    version.write_text(re.sub(r"(?m)^pinned_sha: .*$", "pinned_sha: HEAD", version.read_text()))
    result = run_inprocess("validate", cwd=reg)
    assert_clean_failure(result)
    assert "$.pinned_sha: 'HEAD' is a ref name, and a ref moves" in result.out
    assert "git rev-parse HEAD" in result.out


def test_a_tab_in_the_indentation_is_named(reg: Path) -> None:
    version = reg / "drafts/graph/version.yaml"
    version.write_text(version.read_text().replace("  min_landed:", "\tmin_landed:"))
    result = run_inprocess("validate", cwd=reg)
    assert_clean_failure(result)
    assert "a tab in the indentation: YAML indents with spaces only" in result.out


def test_against_says_the_ref_is_in_the_code_repository(reg: Path) -> None:
    assert run_inprocess("cut", "v1", cwd=reg).code == 0
    helped = run_inprocess("audit", "--help", cwd=reg)
    assert "code repository" in helped.out and "not the registry" in helped.out
    result = run_inprocess("audit", "--against", "nosuch", cwd=reg)
    assert "does not name a commit in the code repository sample-code" in result.err


def test_audit_strict_marks_each_version_it_fails(reg: Path) -> None:
    assert run_inprocess("cut", "v1", cwd=reg).code == 0
    commit_all(reg, "freeze v1")
    (reg / "sample-code").rename(reg / "moved-away")
    result = run_inprocess("audit", "--strict", cwd=reg)
    assert result.code == 1
    lines = result.out.splitlines()
    assert lines[0].startswith("✗ graph_v1:"), lines
    assert "--strict: its code could not be checked" in result.out
    assert lines[-1] == "✗ audited 1 version(s): 1 failed --strict"


# Point 11: the API's errors speak to a program, not a terminal.
def test_api_errors_name_the_argument(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import freezer

    monkeypatch.chdir(tmp_path)
    with pytest.raises(freezer.FreezerError) as caught:
        freezer.load("graph_v1")
    assert caught.value.hint is not None and "registry=" in caught.value.hint
    assert "--registry" not in (caught.value.hint or "")


# Point 6: list and show check hashes, not the whole audit.
def test_list_and_show_do_not_rerender_method(reg: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from freezer.guard import rederive
    from freezer.render.method import method_from_files as real

    assert run_inprocess("cut", "v1", cwd=reg).code == 0
    rendered: list[int] = []

    def counting(*args: Any, **kwargs: Any) -> Any:
        rendered.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(rederive, "method_from_files", counting)
    assert run_inprocess("list", cwd=reg).code == 0
    assert run_inprocess("show", "v1", cwd=reg).code == 0
    assert rendered == []
    assert run_inprocess("audit", "--no-code", cwd=reg).code == 0
    assert rendered == [1]  # the audit still does
    # A changed file is still caught by list.
    target = reg / "versions/graph_v1/version.yaml"
    target.chmod(0o644)
    target.write_text(target.read_text() + "# edited\n")
    listed = run_inprocess("list", cwd=reg)
    assert listed.code == 1 and "FAILED" in listed.out


# Point 13: completion, and a pin that exists only here.
def test_completion_offers_versions_and_formats(reg: Path) -> None:
    assert run_inprocess("cut", "v1", cwd=reg).code == 0

    def complete(words: str) -> list[str]:
        env = {"_FREEZER_COMPLETE": "complete_bash", "COMP_WORDS": words, "COMP_CWORD": str(len(words.split(" ")) - 1)}
        return run_inprocess(*words.split(" ")[1:], cwd=reg, env=env).out.split()

    assert complete("freezer show gr") == ["graph_v1"]
    assert complete("freezer cut ") == ["graph_v2"]
    assert complete("freezer list --format ") == ["text", "json", "github"]


def test_cut_warns_when_the_pin_exists_only_here(reg: Path, tmp_path: Path) -> None:
    result = run_inprocess("cut", "v1", cwd=reg)
    assert result.code == 0
    assert "may exist only on this machine (the code repository has no remote)" in result.err
    # Once a remote branch holds it, the warning goes.
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    code = reg / "sample-code"
    subprocess.run(["git", "remote", "add", "origin", str(remote)], cwd=code, check=True)
    subprocess.run(["git", "push", "-q", "origin", "HEAD:refs/heads/main"], cwd=code, check=True)
    subprocess.run(["git", "fetch", "-q", "origin"], cwd=code, check=True)
    set_drafts(reg, "v1")
    again = run_inprocess("cut", "v1", "--dry-run", cwd=reg)
    assert "may exist only on this machine" not in again.err


# Point 7: colour and progress.
def test_colour_follows_no_color_and_force_color(reg: Path) -> None:
    plain = run_inprocess("validate", cwd=reg)
    assert "\x1b[" not in plain.out  # piped: no colour
    forced = run_inprocess("validate", cwd=reg, env={"FORCE_COLOR": "1"})
    assert "\x1b[32m✓\x1b[0m" in forced.out
    refused = run_inprocess("validate", cwd=reg, env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert "\x1b[" not in refused.out


def test_cut_tells_each_step_as_it_passes(reg: Path) -> None:
    from freezer.domain.steps import StepLog
    from freezer.freeze.cut import cut
    from freezer.registry import config as config_mod

    heard: list[str] = []
    phases: list[str] = []
    cfg = config_mod.load(reg)
    result = cut(cfg, cfg.suite("graph"), "v1", steps=StepLog(lambda s: heard.append(s.name), phases.append))
    assert heard == [s.name for s in result.steps]
    assert heard[:3] == ["drafts", "pinned_sha", "ground_truth"] and heard[-1] == "write"
    assert any(p.startswith("reproducing Gate B") for p in phases)


def test_the_progress_bar_draws_on_a_terminal_only() -> None:
    script = (
        "import time, freezer.cli.terminal as t\n"
        "bar = t.ProgressBar('validating')\n"
        "time.sleep(t.BAR_AFTER_SECONDS + 0.05)\n"
        "bar(3, 10); time.sleep(0.15); bar(7, 10); bar.close()\n"
    )
    primary, secondary = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-c", script], stderr=secondary, env={**os.environ})
    os.close(secondary)
    drawn = b""
    while True:
        try:
            chunk = os.read(primary, 4096)
        except OSError:
            break
        if not chunk:
            break
        drawn += chunk
    proc.wait(timeout=30)
    os.close(primary)
    assert b"validating" in drawn and b"7/10" in drawn
    piped = subprocess.run([sys.executable, "-c", script], capture_output=True)
    assert piped.stderr == b""
