"""Reading frozen versions for people and harnesses: summaries, details, diffs."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from freezer.compare import comparability
from freezer.compare.delta import compute as compute_delta
from freezer.compare.deltamodel import Delta
from freezer.compare.landeddigests import fixture_digests
from freezer.domain.errors import FreezerError, IntegrityError, UsageError
from freezer.domain.fixtureclass import class_counts
from freezer.domain.harbordigest import HarborDigest, harbor_digest
from freezer.domain.jsontypes import JsonObject, as_object
from freezer.domain.manifest import Manifest
from freezer.kinds.catalog import read_frozen
from freezer.kinds.folders import FoldersKind
from freezer.parse import tomlload
from freezer.registry import registry
from freezer.registry.config import SuiteConfig
from freezer.registry.integrity import integrity
from freezer.registry.model import Suite
from freezer.registry.record import (
    VersionData,
    arms_of,
    dimensions_of,
    frozen_file,
    groups_of,
    read,
    strictest_arms,
    strictest_groups,
)
from freezer.registry.registry import frozen_fixture_files
from freezer.runtime.limits import MAX_WHOLE_FILE_BYTES
from freezer.runtime.reading import read_whole

# A summary row's word for its version's files: they match their recorded hashes, or not.
Hashes = Literal["ok", "FAILED"]


@dataclass(frozen=True)
class SummaryRow:
    """A row of ``freezer list``: what the manifest says of one version; a version whose files
    cannot be read keeps its name and hashes verdict, and None (not a made-up value) for the rest."""

    version: str
    hashes: Hashes
    pinned_sha: str | None = None  # None: no code under test, or unreadable (cut_at None)
    cut_at: str | None = None
    landed: int | None = None
    dropped: int | None = None
    classes: tuple[str, ...] = ()

    @property
    def readable(self) -> bool:
        return self.cut_at is not None

    def to_json(self) -> JsonObject:
        return {
            "version": self.version,
            "hashes": self.hashes,
            "pinned_sha": self.pinned_sha,
            "cut_at": self.cut_at,
            "landed": self.landed,
            "dropped": self.dropped,
            "classes": list(self.classes),
        }


@dataclass(frozen=True)
class LogRow:
    """A row of ``freezer log``: one version's cut, fixtures and what moved since the one before
    it, by its manifest and frozen delta; or why they cannot be read (``error``)."""

    version: str
    error: str | None = None
    cut_at: str = ""
    pinned_sha: str | None = None
    landed: int = 0
    dropped: int = 0
    previous: str | None = None  # None: the first version
    moved: tuple[str, ...] = ()

    def to_json(self) -> JsonObject:
        if self.error is not None:
            return {"version": self.version, "error": self.error}
        return {
            "version": self.version,
            "cut_at": self.cut_at,
            "pinned_sha": self.pinned_sha,
            "landed": self.landed,
            "dropped": self.dropped,
            "previous": self.previous,
            "moved": list(self.moved),
        }


def find(suite: SuiteConfig, label: str) -> registry.FrozenVersion:
    return Suite.of(suite).version(label)


def summary_row(suite: SuiteConfig, frozen: registry.FrozenVersion) -> SummaryRow:
    result, _ = integrity(frozen)
    hashes: Hashes = "ok" if result.ok else "FAILED"
    try:
        data = read(frozen, verify=False)
    except Exception:  # noqa: BLE001 - a broken version still gets a row
        return SummaryRow(frozen.name, hashes)
    landed = [f for f in data.fixtures if f["status"] == "landed"]
    return SummaryRow(
        frozen.name,
        hashes,
        pinned_sha=data.manifest.pinned_full,
        cut_at=data.manifest.cut_at,
        landed=len(landed),
        dropped=len(data.fixtures) - len(landed),
        classes=tuple(class_counts(landed)),
    )


def diff(suite: SuiteConfig, a: registry.FrozenVersion, b: registry.FrozenVersion, *, full: bool = False) -> Delta:
    """The delta between any two frozen versions, by the engine that writes §Delta.

    Every version between them is read too: the tool-surface commits and the code history
    happened along the chain, and only the versions in between recorded them. Asked the
    other way round (v2 → v1), the delta is shown in chain order and says it was reversed.
    ``full`` keeps every changed value as it is (numbers as numbers, text and hashes whole)
    instead of the clipped text METHOD.md shows.
    """
    reversed_ = a.number > b.number
    low, high = (b, a) if reversed_ else (a, b)
    if low.number == high.number:
        raise UsageError(f"{a.name} and {b.name} are the same version; name two different versions")
    sides = [read(v).side() for v in Suite.of(suite).between(low, high)]
    return compute_delta(sides, dimensions_of(sides[-1].manifest), reversed_=reversed_, full=full)


class _FrozenBytes(Mapping[str, bytes]):
    """A version's files by path, each read when asked for: a kind reads only its task files."""

    def __init__(self, data: VersionData) -> None:
        self._data = data
        self._checked: set[str] = set()

    def __getitem__(self, rel: str) -> bytes:
        if rel not in self._data.manifest.files:
            raise KeyError(rel)
        path = frozen_file(self._data.frozen, rel, self._checked)
        try:
            return read_whole(path, MAX_WHOLE_FILE_BYTES)
        except OSError as exc:
            raise IntegrityError(
                f"{path}: cannot be read: {exc.strerror or exc}", hint="run freezer audit for the full report"
            ) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._data.manifest.files)

    def __len__(self) -> int:
        return len(self._data.manifest.files)


def harbor_digests(data: VersionData) -> dict[str, HarborDigest] | None:
    """Each landed task's Harbor content digest, by task id, for a ``kind: folders`` version (None
    for any other kind): over the frozen file hashes of the task's folder
    (:mod:`freezer.domain.harbordigest`), named as Harbor names the task."""
    manifest = data.manifest
    kind = manifest.fixture_kind
    if kind.kind != "folders":
        return None
    landed = {f["task_id"] for f in data.fixtures if f["status"] == "landed"}
    files = _FrozenBytes(data)
    found = read_frozen(kind, files, frozen_fixture_files(manifest))
    if found.problems:
        first = found.problems[0]
        raise IntegrityError(f"{first.file}: frozen file cannot be read: {first.message}")
    folders = FoldersKind(kind)
    out = {}
    for fixture in found.fixtures:
        folder = folders.folder_of(fixture.files[0]) if fixture.task_id in landed and fixture.files else None
        if folder is None:
            continue
        hashes = {rel[len(folder) :]: manifest.files[rel] for rel in fixture.files}
        out[fixture.task_id] = harbor_digest(_harbor_name(manifest, files, folder), hashes)
    return dict(sorted(out.items()))


def digest_records(data: VersionData) -> dict[str, dict[str, object]]:
    """``show --format json``'s ``fixture_digests``: each landed fixture's digests by task id, with
    its Harbor digest in a ``kind: folders`` version."""
    harbor = harbor_digests(data)
    records: dict[str, dict[str, object]] = {}
    for task, digests in fixture_digests(data).items():
        record: dict[str, object] = dict(digests.to_json())
        if harbor is not None and task in harbor:
            record["harbor"] = harbor[task].to_json()
        records[task] = record
    return records


def _harbor_name(manifest: Manifest, files: Mapping[str, bytes], folder: str) -> str:
    """Harbor's name for a task: its task.toml's ``[task] name``, else the folder's name."""
    rel = folder + "task.toml"
    if rel in manifest.files:
        # A task.toml that does not load (Harbor could not load the task either) names nothing.
        document = tomlload.load_bytes(files[rel], rel).document
        task = document.data.get("task") if document is not None and isinstance(document.data, dict) else None
        if isinstance(task, dict) and isinstance(task.get("name"), str) and task["name"]:
            return str(task["name"])
    return folder.rstrip("/").rsplit("/", 1)[-1]


def compare(
    suite: SuiteConfig,
    a: registry.FrozenVersion,
    b: registry.FrozenVersion,
    arm: str | None = None,
    *,
    depends: Sequence[str] | None = None,
) -> list[Any]:
    """Per-fixture comparability of two frozen versions, for one arm or for each of their arms.

    What was frozen rules: the arms, the dimensions and the field groups are the ones the two
    versions were cut with, never today's freezer.yaml; where the two disagree (an arm that
    depends on more, a field moved from grading to cosmetic) the stricter reading holds for both.
    ``depends`` compares for an arm known by what it depends on, not by a name both versions
    have (results pool an arm renamed between them): ``arm`` is then only its label.
    """
    if a.number == b.number:
        raise UsageError(f"{a.name} and {b.name} are the same version; name two different versions")
    low, high = (a, b) if a.number < b.number else (b, a)
    sides = [read(v).side() for v in Suite.of(suite).between(low, high)]
    old, new = sides[0].manifest, sides[-1].manifest
    meanings = dimensions_of(new)
    arms = strictest_arms(arms_of(old), arms_of(new))
    groups = strictest_groups(groups_of(low, old), groups_of(high, new))
    if arm is not None and depends is not None:
        arms = {arm: tuple(depends)}
    elif arm is not None:
        if arm not in arms:
            raise UsageError(f"suite {suite.name!r} has no arm {arm!r}; its arms: {', '.join(arms)}")
        arms = {arm: arms[arm]}
    return comparability.compare(sides, meanings, arms, groups)


def log_rows(suite: SuiteConfig) -> list[LogRow]:
    """One row per frozen version, newest first, from the manifests and the frozen deltas alone
    (no audit: ``freezer audit`` proves them)."""
    rows = []
    for frozen in reversed(Suite.of(suite).versions()):
        try:
            data = read(frozen, verify=False)
            delta = as_object(json.loads(read_whole(frozen.path / registry.DELTA)))
            if delta is None:
                raise ValueError(f"{registry.DELTA} is not a JSON object")
        except (IntegrityError, OSError, ValueError, RecursionError, FreezerError) as exc:
            rows.append(LogRow(frozen.name, error=exc.message if isinstance(exc, FreezerError) else str(exc)))
            continue
        landed = [f for f in data.fixtures if f["status"] == "landed"]
        previous, moved = delta.get("from"), delta.get("moved")
        rows.append(
            LogRow(
                frozen.name,
                cut_at=data.manifest.cut_at,
                pinned_sha=data.manifest.pinned_full,
                landed=len(landed),
                dropped=len(data.fixtures) - len(landed),
                previous=previous if isinstance(previous, str) else None,
                moved=tuple(m for m in moved if isinstance(m, str)) if isinstance(moved, list) else (),
            )
        )
    return rows
