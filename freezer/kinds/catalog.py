"""The kinds by name: the one place a :class:`~freezer.domain.manifest.FixtureKindRecord` becomes a kind."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from freezer.domain.manifest import FixtureKindRecord
from freezer.kinds.base import Files, Kind, KindRead
from freezer.kinds.folders import FoldersKind
from freezer.kinds.lmeval import LmEvalKind, order_warnings
from freezer.kinds.records import RecordsKind
from freezer.parse.document import YamlDocument


def kind_of(record: FixtureKindRecord) -> Kind:
    if record.kind == "folders":
        return FoldersKind(record)
    if record.kind == "lm-eval":
        return LmEvalKind(record)
    return RecordsKind(record)


def file_fields(record: FixtureKindRecord) -> tuple[str, ...]:
    """The fields of a kind's parsed fixture whose listed files count by their content (a task
    field called ``assets`` is the benchmark's own, not a list of freezer's assets; graph and generic
    fixtures have :data:`freezer.validate.rules.FILE_FIELDS`)."""
    return kind_of(record).file_fields


def reads_assets(record: FixtureKindRecord) -> bool:
    """Whether reading the fixtures needs the suite's assets too (an lm-eval task merges the
    template it includes, an asset), so a reader of a frozen version reads them with the fixtures."""
    return record.kind == "lm-eval"


def cut_warnings(documents: Sequence[YamlDocument]) -> list[str]:
    """What a cut warns about in the fixtures a kind read (an lm-eval key whose value depends on
    the order of its includes); nothing for the other kinds."""
    return order_warnings(documents)


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


def read_frozen(
    record: FixtureKindRecord, files: Mapping[str, bytes], fixtures: Collection[str] | None = None
) -> KindRead:
    """The fixtures of a frozen version's files (already read, and checked against their hashes):
    of those among ``fixtures`` (the manifest's fixture files, when given) that the kind claims;
    every other file is there for what a fixture depends on (an lm-eval task's template)."""
    kind = kind_of(record)
    chosen = [rel for rel in files if (fixtures is None or rel in fixtures) and kind.claims(rel)]
    taken = set(chosen)
    others = [rel for rel in files if rel not in taken]
    # Already read (under MAX_WHOLE_FILE_BYTES); the kind's parser holds each file to its own bound.
    return read_fixtures(kind, Files(chosen, lambda rel, _limit: files[rel], others=others))
