"""The light read of a manifest (domain.manifestfields) that check's config drift uses says what the
typed manifest says of the same fields, for every manifest format freezer has written."""

from __future__ import annotations

import json
from pathlib import Path

from freezer.domain.manifest import Manifest
from freezer.domain.manifestfields import RecordedConfig

from conftest import REPO


def _manifests(*roots: Path) -> list[Path]:
    """The frozen manifests of the registries at or below ``roots``."""
    return sorted(path for root in roots for path in root.glob("**/versions/*/manifest.json"))


def _agree(path: Path) -> int:
    data = json.loads(path.read_bytes())
    light, typed = RecordedConfig.from_data(data), Manifest.from_data(data)
    assert light.name == typed.name, path
    assert light.globs == typed.globs, path
    assert light.template_sha256 == typed.checks.template_sha256, path
    assert light.dimensions == typed.checks.dimensions, path
    schema = typed.checks.fixture_schema
    assert light.fixture_schema == ((schema.kind, schema.sha256) if schema is not None else None), path
    assert light.fixture_schema_kind == typed.checks.fixture_schema_kind, path
    contents = typed.contents
    assert light.contents == ((contents.fixtures, contents.assets) if contents is not None else None), path
    recorded = typed.comparability
    assert light.arms == (dict(recorded.arms) if recorded is not None else None), path
    assert light.groups == (dict(recorded.groups) if recorded is not None else None), path
    return int(data["manifest_format"])


def test_the_compared_fields_read_as_the_typed_manifest_reads_them(demo_build: Path) -> None:
    found = sorted(REPO.glob("versions/*/manifest.json")) + _manifests(REPO / "tests" / "cases", demo_build)
    formats = {_agree(path) for path in found}
    assert {1, 3} <= formats  # freezer's own format-1 versions, the format cases and the demo


def test_a_version_without_code_under_test_scanned_no_globs() -> None:
    data = json.loads(next(iter(_manifests(REPO / "tests" / "cases"))).read_bytes())
    data = {**data, "code_under_test": False}
    assert RecordedConfig.from_data(data).globs == ()
