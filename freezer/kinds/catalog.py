"""The kinds by name: the one place a :class:`~freezer.domain.manifest.FixtureKindRecord` becomes a kind.

:data:`KINDS` is the one registration point: a kind's name maps to the class built from its record,
or to where that class is (``module:Class``), imported the first time a suite or a version names it.
Everything else about a kind (which files are a fixture's, its fields, what it depends on) is asked
of the kind itself.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection, Mapping
from typing import Any

from freezer.domain.errors import IntegrityError
from freezer.domain.escape import quoted
from freezer.domain.fixturekind import CLOSURE_RULES, YAML_FILES, FixtureKindRecord
from freezer.kinds.base import ConfigProblem, Files, Kind, KindClass, KindRead
from freezer.kinds.yamlfiles import YamlFilesKind

# freezer's own YAML files are read by every registry (graph and generic suites, and freezer.yaml's
# checks); each other kind is named by where its class is, so its parsers (lm-eval's dependency
# closure, TOML, strict JSON) are imported only when a suite or a version of that kind is read, and
# a pre-commit validate of a graph suite does not pay for them at every start.
KINDS: dict[str, KindClass | str] = {
    YAML_FILES: YamlFilesKind,
    "folders": "freezer.kinds.folders:FoldersKind",
    "records": "freezer.kinds.records:RecordsKind",
    "lm-eval": "freezer.kinds.lmeval:LmEvalKind",
}


def kind_class(name: str) -> KindClass | None:
    """The class of the kind ``name`` (imported now if the catalog names where it is), or None."""
    entry = KINDS.get(name)
    if not isinstance(entry, str):
        return entry
    module, _, attribute = entry.partition(":")
    # The import statement's path, not importlib.import_module: python -X importtime, the measure of
    # the hooks' start-up budget, logs only that path, and a kind's module is part of what a hook pays.
    __import__(module)
    found: KindClass = getattr(sys.modules[module], attribute)
    return found


def kind_of(record: FixtureKindRecord) -> Kind:
    made = kind_class(record.kind)
    if made is None:  # a manifest of a later freezer, or one edited by hand
        known = ", ".join(sorted(name for name in KINDS if name != YAML_FILES))
        raise IntegrityError(f"fixture kind {record.kind!r} is not one this freezer reads ({known})")
    return made(record)


# The suites' kinds written in freezer's own YAML files, each with its built-in schema.
YAML_SUITE_KINDS = ("graph", "generic")


def suite_kinds() -> tuple[str, ...]:
    """Every ``kind:`` a suite's freezer.yaml may name: graph, generic, and each kind of the catalog."""
    return (*YAML_SUITE_KINDS, *(name for name in KINDS if name != YAML_FILES))


def config_problems(suite_kind: str, raw: Mapping[str, Any]) -> list[ConfigProblem]:
    """What a suite's freezer.yaml entry of kind ``suite_kind`` lacks or holds wrongly for its kind
    (key, message); an unknown kind is refused by its name alone."""
    if suite_kind not in suite_kinds():
        return [("kind", f"{quoted(suite_kind)} is not one of {', '.join(map(repr, suite_kinds()))}")]
    made = kind_class(fixture_kind_name(suite_kind))
    assert made is not None  # suite_kinds() holds only the catalog's names and graph and generic (yaml's)
    return made.config_problems(suite_kind, raw)


def fixture_kind_name(suite_kind: str) -> str:
    """The fixture kind of a suite's ``kind:`` in freezer.yaml: its own when it names one of
    :data:`KINDS`, else (graph, generic) freezer's own YAML files."""
    return suite_kind if suite_kind in KINDS and suite_kind != YAML_FILES else YAML_FILES


def builtin_schema(suite_kind: str) -> dict[str, Any]:
    """The fixture schema of a suite that gives none of its own: its kind's."""
    return kind_of(FixtureKindRecord(fixture_kind_name(suite_kind), "")).builtin_schema(suite_kind)


def read_fixtures(kind: Kind, files: Files) -> KindRead:
    """The fixtures of ``files`` (every one claimed by ``kind``), and the ids of the suite's
    ``dropped`` list that name none of them."""
    found = kind.read(files)
    ids = {fixture.task_id for fixture in found.fixtures}
    found.unknown_dropped = [task for task in kind.record.dropped if task not in ids]
    return found


def read_frozen(
    record: FixtureKindRecord,
    files: Mapping[str, bytes],
    fixtures: Collection[str],
    display: Callable[[str], str] = str,
) -> KindRead:
    """The fixtures of a frozen version's files (already read, and checked against their hashes):
    those among ``fixtures`` (the manifest's fixture files); every other file is there for what a
    fixture depends on (an lm-eval task's template)."""
    kind = kind_of(record)
    chosen = [rel for rel in files if rel in fixtures]
    taken = set(chosen)
    others = [rel for rel in files if rel not in taken]
    # Already read (under MAX_WHOLE_FILE_BYTES); the kind's parser holds each file to its own bound.
    return read_fixtures(kind, Files(chosen, lambda rel, _limit: files[rel], display, others=others))


def closure_growth(record: FixtureKindRecord, files: Mapping[str, bytes], fixtures: Collection[str]) -> list[str]:
    """The fixtures of a frozen version cut under older closure rules that today's rules would make
    depend on more (an import, a group's override): its record stands as it was cut, and the audit
    says which once. None for a version cut under today's rules, or of a kind that names all it uses."""
    if record.closure >= CLOSURE_RULES or not kind_of(record).follows_closure:
        return []
    recorded = {fixture.task_id: fixture.data for fixture in read_frozen(record, files, fixtures).fixtures}
    today = read_frozen(record._replace(closure=CLOSURE_RULES), files, fixtures).fixtures
    return sorted(fixture.task_id for fixture in today if recorded.get(fixture.task_id) != fixture.data)
