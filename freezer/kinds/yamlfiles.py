"""Kind ``yaml``: freezer's own format, one YAML (or JSON) file per fixture (suites of kind graph and generic).

Each file is a whole fixture whose fields are freezer's: its ``task_id`` and ``status`` are in it,
its ``assets`` and ``graders`` name the suite's assets, and the suite's schema (graph's, generic's
or its own) is applied to each file alone. A manifest records no kind for these versions
(:meth:`freezer.domain.fixturekind.FixtureKindRecord.of_manifest`): they are read as they always were.

From the closure rules of :mod:`freezer.kinds.closure` on (a manifest's ``dependency_closure``), a
fixture also depends on what the Python files it names import within the suite (a grader importing
``graders/common.py``): listed in :data:`IMPORTED_FIELD` and counted by content like the files it
names, with what they import from outside the suite in ``external_imports``. validate adds them to
the drafts' fixtures through :meth:`YamlFilesKind.close`, and a frozen version's reader through
:meth:`YamlFilesKind.read`, over the version's Python assets (:meth:`YamlFilesKind.assets_read`).
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from freezer.domain.fixturekind import COMPOSE_BUILDS_SINCE, FixtureKindRecord
from freezer.domain.jsontypes import JsonValue
from freezer.domain.problems import Problem
from freezer.git.globs import GlobError, compile_glob
from freezer.kinds.base import EXTERNAL_FIELD, ConfigProblem, Files, KindFixture, KindRead
from freezer.parse.compose import is_compose, may_be_built
from freezer.parse.document import YamlDocument
from freezer.parse.yamlload import load_bytes
from freezer.parse.yamllocate import YAML_SUFFIXES
from freezer.runtime import resources
from freezer.runtime.limits import MAX_WHOLE_FILE_BYTES

# Fixture fields that name files of the drafts, which are frozen and hashed with the version.
FILE_FIELDS = ("assets", "graders")
VERSION_FILE = "version.yaml"
# The field of a parsed fixture listing the files of the suite its named Python files import
# (its dependency closure beyond what it names), counted by their content as the file fields are.
IMPORTED_FIELD = "imported_files"
_WILDCARDS = "*?[\\"
_PYTHON = ".py"  # the files whose imports a closure follows (freezer.parse.pyimports reads them)


def schema_name(suite_kind: str) -> str:
    """The shipped schema (schemas/<name>.schema.json) a YAML fixture of a suite of ``suite_kind`` meets."""
    return "generic" if suite_kind == "generic" else "fixture"


class YamlFilesKind:
    asset_fields = FILE_FIELDS
    follows_closure = True  # a grader depends on what it imports
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

    @property
    def file_fields(self) -> tuple[str, ...]:
        return (*FILE_FIELDS, IMPORTED_FIELD) if self.record.closure >= 1 else FILE_FIELDS

    @property
    def owned_groups(self) -> dict[str, str]:
        """freezer's own fields of a YAML fixture: its identity, the files it names and imports, and its class."""
        owned = {"task_id": "identity", "status": "identity", "assets": "input", "graders": "grading"}
        return {**owned, "class": "cosmetic", IMPORTED_FIELD: "input", EXTERNAL_FIELD: "input"}

    def assets_read(self, assets: Sequence[str]) -> list[str]:
        """The Python assets, and the compose files and Dockerfiles a compose build can name: what a
        fixture's closure is read from (its other assets count by hash)."""
        return [rel for rel in assets if self._followed(rel) or (self._builds() and may_be_built(rel))]

    def _builds(self) -> bool:
        return self.record.closure >= COMPOSE_BUILDS_SINCE

    def _followed(self, rel: str) -> bool:
        """A file whose closure is followed: a Python module, or a compose file under rules that read its builds."""
        return rel.endswith(_PYTHON) or (self._builds() and is_compose(rel))

    def close(self, documents: Iterable[YamlDocument], files: Files) -> list[Problem]:
        """Each fixture (parsed, its data changed in place) gains what the Python files its file
        fields name import within the suite (:data:`IMPORTED_FIELD`) and from outside it
        (``external_imports``); a fixture holding either field itself is refused, as the field is
        freezer's. Nothing under the rules of a version cut before the closure."""
        if self.record.closure < 1:
            return []
        known = {*files.paths, *files.others}
        followed = sorted(rel for rel in known if self._followed(rel))
        closures = None
        if followed:
            # start-up time: the import reader is for suites with Python or compose files; a validate
            # hook on a suite of YAML alone (the usual graph suite) never loads it
            from freezer.kinds.closure import Closures

            closures = Closures(files, self.record.closure)
        problems = []
        for document in documents:
            data = document.data
            own = [key for key in (IMPORTED_FIELD, EXTERNAL_FIELD) if key in data]
            if own:
                message = f"a field named {own[0]!r} is freezer's own (the fixture's dependency closure); rename it"
                problems.append(document.problem((own[0],), message, "kind"))
                continue
            if closures is None:
                continue
            written = [entry for key in FILE_FIELDS for entry in entries(data, key)]
            named = [rel for entry in written for rel in _followed(entry, known, followed)]
            closure = closures.of(named)
            if closure.files:
                data[IMPORTED_FIELD] = list(closure.files)
            if closure.external:
                data[EXTERNAL_FIELD] = list(closure.external)
        return problems

    def claims(self, rel: str) -> bool:
        """A file the glob names, else every YAML file; never a version.yaml (at the top it is the
        version draft, below it a second one, which validate refuses)."""
        if rel.rsplit("/", 1)[-1] == VERSION_FILE:
            return False
        return self._glob.matches(rel) if self._glob is not None else rel.endswith(YAML_SUFFIXES)

    def claims_draft(self, rel: str, path: Path) -> bool:
        return self.claims(rel)

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
        found.problems.extend(self.close((fixture.document for fixture in found.fixtures), files))
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


def entries(fixture: Mapping[str, JsonValue], key: str) -> list[str]:
    """The entries of ``fixture``'s ``key`` list, as written (none if it is not a list)."""
    value = fixture.get(key)
    return [str(entry) for entry in value] if isinstance(value, list) else []


def glob_literal(entry: str) -> str:
    """The part of an ``assets:`` or ``graders:`` entry before its first wildcard: every file it
    names starts with it (the whole entry, for a file or folder)."""
    return entry[: min([entry.find(c) for c in _WILDCARDS if c in entry] or [len(entry)])]


def _followed(entry: str, known: Collection[str], followed: Sequence[str]) -> list[str]:
    """The files of the suite whose closure is followed (``followed``, sorted) that an ``assets:`` or
    ``graders:`` entry names: the file itself, or those a folder or glob entry matches (read as
    :mod:`freezer.validate.namedfiles` reads it)."""
    if entry in known:
        return [entry] if entry in followed else []
    return glob_matches(entry, followed)


def glob_matches(entry: str, paths: Sequence[str]) -> list[str]:
    """The paths of ``paths`` (sorted) that a folder or glob ``entry`` matches; none for a glob git
    would refuse. Only a path starting with the entry's literal part can match: a bisect, not a scan,
    and an entry no path starts like (most of them) is never compiled."""
    literal = glob_literal(entry)
    start = bisect.bisect_left(paths, literal)
    candidates = list(itertools.takewhile(lambda rel: rel.startswith(literal), paths[start:]))
    if not candidates:
        return []
    try:
        glob = compile_glob(entry)
    except GlobError:
        return []
    return [rel for rel in candidates if glob.matches(rel)]
