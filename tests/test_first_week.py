"""Issue 14: rough edges a new user hit in the first week (the ones fixed so far)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, assert_clean_failure, run_inprocess
from doc_pages import page
from registry_helpers import commit_all, set_drafts


def _readme_precommit_config() -> str:
    readme = page("docs/guarding.md")
    section = readme[readme.index("pre-commit users run the hooks") :]
    return section.split("```yaml\n", 1)[1].split("```", 1)[0]


@pytest.mark.skipif(
    shutil.which("pre-commit") is None and not (Path(sys.executable).parent / "pre-commit").exists(),
    reason="pre-commit is not installed",
)
def test_the_readme_pre_commit_snippet_works_from_the_first_commit(reg: Path, tmp_path: Path) -> None:
    """Point 2: the hook no longer blocks a new registry's first commit, and the snippet is usable as written."""
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    for name in ("freezer.yaml", ".gitignore"):
        shutil.copy(reg / name, fresh / name)
    shutil.copytree(reg / "drafts", fresh / "drafts")
    (fresh / ".pre-commit-config.yaml").write_text(_readme_precommit_config())
    subprocess.run(["git", "init", "-q", "-b", "main", str(fresh)], check=True)
    bindir = str(Path(sys.executable).parent)
    env = {
        **os.environ,
        "PATH": f"{bindir}:{os.environ.get('PATH', '')}",
        "PRE_COMMIT_HOME": str(tmp_path / "pc-home"),
        "PYTHONPATH": str(REPO),
    }
    precommit = shutil.which("pre-commit") or str(Path(bindir) / "pre-commit")
    subprocess.run(["git", "add", "-A"], cwd=fresh, check=True)
    ran = subprocess.run([precommit, "run"], cwd=fresh, env=env, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert re.search(r"freezer check\.+Passed", ran.stdout), ran.stdout


@pytest.mark.parametrize("command", [["audit", "--no-code"], ["list"], ["show", "v1"], ["diff", "v1", "v1"]])
def test_commands_run_under_github_actions(reg: Path, command: list[str]) -> None:
    """Point 1: under GitHub Actions, commands without annotations print text instead of refusing."""
    assert run_inprocess("cut", "v1", cwd=reg).code == 0
    result = run_inprocess(*command, cwd=reg, env={"GITHUB_ACTIONS": "true"})
    assert "Invalid value for --format" not in result.err
    if command[0] == "diff":
        assert_clean_failure(result, code=2)  # the same version twice is a usage error, not a format one
    else:
        assert result.code == 0, result.text


def test_a_missing_drafts_folder_does_not_block_auditing_what_is_frozen(reg: Path) -> None:
    """Point 12."""
    assert run_inprocess("cut", "v1", cwd=reg).code == 0
    shutil.rmtree(reg / "drafts/graph")
    audit = run_inprocess("audit", "--no-code", cwd=reg)
    assert audit.code == 0, audit.text
    assert run_inprocess("list", cwd=reg).code == 0
    validate = run_inprocess("validate", cwd=reg)
    assert_clean_failure(validate)
    assert (
        "freezer.yaml:5: $.suites.graph.drafts: drafts folder" in validate.out
        and "of suite 'graph' does not exist" in validate.out
    )


def test_the_api_errors_are_importable_from_the_top() -> None:
    """Point 11."""
    import freezer
    from freezer.domain.errors import IntegrityError

    assert freezer.IntegrityError is IntegrityError and issubclass(freezer.IntegrityError, freezer.FreezerError)


@pytest.mark.parametrize(
    "name", ["fixture", "generic", "version", "registry", "manifest", "output", "results", "provenance"]
)
def test_schema_prints_a_shipped_schema(name: str, tmp_path: Path) -> None:
    """Point 13: editors and check-jsonschema can use the schemas from any install."""
    result = run_inprocess("schema", name, cwd=tmp_path)
    assert result.code == 0, result.text
    assert json.loads(result.out)["$id"].endswith(f"/{name}.schema.json")
    assert_clean_failure(run_inprocess("schema", "nope", cwd=tmp_path), code=2)


def test_log_is_one_line_per_version(reg: Path) -> None:
    assert run_inprocess("cut", "v1", cwd=reg).code == 0
    set_drafts(reg, "v2")
    assert run_inprocess("cut", "v2", cwd=reg).code == 0
    commit_all(reg, "two versions")
    log = run_inprocess("log", cwd=reg)
    assert log.code == 0, log.text
    lines = log.out.splitlines()
    assert lines[0].startswith("graph_v2 ") and lines[1].startswith("graph_v1 ")
    assert "7df885db" in lines[0] and "4 landed" in lines[0] and "moved: fixture set" in lines[0]
    assert "first version" in lines[1]
    rows = json.loads(run_inprocess("log", "--format", "json", cwd=reg).out)["result"]["versions"]
    assert [r["version"] for r in rows] == ["graph_v2", "graph_v1"]
    assert rows[0]["pinned_sha"] == "7df885dbe3b4ac5017f1bbfb08604e60dabb1f25" and rows[0]["landed"] == 4


def test_numbered_lines_in_prose_render_as_typed(reg: Path) -> None:
    """Point 5: '1. budget raised' was rendered as '\\1. budget raised', and lines merged into one paragraph."""
    version = reg / "drafts/graph/version.yaml"
    text = version.read_text()
    version.write_text(
        text.replace(
            "known_caveats:\n", "known_caveats:\n  - |-\n    Changes:\n    1. budget raised\n    2. seed fixed\n", 1
        )
    )
    assert run_inprocess("cut", "v1", cwd=reg).code == 0
    method = (reg / "versions/graph_v1/METHOD.md").read_text()
    assert "Changes:\\\n1\\. budget raised\\\n2\\. seed fixed" in method
    assert "\\1. budget" not in method


def test_versions_cut_by_0_1_keep_their_markdown(tmp_path: Path) -> None:
    """The shipped graph_v2 (0.1.0) still re-renders byte for byte under the old rules."""
    result = run_inprocess("audit", "--no-code", "graph_v2", cwd=REPO)
    assert result.code == 0 and "METHOD.md reproduced" in result.out, result.text


def test_next_starts_the_following_version_without_touching_versions(reg: Path) -> None:
    """Point 4: the v1 -> v2 steps are done by freezer next, not learned from error messages."""
    from registry_helpers import snapshot

    assert run_inprocess("cut", "v1", cwd=reg).code == 0
    frozen = snapshot(reg / "versions")
    started = run_inprocess("next", cwd=reg)
    assert started.code == 0, started.text
    text = (reg / "drafts/graph/version.yaml").read_text()
    assert "version: 2\n" in text and "tool_surface_commits: []" in text
    assert "# TODO(freezer next): set pinned_sha" in text
    assert snapshot(reg / "versions") == frozen
    assert "already say version 2" in run_inprocess("next", cwd=reg).err
    validate = run_inprocess("validate", cwd=reg)
    assert validate.code == 0, validate.text
    shutil.rmtree(reg / "drafts/graph")
    (reg / "drafts/graph").mkdir()
    refilled = run_inprocess("next", cwd=reg)
    assert refilled.code == 0 and "copied" in refilled.out, refilled.text
    assert (reg / "drafts/graph/fixtures/locate-register-tools.yaml").is_file()


def test_status_says_what_a_cut_would_do(reg: Path) -> None:
    from registry_helpers import code_commit

    assert run_inprocess("cut", "v1", cwd=reg).code == 0
    assert run_inprocess("next", cwd=reg).code == 0
    # The pin stays v1's: done, so next's TODO line goes (status runs the cut, which refuses a TODO line).
    version = reg / "drafts/graph/version.yaml"
    version.write_text(re.sub(r"# TODO\(freezer next\).*\n", "", version.read_text()))
    fixture = reg / "drafts/graph/fixtures/locate-register-tools.yaml"
    fixture.write_text(fixture.read_text().replace("question: Where", "question: Precisely where"))
    sha = code_commit(reg, {"crates/orbit-graph/src/tools/search.rs": "// ranking v9\n"}, "rank again")
    result = run_inprocess("status", cwd=reg)
    assert_clean_failure(result)  # an undeclared tool-surface commit is waiting
    assert "graph: next version v2; drafts say v2, valid" in result.out
    assert "fixtures vs graph_v1: 0 added, 0 removed, 1 changed" in result.out
    assert "version.yaml vs graph_v1: $.version" not in result.out
    assert f"undeclared: {sha[:12]} rank again (crates/orbit-graph/src/tools/search.rs)" in result.out
    rows = json.loads(run_inprocess("status", "--format", "json", cwd=reg).out)["result"]["suites"]
    assert rows[0]["undeclared"][0]["sha"] == sha and rows[0]["next_version"] == 2


def test_an_all_digit_sha_says_to_quote_it(reg: Path) -> None:
    """Point 10 (in part): YAML reads an unquoted all-digit SHA as a number."""
    version = reg / "drafts/graph/version.yaml"
    text = version.read_text()
    version.write_text(text.replace("pinned_sha: bb736e3961b0d3bec4631c48782ff0c286a01456", "pinned_sha: 2552341"))
    result = run_inprocess("validate", cwd=reg)
    assert_clean_failure(result)
    assert "$.pinned_sha: expected string, got number 2552341; YAML read it as a number: put it in quotes" in result.out


def test_next_writes_nothing_through_a_link(reg: Path, tmp_path: Path) -> None:
    """freezer next edits the drafts through the in-registry path guard."""
    assert run_inprocess("cut", "v1", cwd=reg).code == 0
    outside = tmp_path / "outside.yaml"
    version = reg / "drafts/graph/version.yaml"
    outside.write_bytes(version.read_bytes())
    version.unlink()
    version.symlink_to(outside)
    before = outside.read_bytes()
    result = run_inprocess("next", cwd=reg)
    assert_clean_failure(result)  # the path guard's refusal: the registry's content is invalid
    assert "drafts/graph/version.yaml" in result.err and "freezer writes only to real folders" in result.err
    assert outside.read_bytes() == before
