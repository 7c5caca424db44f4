"""freezer's own fields keep freezer's field groups (issue 36, class 8): a suite schema that places
one elsewhere (``files`` in ``cosmetic``, which would make a task whose ``tests/test.sh`` became
``exit 0`` read "cosmetic ✓") is refused at validate and at cut, with one message at the place in the
schema, exit 1, and nothing written. Real registries, the real CLI in process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import test_kind_folders as folders
from test_kind_folders import OWN_SCHEMA

from freezer.runtime import resources

from conftest import assert_clean_failure, run_inprocess
from registry_helpers import commit_all


def _refused(reg: Path, suite: str, schema: str, field: str, group: str, own: str, number: int = 1) -> None:
    for args in (("validate", "--suite", suite), ("cut", f"{suite}_v{number}")):
        result = run_inprocess(*args, cwd=reg)
        assert_clean_failure(result)
        assert result.code == 1, result.text
        lines = [line for line in result.text.splitlines() if "freezer's own field" in line]
        assert len(lines) == 1, result.text
        assert lines[0].strip().startswith(f"{schema}:"), lines
        assert f"$.properties.{field}['x-freezer-group']" in lines[0], lines
        assert f"{field!r}" in lines[0] and f"{group!r}" in lines[0] and f"{own!r}" in lines[0], lines
    assert not (reg / "versions" / f"{suite}_v{number}").exists()


def test_a_folders_schema_cannot_make_a_tasks_files_cosmetic(reg: Path) -> None:
    """Before: tb_v2 was cut, and compare read the task whose test.sh passes whatever as cosmetic."""
    (reg / "tb.schema.json").write_text(json.dumps(OWN_SCHEMA, indent=2))
    drafts = folders._tb(reg, extra="    schema: tb.schema.json\n")
    assert run_inprocess("cut", "tb_v1", cwd=reg).code == 0
    commit_all(reg, "freeze tb_v1")
    schema = json.loads(json.dumps(OWN_SCHEMA))
    schema["properties"]["files"] = {"x-freezer-group": "cosmetic"}
    (reg / "tb.schema.json").write_text(json.dumps(schema, indent=2))
    (drafts / "version.yaml").write_text(folders._version_yaml(2), encoding="utf-8")
    (drafts / "tasks/hello-world/tests/test.sh").write_text("#!/bin/bash\nexit 0\n", encoding="utf-8")
    _refused(reg, "tb", "tb.schema.json", "files", "cosmetic", "input", number=2)


def _own_schema(api: Path) -> None:
    config = api / "freezer.yaml"
    own = "    kind: generic\n    schema: api.schema.json\n"
    config.write_text(config.read_text().replace("    kind: generic\n", own))


@pytest.mark.parametrize(
    ("field", "group", "own"),
    [("assets", "cosmetic", "input"), ("graders", "cosmetic", "grading"), ("task_id", "input", "identity")],
)
def test_a_generic_schema_cannot_regroup_freezers_own_fields(api: Path, field: str, group: str, own: str) -> None:
    schema = json.loads(resources.schema_text("generic"))
    schema["properties"][field]["x-freezer-group"] = group
    (api / "api.schema.json").write_text(json.dumps(schema, indent=2))
    _own_schema(api)
    commit_all(api, "the api suite's own schema")
    _refused(api, "api", "api.schema.json", field, group, own)


def test_a_schema_that_keeps_freezers_groups_and_moves_its_own_fields_is_accepted(api: Path) -> None:
    schema = json.loads(resources.schema_text("generic"))
    schema["properties"]["oracle"]["x-freezer-group"] = "cosmetic"  # the suite's own field: its call
    (api / "api.schema.json").write_text(json.dumps(schema, indent=2))
    _own_schema(api)
    commit_all(api, "the api suite's own schema")
    result = run_inprocess("cut", "api_v1", cwd=api)
    assert result.code == 0, result.text
