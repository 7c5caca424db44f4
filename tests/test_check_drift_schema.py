"""Issue 25, class 6: ``check`` reports a change of a suite's fixture schema (its ``kind``, its own
``schema:`` file, that file's bytes) after the latest cut, even when the field groups it gives are
the same: a new bound or a new required field changes which fixtures are valid, and no group says so.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from freezer.registry import config as config_mod
from freezer.runtime import resources

from conftest import Run, run_inprocess
from registry_helpers import API_SUITE, commit_all

HINT = "cut the next version in the same change"
GROUPS = "the fixture schema moves fields to another group"

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


def _ok(result: Run) -> Run:
    assert result.code == 0, result.text
    return result


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _drift(root: Path) -> list[str]:
    """check's findings against HEAD that ask for the next cut."""
    result = run_inprocess("check", "--base", "HEAD", cwd=root)
    lines = [line for line in result.out.splitlines() if HINT in line]
    assert (result.code == 1) == bool(lines), result.text
    return lines


def _line_of(root: Path, suite: str, key: str) -> str:
    """``freezer.yaml:N``, as check prints the line of ``key``."""
    return Path(config_mod.load(root).suites[suite].origin(key)).name


@pytest.fixture
def own(reg: Path) -> Path:
    """A suite with its own schema, api_v1 cut and committed."""
    (reg / "suite.schema.json").write_text(json.dumps(OWN_SCHEMA, indent=2))
    config = reg / "freezer.yaml"
    config.write_text(config.read_text() + API_SUITE.replace("kind: generic", "schema: suite.schema.json"))
    drafts = reg / "drafts/api"
    (drafts / "fixtures").mkdir(parents=True)
    (drafts / "version.yaml").write_text(
        (Path(__file__).parent.parent / "examples/generic/v1/version.yaml")
        .read_text()
        .replace("min_landed: 2", "min_landed: 1")
    )
    (drafts / "fixtures/hello.yaml").write_text(
        "task_id: hello\nstatus: landed\ninstruction: Print hello.\ntimeout_s: 30\n"
    )
    _ok(run_inprocess("cut", "api_v1", cwd=reg))
    commit_all(reg, "api v1 with its own schema")
    assert _drift(reg) == []
    return reg


def _tighten(path: Path) -> None:
    schema = json.loads(path.read_text())
    schema["properties"]["timeout_s"]["maximum"] = 600  # no x-freezer-group moves
    path.write_text(json.dumps(schema, indent=2))


def test_an_edit_of_the_suites_own_schema_that_keeps_its_groups_is_reported(own: Path) -> None:
    _tighten(own / "suite.schema.json")
    found = _drift(own)
    assert len(found) == 1, found
    assert found[0].startswith(_line_of(own, "api", "schema") + ":")
    assert "the fixture schema suite.schema.json differs from the copy api_v1 froze (fixture.schema.json)" in found[0]
    assert not any(GROUPS in line for line in found)
    # The edit the hint asks for: cut the next version in the same change, and check accepts it.
    _edit(own / "drafts/api/version.yaml", "version: 1\n", "version: 2\n")
    _ok(run_inprocess("cut", "api_v2", cwd=own))
    assert _drift(own) == []


def test_pointing_schema_at_another_file_is_reported_and_a_byte_identical_rename_is_not(own: Path) -> None:
    other = own / "schemas/tasks.json"
    other.parent.mkdir()
    other.write_bytes((own / "suite.schema.json").read_bytes())
    _edit(own / "freezer.yaml", "schema: suite.schema.json", "schema: schemas/tasks.json")
    assert _drift(own) == []  # the same bytes: nothing api_v1 says has changed
    _tighten(other)
    found = _drift(own)
    assert len(found) == 1 and "the fixture schema schemas/tasks.json differs from the copy api_v1 froze" in found[0]


def test_leaving_the_suites_own_schema_for_a_built_in_kind_is_reported(own: Path) -> None:
    _edit(own / "freezer.yaml", "schema: suite.schema.json", "kind: generic")
    found = _drift(own)
    expected = "the fixtures now follow the built-in generic schema, but api_v1 was cut with its own schema"
    assert [line for line in found if expected in line], found
    assert any(line.startswith(_line_of(own, "api", "kind") + ":") for line in found), found


def test_a_built_in_suite_that_takes_an_identical_own_schema_is_reported(api: Path) -> None:
    """The same fields in the same groups, now from the registry's own file: a change of kind."""
    _ok(run_inprocess("cut", "v1", "--suite", "api", cwd=api))
    commit_all(api, "api v1")
    (api / "api.schema.json").write_text(resources.schema_text("generic"))
    _edit(api / "freezer.yaml", "    kind: generic\n", "    kind: generic\n    schema: api.schema.json\n")
    found = _drift(api)
    assert not any(GROUPS in line for line in found), found
    expected = (
        "the fixtures now follow the suite's own schema (api.schema.json), but api_v1 was cut with the built-in "
        "generic schema"
    )
    assert [line for line in found if expected in line and line.startswith(_line_of(api, "api", "schema"))], found


def test_changing_a_suites_kind_is_reported(api: Path) -> None:
    _ok(run_inprocess("cut", "graph_v1", cwd=api))
    _ok(run_inprocess("cut", "api_v1", cwd=api))
    commit_all(api, "graph v1, api v1")
    _edit(api / "freezer.yaml", "    kind: generic\n", "    kind: graph\n")
    _edit(api / "freezer.yaml", "  graph:\n", "  graph:\n    kind: generic\n")
    found = _drift(api)
    graph = [line for line in found if "suite 'graph'" in line]
    other = [line for line in found if "suite 'api'" in line]
    assert any(
        "the fixtures now follow the built-in generic schema, but graph_v1 was cut with the built-in graph schema"
        in line
        and line.startswith(_line_of(api, "graph", "kind") + ":")
        for line in graph
    ), found
    assert any(
        "the fixtures now follow the built-in graph schema, but api_v1 was cut with the built-in generic schema" in line
        for line in other
    ), found
