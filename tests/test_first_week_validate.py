"""Issue 27, first week item 1: ``validate PATH`` uses the schema of the suite the path belongs to,
a loose file's own ``yaml-language-server`` modeline, and checks a version.yaml named alone without
the acceptance counts of a whole drafts folder. Every kind: graph, generic, folders, records, lm-eval.
Real registries in tmp_path.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from test_kind_folders import _tb
from test_kind_lmeval import _bbh
from test_kind_records import _swe

from conftest import Run, assert_clean_failure, run_inprocess


def _validate(cwd: Path, *paths: str) -> Run:
    result = run_inprocess("validate", *paths, cwd=cwd)
    assert "Traceback" not in result.text and "internal error" not in result.text, result.text
    return result


def _no_kind(reg: Path) -> Path:
    return reg


KINDS: dict[str, Callable[[Path], object]] = {"graph": _no_kind, "api": _no_kind, "tb": _tb, "swe": _swe, "bbh": _bbh}


@pytest.mark.parametrize("suite", sorted(KINDS))
def test_a_version_file_named_alone_is_checked_alone(api: Path, suite: str) -> None:
    KINDS[suite](api)
    version = f"drafts/{suite}/version.yaml"
    result = _validate(api, version)
    assert result.code == 0, result.text
    assert "landed fixture(s); the acceptance rules need" not in result.text
    assert f"note: {version}: checked alone; the acceptance counts" in result.out
    # Its summary says what was checked, not "0 fixture(s), 0 landed" of a folder that has them.
    assert "the version file, checked alone" in result.out and "0 fixture(s)" not in result.out, result.out
    # From inside the drafts folder, and from outside the registry, the same.
    inside = _validate(api / "drafts" / suite, "version.yaml")
    assert inside.code == 0 and "acceptance rules need" not in inside.text, inside.text
    outside = _validate(api.parent, f"{api.name}/{version}")
    assert outside.code == 0 and "acceptance rules need" not in outside.text, outside.text
    # Its own problems are still found, located.
    path = api / version
    path.write_text(path.read_text().replace("title:", "titel:", 1))
    broken = _validate(api, version)
    assert_clean_failure(broken)
    assert f"{version}:" in broken.out and "titel" in broken.out


@pytest.mark.parametrize("suite", ["graph", "api"])
def test_the_whole_drafts_folder_still_counts_its_fixtures(api: Path, suite: str) -> None:
    version = api / "drafts" / suite / "version.yaml"
    text = version.read_text()
    start = text.index("min_landed:")
    end = text.index("\n", start)
    version.write_text(text[:start] + "min_landed: 500" + text[end:])
    for paths in ([f"drafts/{suite}"], ["drafts"], ["."]):
        result = _validate(api, *paths)
        assert_clean_failure(result)
        assert "the acceptance rules need at least 500" in result.out, paths


def test_a_scaffold_fixture_of_a_generic_suite_meets_the_generic_schema_from_anywhere(tmp_path: Path) -> None:
    """The reported case: init's generic example checked against the graph schema by path."""
    assert run_inprocess("init", "reg", cwd=tmp_path).code == 0
    root = tmp_path / "reg"
    fixture = "drafts/bench/fixtures/example-task.yaml"
    for cwd, path in (
        (root, fixture),
        (root, "drafts/bench/fixtures"),
        (root / "drafts/bench/fixtures", "example-task.yaml"),
        (tmp_path, f"reg/{fixture}"),
    ):
        result = _validate(cwd, path)
        assert result.code == 0, (cwd, path, result.text)
        assert "graph_tool_path" not in result.text and "unknown field 'metadata'" not in result.text
    # And a generic mistake is found as the generic schema says it.
    (root / fixture).write_text((root / fixture).read_text() + "graph_tool_path: {tools: [x]}\n")
    result = _validate(root, fixture)
    assert_clean_failure(result)
    assert "unknown field 'graph_tool_path'" in result.out


@pytest.mark.parametrize("suite", ["tb", "swe", "bbh"])
def test_a_file_of_a_kind_suite_is_checked_as_part_of_its_suite(api: Path, suite: str) -> None:
    drafts = Path(str(KINDS[suite](api)))
    member = next(p for p in sorted(drafts.rglob("*")) if p.is_file() and p.name != "version.yaml")
    result = _validate(api, str(member.relative_to(api)))
    assert result.code == 0, result.text
    assert "graph_tool_path" not in result.text


GENERIC_FIXTURE = """\
# yaml-language-server: $schema={schema}
task_id: loose-one
status: landed
question: Where is main?
metadata:
  source: hand-written
"""


def _loose(folder: Path, schema: str, name: str = "loose.yaml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(GENERIC_FIXTURE.format(schema=schema))
    return path


@pytest.mark.parametrize(
    "schema",
    [
        "../.freezer/schemas/generic.schema.json",
        "https://example.invalid/schemas/generic.schema.json",
        "generic.schema.json",
    ],
)
def test_a_loose_file_meets_the_schema_its_modeline_names(tmp_path: Path, schema: str) -> None:
    path = _loose(tmp_path / "loose", schema)
    result = _validate(tmp_path, "loose/loose.yaml")
    assert result.code == 0, result.text
    assert "note: loose/loose.yaml: in no suite's drafts; checked against freezer's generic schema" in result.out
    path.write_text(path.read_text() + "naive_grep_x: 1\n")
    broken = _validate(tmp_path, "loose/loose.yaml")
    assert_clean_failure(broken)
    assert "unknown field 'naive_grep_x'" in broken.out and "graph_tool_path" not in broken.out


def test_a_loose_file_naming_the_graph_schema_or_none_is_a_graph_fixture_and_says_so(tmp_path: Path) -> None:
    _loose(tmp_path, "../x/fixture.schema.json", "graph.yaml")
    graph = _validate(tmp_path, "graph.yaml")
    assert_clean_failure(graph)
    assert "missing required field 'graph_tool_path'" in graph.out
    assert "checked against freezer's fixture schema, as its modeline says" in graph.out
    none = tmp_path / "none.yaml"
    none.write_text(GENERIC_FIXTURE.split("\n", 1)[1])
    plain = _validate(tmp_path, "none.yaml")
    assert_clean_failure(plain)
    assert "missing required field 'graph_tool_path'" in plain.out and "note:" not in plain.out


def test_a_loose_file_naming_its_own_schema_file_meets_it(tmp_path: Path) -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": ["task_id", "status", "difficulty"],
    }
    (tmp_path / "mine.schema.json").write_text(json.dumps(schema))
    _loose(tmp_path / "tasks", "../mine.schema.json")
    result = _validate(tmp_path, "tasks/loose.yaml")
    assert_clean_failure(result)
    assert "missing required field 'difficulty'" in result.out
    assert "checked against mine.schema.json, as its modeline says" in result.out
    schema["required"] = ["task_id", "status"]
    (tmp_path / "mine.schema.json").write_text(json.dumps(schema))
    assert _validate(tmp_path, "tasks/loose.yaml").code == 0


def test_a_file_in_a_suite_follows_its_suite_not_its_modeline(api: Path) -> None:
    """The suite decides; a stale modeline naming the graph schema does not make a generic fixture graph."""
    fixture = api / "drafts/api/fixtures/add-timeout-flag.yaml"
    fixture.write_text("# yaml-language-server: $schema=fixture.schema.json\n" + fixture.read_text())
    result = _validate(api, "drafts/api/fixtures/add-timeout-flag.yaml")
    assert result.code == 0, result.text
    assert "note:" not in result.out
