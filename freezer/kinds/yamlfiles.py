"""Kind ``yaml``: freezer's own format, one YAML (or JSON) file per fixture (suites of kind graph and generic).

Each file is a whole fixture whose fields are freezer's: its ``task_id`` and ``status`` are in it,
its ``assets`` and ``graders`` name the suite's assets, and the suite's schema (graph's, generic's
or its own) is applied to each file alone. A manifest records no kind for these versions
(:meth:`freezer.domain.fixturekind.FixtureKindRecord.of_manifest`): they are read as they always were.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from freezer.domain.fixturekind import FixtureKindRecord
from freezer.git.globs import compile_glob
from freezer.kinds.base import ConfigProblem, Files, KindFixture, KindRead
from freezer.parse.yamlload import load_bytes
from freezer.parse.yamllocate import YAML_SUFFIXES
from freezer.runtime import resources
from freezer.runtime.limits import MAX_WHOLE_FILE_BYTES

# Fixture fields that name files of the drafts, which are frozen and hashed with the version.
FILE_FIELDS = ("assets", "graders")
# The fixture fields that hold file:line sites in the code under test.
SITE_LISTS = ("ground_truth", "traps")
VERSION_FILE = "version.yaml"


def schema_name(suite_kind: str) -> str:
    """The shipped schema (schemas/<name>.schema.json) a YAML fixture of a suite of ``suite_kind`` meets."""
    return "generic" if suite_kind == "generic" else "fixture"


class YamlFilesKind:
    asset_fields = FILE_FIELDS
    file_fields = FILE_FIELDS
    reads_assets = False
    follows_closure = False
    files_stand_alone = True
    scaffolded = True
    # One document of freezer's: its mode was never frozen (manifests stay as they were), and its
    # assets: and graders: name assets alone.
    made_of_files = False
    task_id_rule = "the task id"

    def __init__(self, record: FixtureKindRecord) -> None:
        self.record = record
        # The suite's fixtures glob; none (and every frozen version: its manifest lists its
        # fixtures): every YAML file.
        self._glob = compile_glob(record.fixtures) if record.fixtures else None

    def claims(self, rel: str) -> bool:
        """A file the glob names, else every YAML file; never a version.yaml (at the top it is the
        version draft, below it a second one, which validate refuses)."""
        if rel.rsplit("/", 1)[-1] == VERSION_FILE:
            return False
        return self._glob.matches(rel) if self._glob is not None else rel.endswith(YAML_SUFFIXES)

    def read(self, files: Files) -> KindRead:
        found = KindRead()
        for rel in sorted(files.paths):
            data = files.bytes_of(rel, MAX_WHOLE_FILE_BYTES)
            if not isinstance(data, bytes):
                found.problems.append(data)
                continue
            loaded = load_bytes(data, files.display(rel))
            if loaded.document is None:
                found.problems.extend(loaded.problems[:1])
                continue
            document = loaded.document
            fields: Any = document.data
            if not isinstance(fields, dict):
                found.problems.append(document.problem((), "is not a mapping of fields", "kind"))
                continue
            fixture = KindFixture(str(fields.get("task_id")), str(fields.get("status")), (rel,), fields, document)
            found.fixtures.append(fixture)
        return found

    def canary_files(self, fixture_files: Sequence[str]) -> list[str]:
        return list(fixture_files)

    def other_names(self, fixture: Mapping[str, Any]) -> list[str]:
        return []

    @classmethod
    def config_problems(cls, kind: str, raw: Mapping[str, Any]) -> list[ConfigProblem]:
        """A YAML fixture names itself: the keys of the identity rule are for the other kinds."""
        return [
            (key, f"{key} is for kinds folders and records; a {kind} fixture names itself (its task_id)")
            for key in ("task_file", "task_id", "status_field", "dropped")
            if key in raw
        ]

    def builtin_schema(self, suite_kind: str) -> dict[str, Any]:
        return resources.schema(schema_name(suite_kind))
