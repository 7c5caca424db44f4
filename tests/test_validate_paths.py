"""Issue 23, class 11: ``validate PATH`` runs the checks a whole-registry validate runs.

A folder that is (or holds) a suite's drafts is validated as that suite; a file
inside a suite's drafts is checked against that suite's schema, its assets and
its canary, wherever it is named from. Real registries in ``tmp_path``.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import EXAMPLES, V2, Run, run_inprocess

CONFIG = """\
freezer: 1
suites:
  api:
    kind: generic
    drafts: drafts/api
    versions: versions
    code_repo: code
    tool_surface: ['src/**']
  graph:
    drafts: drafts/graph
    versions: versions
    code_repo: code
    tool_surface: ['src/**']
"""
FIXTURE = "drafts/api/fixtures/add-timeout-flag.yaml"


@pytest.fixture
def registry(tmp_path: Path) -> Path:
    root = tmp_path / "registry"
    root.mkdir()
    (root / "freezer.yaml").write_text(CONFIG)
    shutil.copytree(EXAMPLES / "generic" / "v1", root / "drafts" / "api")
    shutil.copytree(V2, root / "drafts" / "graph")
    return root


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def _problems(result: Run) -> list[str]:
    return [line for line in result.out.splitlines() if ": $" in line]


def _validate(root: Path, *paths: str) -> Run:
    result = run_inprocess("validate", *paths, cwd=root)
    assert "Traceback" not in result.text and "internal error" not in result.text, result.text
    return result


def test_the_examples_still_validate_by_path(registry: Path) -> None:
    for paths in (["drafts/api"], ["drafts"], ["drafts/api/fixtures"], [FIXTURE], ["."]):
        assert _validate(registry, *paths).code == 0, paths


@pytest.mark.parametrize("paths", [["drafts/api"], ["drafts"], ["."], ["drafts/api", "drafts/api/fixtures"]])
def test_a_missing_asset_is_refused_by_path_as_by_the_whole_registry(registry: Path, paths: list[str]) -> None:
    _edit(registry / FIXTURE, "  - assets/add-timeout-flag/expected.patch\n", "  - assets/nope.patch\n")
    whole = _validate(registry)
    assert whole.code == 1
    by_path = _validate(registry, *paths)
    assert by_path.code == 1
    assert _problems(by_path) == _problems(whole)
    assert f"{FIXTURE}:17:5: $.assets[1]: no file 'assets/nope.patch' in the drafts" in by_path.out


@pytest.mark.parametrize("paths", [[FIXTURE], ["drafts/api/fixtures"], ["drafts/api/fixtures", "drafts/graph"]])
def test_a_fixture_named_alone_has_its_assets_checked(registry: Path, paths: list[str]) -> None:
    _edit(registry / FIXTURE, "  - assets/add-timeout-flag/repo.tar.gz\n", "  - assets/gone.tar.gz\n  - ../../x\n")
    result = _validate(registry, *paths)
    assert result.code == 1
    assert f"{FIXTURE}:16:5: $.assets[0]: no file 'assets/gone.tar.gz' in the drafts" in result.out
    assert "$.assets[1]: '../../x' climbs out with '..'" in result.out


def test_a_missing_grader_is_refused_by_path(registry: Path) -> None:
    _edit(registry / FIXTURE, "metadata:\n", "graders: [tests/run.sh]\nmetadata:\n")
    result = _validate(registry, "drafts/api/fixtures")
    assert result.code == 1
    assert "$.graders[0]: no file 'tests/run.sh' in the drafts" in result.out


@pytest.mark.parametrize("kind", ["fifo", "link", "reserved"])
def test_a_file_the_drafts_may_not_hold_is_refused_by_path(registry: Path, kind: str) -> None:
    drafts = registry / "drafts/api"
    if kind == "fifo":
        os.mkfifo(drafts / "assets/pipe")
        named, words = "drafts/api/assets/pipe", "is not a regular file"
    elif kind == "link":
        (drafts / "assets/link.patch").symlink_to("add-timeout-flag/expected.patch")
        named, words = "drafts/api/assets/link.patch", "is a symbolic link"
    else:
        (drafts / "delta.json").write_text("{}")
        named, words = "drafts/api/delta.json", "a name freezer writes into every version"
    result = _validate(registry, "drafts/api")
    assert result.code == 1
    assert f"{named}: $: " in result.out and words in result.out, result.out


def test_the_canary_is_checked_by_path(registry: Path) -> None:
    config = registry / "freezer.yaml"
    _edit(config, "    kind: generic\n", "    kind: generic\n    canary: freezer-canary-6d2f\n")
    for paths in (["drafts/api"], [FIXTURE]):
        result = _validate(registry, *paths)
        assert result.code == 1
        assert f"{FIXTURE}:1:1: $: does not carry the suite's canary string" in result.out


def test_a_fixture_of_a_suite_with_its_own_schema_meets_that_schema_by_path(registry: Path) -> None:
    schema = {"required": ["task_id", "instruction"], "properties": {"instruction": {"type": "string"}}}
    (registry / "own.schema.json").write_text(json.dumps(schema))
    _edit(registry / "freezer.yaml", "    kind: generic\n", "    schema: own.schema.json\n")
    fixture = registry / "drafts/api/fixtures/hello.yaml"
    for path in (registry / "drafts/api/fixtures").iterdir():
        path.unlink()
    fixture.write_text("task_id: hello\nstatus: landed\ninstruction: Print hello.\n")
    assert _validate(registry, "drafts/api/fixtures/hello.yaml").code == 0  # the graph schema would refuse it
    fixture.write_text("task_id: hello\nstatus: landed\ninstruction: 5\n")
    result = _validate(registry, "drafts/api/fixtures/hello.yaml")
    assert result.code == 1 and "hello.yaml:3:1: $.instruction: expected string, got number 5" in result.out


def test_a_fixtures_glob_is_kept_by_path(registry: Path) -> None:
    _edit(registry / "freezer.yaml", "    kind: generic\n", '    kind: generic\n    fixtures: "fixtures/*.yaml"\n')
    (registry / "drafts/api/assets/config.yaml").write_text("not: a fixture\n")
    whole, by_path = _validate(registry), _validate(registry, "drafts/api")
    assert whole.code == by_path.code == 0, by_path.out
    assert "4 asset file(s)" in by_path.out
