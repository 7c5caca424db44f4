"""The kinds by name: the one place a :class:`~freezer.domain.manifest.FixtureKindRecord` becomes a kind."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from freezer.domain.manifest import FixtureKindRecord
from freezer.kinds.base import Files, Kind, KindRead
from freezer.kinds.folders import FoldersKind
from freezer.kinds.records import RecordsKind


def kind_of(record: FixtureKindRecord) -> Kind:
    if record.kind == "folders":
        return FoldersKind(record)
    return RecordsKind(record)


def file_fields(record: FixtureKindRecord) -> tuple[str, ...]:
    """The fields of a kind's parsed fixture whose listed files count by their content (a task
    field called ``assets`` is the benchmark's own, not a list of freezer's assets; graph and generic
    fixtures have :data:`freezer.validate.rules.FILE_FIELDS`)."""
    return kind_of(record).file_fields


def canary_files(record: FixtureKindRecord | None, fixture_files: Sequence[str]) -> list[str]:
    """The fixture files that must carry a suite's canary: every one (one YAML file a fixture, a
    records file), or for kind folders each folder's task file (an image or a script need not)."""
    if record is None or record.kind != "folders":
        return list(fixture_files)
    kind = FoldersKind(record)
    return [rel for rel in fixture_files if kind.task_file_of(rel)]


def read_fixtures(kind: Kind, files: Files) -> KindRead:
    """The fixtures of ``files`` (every one claimed by ``kind``), and the ids of the suite's
    ``dropped`` list that name none of them."""
    found = kind.read(files)
    ids = {fixture.task_id for fixture in found.fixtures}
    found.unknown_dropped = [task for task in kind.record.dropped if task not in ids]
    return found


def read_frozen(record: FixtureKindRecord, files: Mapping[str, bytes]) -> KindRead:
    """The fixtures of a frozen version's files (already read, and checked against their hashes)."""
    kind = kind_of(record)
    return read_fixtures(kind, Files([rel for rel in files if kind.claims(rel)], files.__getitem__))
