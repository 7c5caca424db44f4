"""Kind yaml: freezer's own format (one YAML or JSON file a fixture) is a kind like the others.

A manifest records no kind for it: a graph or generic version, and every version cut before kinds
existed, is read as kind yaml, and a cut writes its manifest as it always did.
"""

from __future__ import annotations

import json
from pathlib import Path

from freezer.domain.fixturekind import YAML_FILES, FixtureKindRecord
from freezer.domain.manifest import Manifest
from freezer.kinds.catalog import fixture_kind_name, kind_of
from freezer.kinds.yamlfiles import FILE_FIELDS, IMPORTED_FIELD, YamlFilesKind
from freezer.registry.record import read_version_files

from conftest import REPO


def test_a_manifest_without_a_fixture_kind_is_read_as_kind_yaml_and_written_back_unchanged(v2_frozen: Path) -> None:
    for name in ("graph_v1", "graph_v2"):
        text = (v2_frozen / "versions" / name / "manifest.json").read_text(encoding="utf-8")
        data = json.loads(text)
        assert "fixture_kind" not in data
        manifest = Manifest.from_data(data)
        assert manifest.fixture_kind.kind == YAML_FILES
        assert manifest.to_json() == data


def test_a_version_of_manifest_format_1_is_read_as_kind_yaml() -> None:
    folder = REPO / "versions" / "graph_v1"
    data = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest = Manifest.from_data(data)
    assert manifest.format == 1 and manifest.fixture_kind.kind == YAML_FILES
    files = {rel: (folder / rel).read_bytes() for rel in manifest.files}
    version, fixtures = read_version_files(files, None, manifest.fixture_kind)
    expected = sorted(rel for rel in manifest.files if rel.endswith((".yaml", ".yml")) and rel != "version.yaml")
    assert version["suite"] == "graph"
    assert len(fixtures) == len(expected) > 0
    assert all(isinstance(f["task_id"], str) and f["status"] in ("landed", "dropped") for f in fixtures)


def test_graph_and_generic_suites_are_of_kind_yaml_whose_fields_name_assets() -> None:
    assert fixture_kind_name("graph") == fixture_kind_name("generic") == YAML_FILES
    assert fixture_kind_name("records") == "records"
    yaml = kind_of(FixtureKindRecord(YAML_FILES, ""))
    assert isinstance(yaml, YamlFilesKind)
    assert yaml.asset_fields == FILE_FIELDS == ("assets", "graders")
    # What a fixture's named Python files import counts by content too, from the closure rules on.
    assert yaml.file_fields == (*FILE_FIELDS, IMPORTED_FIELD)
    assert kind_of(FixtureKindRecord(YAML_FILES, "", closure=0)).file_fields == FILE_FIELDS
    assert yaml.files_stand_alone and yaml.scaffolded and not yaml.made_of_files
    assert yaml.assets_read(["assets/repo.tar.gz", "graders/common.py"]) == ["graders/common.py"]
    records = kind_of(FixtureKindRecord("records", "instances/*.jsonl", task_id="instance_id"))
    assert records.asset_fields == () and not records.files_stand_alone and records.made_of_files


def test_a_yaml_fixture_is_any_yaml_file_or_the_globs_and_never_a_version_file() -> None:
    every = kind_of(FixtureKindRecord(YAML_FILES, ""))
    assert every.claims("a.yaml") and every.claims("deep/b.yml")
    assert not every.claims("version.yaml") and not every.claims("deep/version.yaml")
    assert not every.claims("data.json") and not every.claims("README.md")
    globbed = kind_of(FixtureKindRecord(YAML_FILES, "tasks/*.json"))
    assert globbed.claims("tasks/one.json") and not globbed.claims("a.yaml")
    assert not kind_of(FixtureKindRecord(YAML_FILES, "**")).claims("tasks/version.yaml")


def test_a_harness_names_a_yaml_fixture_by_its_task_id_and_a_folders_fixture_by_its_folder_too() -> None:
    yaml = kind_of(FixtureKindRecord(YAML_FILES, ""))
    folders = kind_of(FixtureKindRecord("folders", "tasks/*/", task_file="task.toml", task_id="name"))
    fixture = {"task_id": "t-1", "status": "landed", "files": ["tasks/hello-world/task.toml", "tasks/hello-world/a.sh"]}
    assert yaml.other_names(fixture) == []
    assert folders.other_names(fixture) == ["hello-world"]
    assert yaml.task_id_rule == "the task id"
    assert "folder" in folders.task_id_rule
