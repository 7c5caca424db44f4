"""Issue 13: any fixture-based suite, with its data files.

A generic suite (no grep, no graph tool), a suite with its own JSON Schema,
and drafts that carry assets: every file frozen and hashed, or refused by name.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import EXAMPLES, assert_clean_failure, run_inprocess
from registry_helpers import API_SUITE, commit_all


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def test_generic_suite_validates_cuts_renders_audits_and_diffs(api: Path) -> None:
    checked = run_inprocess("validate", "--suite", "api", cwd=api)
    assert checked.code == 0, checked.text
    cut = run_inprocess("cut", "api_v1", cwd=api)
    assert cut.code == 0, cut.text
    version = api / "versions/api_v1"
    method = (version / "METHOD.md").read_text()
    assert "**Prompt.** The tool context is built" in method
    assert "No fixture carries a naive grep, so there is no Gate B to reproduce." in method
    assert "**Gate B.**" not in method and "**Naive grep.**" not in method and "Graph-tool path" not in method
    assert "The version freezes 3 asset file(s)" in method
    manifest = json.loads((version / "manifest.json").read_text())
    assert manifest["contents"]["assets"] == [
        "README.md",
        "assets/add-timeout-flag/expected.patch",
        "assets/add-timeout-flag/repo.tar.gz",
    ]
    assert manifest["checks"]["fixture_schema"]["kind"] == "generic"
    tarball = EXAMPLES / "generic/v1/assets/add-timeout-flag/repo.tar.gz"
    assert (version / "assets/add-timeout-flag/repo.tar.gz").read_bytes() == tarball.read_bytes()
    sums = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=version, capture_output=True, text=True)
    assert sums.returncode == 0 and "assets/add-timeout-flag/repo.tar.gz: OK" in sums.stdout
    audit = run_inprocess("audit", "api_v1", cwd=api)
    assert audit.code == 0 and "code: verified at 7df885db" in audit.out, audit.text
    commit_all(api, "freeze api_v1")

    drafts = api / "drafts/api"
    _edit(drafts / "version.yaml", "version: 1\n", "version: 2\n")
    (drafts / "assets/add-timeout-flag/expected.patch").write_text("--- a/src/lib.rs\n+++ b/src/lib.rs\n")
    (drafts / "assets/notes.txt").write_text("new suite-level asset\n")
    _edit(drafts / "fixtures/explain-pipeline.yaml", "source: hand-written", "source: reviewed")
    assert run_inprocess("cut", "v2", "--suite", "api", cwd=api).code == 0
    diff = run_inprocess("diff", "api_v1", "api_v2", cwd=api)
    assert diff.code == 0, diff.text
    assert "asset changed: assets/add-timeout-flag/expected.patch" in diff.out
    assert "asset added: assets/notes.txt" in diff.out
    assert "$.metadata.source: hand-written → reviewed" in diff.out
    method = (api / "versions/api_v2/METHOD.md").read_text()
    assert "- changed `assets/add-timeout-flag/expected.patch`" in method and "- added `assets/notes.txt`" in method
    assert run_inprocess("check", "--base", "HEAD", cwd=api).code == 0


def test_a_flipped_byte_in_any_asset_is_caught(api: Path) -> None:
    assert run_inprocess("cut", "api_v1", cwd=api).code == 0
    target = api / "versions/api_v1/assets/add-timeout-flag/repo.tar.gz"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0x01
    target.chmod(0o644)
    target.write_bytes(bytes(data))
    result = run_inprocess("audit", "--no-code", "api_v1", cwd=api)
    assert_clean_failure(result)
    assert "assets/add-timeout-flag/repo.tar.gz: content changed" in result.out


@pytest.mark.parametrize("kind", ["fifo", "link", "reserved", "too-big", "dot-git"])
def test_a_file_neither_frozen_nor_allowed_is_named(api: Path, kind: str) -> None:
    drafts = api / "drafts/api"
    config = api / "freezer.yaml"
    if kind == "fifo":
        os.mkfifo(drafts / "assets/pipe")
        named, words = "drafts/api/assets/pipe", "is not a regular file"
    elif kind == "link":
        (drafts / "assets/link.patch").symlink_to("add-timeout-flag/expected.patch")
        named, words = "drafts/api/assets/link.patch", "is a symbolic link"
    elif kind == "reserved":
        (drafts / "manifest.json").write_text("{}")
        named, words = "drafts/api/manifest.json", "a name freezer writes into every version"
    elif kind == "too-big":
        _edit(config, "    kind: generic\n", "    kind: generic\n    max_file_bytes: 200\n")
        named, words = "drafts/api/assets/add-timeout-flag/repo.tar.gz", "over the suite's max_file_bytes (200)"
    else:
        (drafts / "assets/.git").mkdir()
        named, words = "drafts/api/assets/.git", "a git folder inside the drafts"
    result = run_inprocess("validate", "--suite", "api", cwd=api)
    assert_clean_failure(result)
    assert f"{named}: $: " in result.out and words in result.out, result.out
    before = sorted(p.name for p in (api / "versions").iterdir()) if (api / "versions").exists() else []
    assert_clean_failure(run_inprocess("cut", "api_v1", cwd=api))
    after = sorted(p.name for p in (api / "versions").iterdir()) if (api / "versions").exists() else []
    assert after == before


def test_a_missing_or_escaping_asset_reference_is_located(api: Path) -> None:
    fixture = api / "drafts/api/fixtures/add-timeout-flag.yaml"
    _edit(fixture, "  - assets/add-timeout-flag/expected.patch\n", "  - assets/nope.patch\n  - ../outside\n")
    result = run_inprocess("validate", "--suite", "api", cwd=api)
    assert_clean_failure(result)
    assert "add-timeout-flag.yaml:17:5: $.assets[1]: no file 'assets/nope.patch' in the drafts" in result.out
    assert "$.assets[2]: '../outside' climbs out" in result.out


OWN_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["task_id", "status", "instruction", "timeout_s"],
    "properties": {
        "task_id": {"type": "string"},
        "status": {"enum": ["landed", "dropped"]},
        "instruction": {"type": "string", "minLength": 1},
        "timeout_s": {"type": "integer", "minimum": 1},
        "dropped": {"type": "object"},
    },
    "additionalProperties": False,
}


@pytest.fixture
def own(reg: Path) -> Path:
    """A suite whose fixtures follow the registry's own schema (Terminal-Bench-like tasks)."""
    (reg / "suite.schema.json").write_text(json.dumps(OWN_SCHEMA, indent=2))
    config = reg / "freezer.yaml"
    config.write_text(config.read_text() + API_SUITE.replace("kind: generic", "schema: suite.schema.json"))
    drafts = reg / "drafts/api"
    (drafts / "fixtures").mkdir(parents=True)
    shutil.copy(EXAMPLES / "generic/v1/version.yaml", drafts / "version.yaml")
    _edit(drafts / "version.yaml", "min_landed: 2", "min_landed: 1")
    (drafts / "fixtures/hello.yaml").write_text(
        "task_id: hello\nstatus: landed\ninstruction: Print hello.\ntimeout_s: 30\n"
    )
    commit_all(reg, "own schema suite")
    return reg


def test_a_suite_with_its_own_schema(own: Path) -> None:
    fixture = own / "drafts/api/fixtures/hello.yaml"
    fixture.write_text(fixture.read_text().replace("timeout_s: 30", "timeout_s: soon"))
    result = run_inprocess("validate", "--suite", "api", cwd=own)
    assert_clean_failure(result)
    assert "drafts/api/fixtures/hello.yaml:4:1: $.timeout_s: expected integer" in result.out, result.out
    fixture.write_text(fixture.read_text().replace("timeout_s: soon", "timeout_s: 30"))
    assert run_inprocess("cut", "api_v1", cwd=own).code == 0
    frozen = own / "versions/api_v1/fixture.schema.json"
    assert frozen.read_bytes() == (own / "suite.schema.json").read_bytes()
    method = (own / "versions/api_v1/METHOD.md").read_text()
    assert "### 1. hello" in method
    schema = json.loads((own / "suite.schema.json").read_text())
    schema["properties"]["timeout_s"]["maximum"] = 600
    (own / "suite.schema.json").write_text(json.dumps(schema, indent=2))
    _edit(own / "drafts/api/version.yaml", "version: 1\n", "version: 2\n")
    assert run_inprocess("cut", "api_v2", cwd=own).code == 0
    delta = (own / "versions/api_v2/METHOD.md").read_text().split("## Delta vs v1")[1]
    assert "- fixture schema: custom " in delta
    assert run_inprocess("audit", "--no-code", cwd=own).code == 0


def test_an_invalid_own_schema_is_a_config_error(own: Path) -> None:
    (own / "suite.schema.json").write_text('{"type": "no-such-type"}')
    result = run_inprocess("validate", "--suite", "api", cwd=own)
    assert_clean_failure(result, code=1)
    assert "not a valid Draft 2020-12 schema" in result.text


def test_a_field_required_only_for_landed_fixtures_says_so_once(tmp_path: Path) -> None:
    fixture = tmp_path / "fixture.yaml"
    fixture.write_text("task_id: x\nclass: trace\nstatus: landed\nquestion: Where?\n")
    result = run_inprocess("validate", str(fixture))
    assert_clean_failure(result)
    lines = [line for line in result.out.splitlines() if "missing required field" in line]
    assert len(lines) == len(set(lines)) == 7, result.out  # each missing field once, not once per field
    assert "fixture.yaml:1:1: $: missing required field 'oracle' (required when status is landed)" in result.out
    assert "1 invalid file(s) not counted" in result.out
