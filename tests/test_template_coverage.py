"""The shipped METHOD.md template renders every document the schemas accept.

Drafts are generated from the schemas themselves: the examples with each
optional field omitted in turn, and maximal documents that use every optional
field. Each is rendered through the same pure function that cut uses.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from freezer.domain.manifest import Manifest
from freezer.freeze.assemble import assemble
from freezer.registry.dimensions import DEFAULT_DIMENSIONS
from freezer.registry.record import side
from freezer.runtime import resources
from freezer.schema import schemas

from conftest import EXAMPLES

# Slow (the template rendered with every optional field omitted): CI runs it; `pytest -m slow` runs it here.
pytestmark = pytest.mark.slow

SHA = "0123456789abcdef0123456789abcdef01234567"
_CANDIDATES = ("abc1234", "abc", "a", "fixture-1", "src/a.rs")


def _deref(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = root["$defs"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def maximal(schema: dict[str, Any], root: dict[str, Any]) -> Any:
    """A value using every property the schema allows (the first branch of a oneOf)."""
    schema = _deref(schema, root)
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "object" or "properties" in schema:
        branches = schema.get("oneOf", [])
        chosen = set(branches[0].get("required", [])) if branches else set()
        others = {key for branch in branches for key in branch.get("required", [])} - chosen
        value = {key: maximal(sub, root) for key, sub in schema.get("properties", {}).items() if key not in others}
        if isinstance(schema.get("additionalProperties"), dict):  # a map (run.budgets): one entry
            value["maximal_entry"] = maximal(schema["additionalProperties"], root)
        return value
    if kind == "array":
        return [maximal(schema["items"], root)]
    if kind == "integer":
        return max(schema.get("minimum", 1), 1)
    if kind == "number":
        return 1.5
    if kind == "boolean":
        return True
    pattern = schema.get("pattern")
    return next(c for c in _CANDIDATES if pattern is None or re.search(pattern, c))


def optional_paths(
    value: Any, schema: dict[str, Any], root: dict[str, Any], at: tuple[Any, ...] = ()
) -> Iterator[tuple[Any, ...]]:
    """Paths of the optional properties present in ``value``."""
    schema = _deref(schema, root)
    if isinstance(value, dict):
        required = set(schema.get("required", []))
        # A map's last entries are not optional fields: an object may not shrink below minProperties.
        removable = len(value) > schema.get("minProperties", 0)
        for key, item in value.items():
            sub = schema.get("properties", {}).get(key, {})
            if key not in required and removable:
                yield (*at, key)
            yield from optional_paths(item, sub, root, (*at, key))
    elif isinstance(value, list) and value and isinstance(schema.get("items"), dict):
        yield from optional_paths(value[0], schema["items"], root, (*at, 0))


def without(value: Any, path: tuple[Any, ...]) -> Any:
    copied = copy.deepcopy(value)
    holder = copied
    for part in path[:-1]:
        holder = holder[part]
    del holder[path[-1]]
    return copied


def _load(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


V1 = _load(EXAMPLES / "graph/v1/version.yaml")
V2 = _load(EXAMPLES / "graph/v2/version.yaml")
V1_FIXTURES = [_load(p) for p in sorted((EXAMPLES / "graph/v1/fixtures").glob("*.yaml"))]
V2_FIXTURES = [_load(p) for p in sorted((EXAMPLES / "graph/v2/fixtures").glob("*.yaml"))]


def _record(version: dict[str, Any], number: int, previous: str | None) -> dict[str, Any]:
    binary = dict(version["binary"])
    if "build_sha" in binary:
        binary["build_sha"] = SHA
    commits = [
        {**commit, "sha": SHA, "declared_as": commit["sha"], "subject": "a commit"}
        for commit in version["tool_surface_commits"]
    ]
    return {
        "manifest_format": 2,
        "suite": "graph",
        "version": number,
        "name": f"graph_v{number}",
        "pinned_sha": {"full": SHA, "short": SHA[:8], "declared_as": version["pinned_sha"]},
        "code_repo": {"root_commits": [SHA], "origin": None, "configured_path": "code"},
        "binary": binary,
        "tool_surface": {
            "globs": ["src/**"],
            "commits": commits,
            "scan": {
                "excluded": [SHA] if previous else [],
                "tips": [SHA],
                "globs": ["src/**"],
                "build_sha_known": "build_sha" in binary,
            },
        },
        "checks": {
            "template_sha256": "0" * 64,
            "grep": {"engine": "test", "version": "1"},
            "dimensions": [{"dimension": k, "meaning": v} for k, v in DEFAULT_DIMENSIONS.items()],
            # As every cut records now: §Delta is freezer's block, which the shipped template places
            # and the rendered METHOD.md shows.
            "delta_block": 2,
        },
        "code_history": (
            {
                "from": SHA,
                "to": SHA,
                "ahead": 1,
                "behind": 0,
                "touching_ground_truth": [{"sha": SHA, "subject": "s", "paths": ["a.rs"]}],
            }
            if previous
            else None
        ),
        "freezer_version": "test",
        "cut_at": "2026-01-01T00:00:00Z",
        "previous": {"name": previous, "manifest_sha256": "0" * 64} if previous else None,
    }


def render(version: dict[str, Any], fixtures: list[dict[str, Any]], chained: bool = True) -> str:
    for fixture in fixtures:
        assert schemas.schema_errors(schemas.FIXTURE, fixture) == [], fixture["task_id"]
    assert schemas.schema_errors(schemas.VERSION, version) == []
    template = resources.template_text("METHOD.md.j2").encode()
    previous = None
    if chained:
        before = _record(V1, 1, None)
        previous = side(Manifest.from_data({**before, "files": {}}), V1, V1_FIXTURES)
    record = _record(version, 2 if chained else 1, "graph_v1" if chained else None)
    assert schemas.schema_errors(schemas.MANIFEST, {**record, "files": {"a": "0" * 64}}) == []
    drafts = {"version.yaml": b"", **{f"fixtures/{f['task_id']}.yaml": b"" for f in fixtures}}
    manifest = Manifest.from_data({**record, "files": {}})
    files = assemble(manifest, drafts, template, previous, DEFAULT_DIMENSIONS, (version, fixtures))
    method = files["METHOD.md"].decode()
    json.loads(files["delta.json"])
    return method


VERSION_SCHEMA = resources.schema("version")
FIXTURE_SCHEMA = resources.schema("fixture")


@pytest.mark.parametrize("path", sorted(set(optional_paths(V2, VERSION_SCHEMA, VERSION_SCHEMA))), ids=str)
def test_version_without_each_optional_field_renders(path: tuple[Any, ...]) -> None:
    version = without(V2, path)
    if path == ("pinned_sha",):
        pytest.skip("without pinned_sha the suite has no code under test: tests/test_no_code_under_test.py")
    if schemas.schema_errors(schemas.VERSION, version):
        pytest.skip("the schema requires this field here (a suite with code under test)")
    method = render(version, V2_FIXTURES)
    assert "## Delta vs v1" in method


def _fixture_variants() -> Iterator[tuple[str, int, tuple[Any, ...]]]:
    for index, fixture in enumerate(V2_FIXTURES):
        for path in sorted(set(optional_paths(fixture, FIXTURE_SCHEMA, FIXTURE_SCHEMA))):
            yield fixture["task_id"], index, path


@pytest.mark.parametrize(("task_id", "index", "path"), list(_fixture_variants()), ids=str)
def test_fixture_without_each_optional_field_renders(task_id: str, index: int, path: tuple[Any, ...]) -> None:
    fixtures = list(V2_FIXTURES)
    fixtures[index] = without(fixtures[index], path)
    if schemas.schema_errors(schemas.FIXTURE, fixtures[index]):
        pytest.skip("the schema requires this field here (a landed fixture's conditional fields)")
    assert f"{task_id}" in render(V2, fixtures)


@pytest.mark.parametrize("chained", [True, False], ids=["second version", "first version"])
def test_maximal_documents_render(chained: bool) -> None:
    version = maximal(VERSION_SCHEMA, VERSION_SCHEMA)
    version.update({"suite": "graph", "version": 2 if chained else 1})
    # A source of kind huggingface or git pins a full commit (an if/then the generator does not read).
    for source in version.get("sources", []):
        source["revision"] = SHA
    landed = maximal(FIXTURE_SCHEMA, FIXTURE_SCHEMA)
    landed.update({"task_id": "landed-one", "status": "landed"})
    del landed["dropped"]
    dropped = maximal(FIXTURE_SCHEMA, FIXTURE_SCHEMA)
    dropped.update({"task_id": "dropped-one", "status": "dropped"})
    method = render(version, [landed, dropped], chained)
    assert "`landed-one`" in method or "landed-one" in method
    assert "dropped-one" in method
