"""The delta as typed values: what :func:`freezer.compare.delta.compute` returns.

``Delta.to_json()`` is, key for key, the dict that is frozen as ``delta.json`` (formats 2 to 5;
2 and 3 have the same shape, format 3 only lists more check changes; format 4 adds ``run``, the
run configuration field by field, line diffs and the fixtures changed through their files; format
5 adds ``assets.claimed``, the fixtures each changed asset belongs to), so a frozen delta.json reads
back with ``Delta.from_json`` and writes out again byte for byte. 0.1.0's delta (delta_v1) has a
shape of its own and is not read here: METHOD.md renders any frozen delta.json raw.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

# FieldChange and its kinds are read from here too, where the rest of the delta is.
from freezer.compare.fieldchange import FieldChange, changes_of, listed
from freezer.domain.jsontypes import JsonObject
from freezer.domain.manifest import TouchingCommit
from freezer.domain.model import Raw


@dataclass(frozen=True)
class FixtureBrief:
    """A fixture added or removed: its id, class (may be absent) and status."""

    task_id: str
    class_: str | None
    status: str

    @classmethod
    def from_json(cls, data: Raw) -> FixtureBrief:
        return cls(data["task_id"], data["class"], data["status"])

    def to_json(self) -> JsonObject:
        return {"task_id": self.task_id, "class": self.class_, "status": self.status}


@dataclass(frozen=True)
class FixtureChange:
    """A fixture kept in both versions whose own fields differ, with each differing JSON path."""

    task_id: str
    fields: tuple[FieldChange, ...]

    def to_json(self) -> JsonObject:
        return {"task_id": self.task_id, "fields": listed(self.fields)}


@dataclass(frozen=True)
class FilesChange:
    """A fixture whose named files (assets, graders) changed content while it kept their names (format 4)."""

    task_id: str
    files: tuple[str, ...]

    def to_json(self) -> JsonObject:
        return {"task_id": self.task_id, "files": list(self.files)}


@dataclass(frozen=True)
class ClassCounts:
    """Landed fixtures per class on either side, and the classes that appeared or went."""

    before: dict[str, int]
    after: dict[str, int]
    added: tuple[str, ...]
    removed: tuple[str, ...]

    def to_json(self) -> JsonObject:
        return {
            "before": dict(self.before),
            "after": dict(self.after),
            "added": list(self.added),
            "removed": list(self.removed),
        }


@dataclass(frozen=True)
class FixtureDelta:
    """The fixtures' part of the delta (delta.json's ``fixtures``): what became of each fixture from one
    version to the next, by task id; ``freezer status`` computes it for the drafts too."""

    added: tuple[FixtureBrief, ...]
    removed: tuple[FixtureBrief, ...]
    changed: tuple[FixtureChange, ...]
    unchanged: tuple[str, ...]
    classes: ClassCounts
    # Format 4: fixtures changed through their files (None: not recorded, formats 2 and 3).
    through_files: tuple[FilesChange, ...] | None = None
    # Format 4: fixture files whose bytes changed (a comment, line endings; None: not recorded).
    files_in_bytes: tuple[str, ...] | None = None

    @property
    def moved(self) -> bool:
        """What moved the fixture set up to format 4; from format 5 the fixtures changed through
        their files move it too (the delta engine says so)."""
        return bool(self.added or self.removed or self.changed or self.files_in_bytes)

    def changed_ids(self) -> tuple[str, ...]:
        """Every fixture kept in both versions that changed: by its fields or through its files."""
        through = (f.task_id for f in self.through_files or ())
        return tuple(sorted({*(c.task_id for c in self.changed), *through}))

    def unchanged_yet_changed(self) -> tuple[str, ...]:
        """Fixtures listed as unchanged and as changed through their files at once: what format 4
        wrote for a fixture whose own fields stayed while a file of it changed (format 5 cannot)."""
        listed = set(self.unchanged)
        return tuple(sorted({f.task_id for f in self.through_files or () if f.task_id in listed}))

    @classmethod
    def from_json(cls, data: Raw) -> FixtureDelta:
        classes = data["classes"]
        through = data.get("changed_through_files")
        in_bytes = data.get("files_changed_in_bytes")
        return cls(
            tuple(FixtureBrief.from_json(f) for f in data["added"]),
            tuple(FixtureBrief.from_json(f) for f in data["removed"]),
            tuple(FixtureChange(c["task_id"], changes_of(c["fields"])) for c in data["changed"]),
            tuple(data["unchanged"]),
            ClassCounts(
                dict(classes["before"]), dict(classes["after"]), tuple(classes["added"]), tuple(classes["removed"])
            ),
            None if through is None else tuple(FilesChange(f["task_id"], tuple(f["files"])) for f in through),
            None if in_bytes is None else tuple(in_bytes),
        )

    def to_json(self) -> JsonObject:
        out: JsonObject = {
            "added": [f.to_json() for f in self.added],
            "removed": [f.to_json() for f in self.removed],
            "changed": [c.to_json() for c in self.changed],
            "unchanged": list(self.unchanged),
            "classes": self.classes.to_json(),
        }
        if self.through_files is not None:
            out["changed_through_files"] = [f.to_json() for f in self.through_files]
        if self.files_in_bytes is not None:
            out["files_changed_in_bytes"] = list(self.files_in_bytes)
        return out


@dataclass(frozen=True)
class ModeChange:
    """A changed asset's git mode before and after (format 4), and whether its bytes changed too."""

    old: str
    new: str
    bytes_changed: bool

    def text(self) -> str:
        return f"mode {self.old} → {self.new}" + (", new sha256 in the manifest" if self.bytes_changed else "")

    def to_json(self) -> JsonObject:
        return {"old": self.old, "new": self.new, "bytes_changed": self.bytes_changed}


@dataclass(frozen=True)
class AssetChanges:
    """Asset files (by path) added, removed and changed (by sha256; from format 4, or by mode:
    ``modes`` holds each changed file whose mode moved)."""

    added: tuple[str, ...]
    removed: tuple[str, ...]
    changed: tuple[str, ...]
    modes: Mapping[str, ModeChange] = field(default_factory=dict)
    # Format 5: each of those files that fixtures claim, with the fixtures (freezer.compare.claims);
    # the others are the suite's own assets, whose change moves the assets dimension.
    claimed: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def moved(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def of(self, verb: Literal["added", "removed", "changed"]) -> tuple[str, ...]:
        return {"added": self.added, "removed": self.removed, "changed": self.changed}[verb]

    def suite_own(self, verb: Literal["added", "removed", "changed"]) -> tuple[str, ...]:
        """The files of ``verb`` that no fixture claims: those that move the suite's assets."""
        return tuple(rel for rel in self.of(verb) if rel not in self.claimed)

    @classmethod
    def from_json(cls, data: Raw) -> AssetChanges:
        modes = {
            rel: ModeChange(m["old"], m["new"], m["bytes_changed"]) for rel, m in (data.get("modes") or {}).items()
        }
        claimed = {rel: tuple(tasks) for rel, tasks in (data.get("claimed") or {}).items()}
        return cls(tuple(data["added"]), tuple(data["removed"]), tuple(data["changed"]), modes, claimed)

    def to_json(self) -> JsonObject:
        out: JsonObject = {"added": list(self.added), "removed": list(self.removed), "changed": list(self.changed)}
        if self.modes:  # only where a mode moved: every other delta.json keeps its shape
            out["modes"] = {rel: change.to_json() for rel, change in sorted(self.modes.items())}
        if self.claimed:  # format 5, only where a changed file is some fixture's: the same
            out["claimed"] = {rel: list(tasks) for rel, tasks in sorted(self.claimed.items())}
        return out


@dataclass(frozen=True)
class DeltaCommit:
    """A tool-surface commit along the chain, with the version that declared it."""

    version: str
    sha: str
    declared_as: str | None
    task: str | None
    effect: str | None
    subject: str | None

    @classmethod
    def from_json(cls, data: Raw) -> DeltaCommit:
        return cls(data["version"], data["sha"], data["declared_as"], data["task"], data["effect"], data["subject"])

    def to_json(self) -> JsonObject:
        return {
            "version": self.version,
            "sha": self.sha,
            "declared_as": self.declared_as,
            "task": self.task,
            "effect": self.effect,
            "subject": self.subject,
        }


@dataclass(frozen=True)
class SurfaceEntry:
    """One tool-surface dimension and the commits to it along the chain (in dimension order)."""

    dimension: str
    meaning: str
    commits: tuple[DeltaCommit, ...]

    @classmethod
    def from_json(cls, data: Raw) -> SurfaceEntry:
        return cls(data["dimension"], data["meaning"], tuple(DeltaCommit.from_json(c) for c in data["commits"]))

    def to_json(self) -> JsonObject:
        return {"dimension": self.dimension, "meaning": self.meaning, "commits": [c.to_json() for c in self.commits]}


@dataclass(frozen=True)
class Unknown:
    """A dimension that cannot be said to have moved or not, and why."""

    dimension: str
    why: str

    def to_json(self) -> JsonObject:
        return {"dimension": self.dimension, "why": self.why}


@dataclass(frozen=True)
class BeforeAfter:
    """A value on either end (the Gate B grep oracle, the pinned SHA); ``before`` is None for a
    first version; ``after`` is None too where the version has no code under test (no pin, no Gate B)."""

    before: str | None
    after: str | None

    @property
    def moved(self) -> bool:
        return self.before != self.after

    def to_json(self) -> JsonObject:
        return {"before": self.before, "after": self.after}


@dataclass(frozen=True)
class CodeDelta:
    """The code under test between the pinned SHAs, summed over the chain."""

    recorded: bool
    not_recorded_by: tuple[str, ...]
    ahead: int
    behind: int
    touching_ground_truth: tuple[TouchingCommit, ...]

    @classmethod
    def from_json(cls, data: Raw) -> CodeDelta:
        touching = tuple(
            TouchingCommit(c["sha"], c["subject"], tuple(c["paths"])) for c in data["touching_ground_truth"]
        )
        return cls(data["recorded"], tuple(data["not_recorded_by"]), data["ahead"], data["behind"], touching)

    def to_json(self) -> JsonObject:
        return {
            "recorded": self.recorded,
            "not_recorded_by": list(self.not_recorded_by),
            "ahead": self.ahead,
            "behind": self.behind,
            "touching_ground_truth": [c.to_json() for c in self.touching_ground_truth],
        }


@dataclass(frozen=True)
class Delta:
    """Everything that changed from version ``from_`` to ``to`` (``from_`` is None for a first
    version, which compares nothing: then every comparison part is None or empty)."""

    delta_format: int
    from_: str | None
    to: str
    reversed: bool
    through: tuple[str, ...]
    tool_surface: tuple[SurfaceEntry, ...]
    caveats: tuple[str, ...]
    fixtures: FixtureDelta | None
    assets: AssetChanges | None
    version_record: tuple[FieldChange, ...]
    # Format 4 on: version.yaml's run configuration field by field; a first version lists every
    # field as added. Empty (and absent from to_json) in formats 2 and 3.
    run: tuple[FieldChange, ...]
    binary: tuple[FieldChange, ...]
    checks: tuple[FieldChange, ...]
    grep_oracle: BeforeAfter
    pinned_sha: BeforeAfter | None
    code: CodeDelta | None
    moved: tuple[str, ...]
    unmoved: tuple[str, ...]
    unknown: tuple[Unknown, ...]
    # Format 4 on, each absent from the JSON when empty (so every format-4 delta frozen before
    # they existed reads back byte for byte): version.yaml's sources: field by field (paths
    # "<name>.revision", ...), and the container images the fixtures name ("<task> <where>").
    sources: tuple[FieldChange, ...] = ()
    environment: tuple[FieldChange, ...] = ()

    @classmethod
    def from_json(cls, data: Raw) -> Delta:
        """A frozen delta.json of format 2 to 6 (or what :meth:`to_json` wrote)."""
        if data.get("delta_format") not in (2, 3, 4, 5, 6):
            raise ValueError(f"not a delta of format 2, 3, 4, 5 or 6: delta_format {data.get('delta_format')!r}")
        oracle, pinned = data["grep_oracle"], data["pinned_sha"]
        return cls(
            delta_format=data["delta_format"],
            from_=data["from"],
            to=data["to"],
            reversed=data["reversed"],
            through=tuple(data["through"]),
            tool_surface=tuple(SurfaceEntry.from_json(e) for e in data["tool_surface"]),
            caveats=tuple(data["caveats"]),
            fixtures=None if data["fixtures"] is None else FixtureDelta.from_json(data["fixtures"]),
            assets=None if data["assets"] is None else AssetChanges.from_json(data["assets"]),
            version_record=changes_of(data["version_record"]),
            run=changes_of(data["run"]) if data["delta_format"] >= 4 else (),
            binary=changes_of(data["binary"]),
            checks=changes_of(data["checks"]),
            grep_oracle=BeforeAfter(oracle["before"], oracle["after"]),
            pinned_sha=None if pinned is None else BeforeAfter(pinned["before"], pinned["after"]),
            code=None if data["code"] is None else CodeDelta.from_json(data["code"]),
            moved=tuple(data["moved"]),
            unmoved=tuple(data["unmoved"]),
            unknown=tuple(Unknown(u["dimension"], u["why"]) for u in data["unknown"]),
            sources=changes_of(data.get("sources") or ()),
            environment=changes_of(data.get("environment") or ()),
        )

    def to_json(self) -> JsonObject:
        """The delta.json record (written sorted by freezer.domain.canonical)."""
        out: JsonObject = {
            "delta_format": self.delta_format,
            "from": self.from_,
            "to": self.to,
            "reversed": self.reversed,
            "through": list(self.through),
            "tool_surface": [e.to_json() for e in self.tool_surface],
            "caveats": list(self.caveats),
            "fixtures": None if self.fixtures is None else self.fixtures.to_json(),
            "assets": None if self.assets is None else self.assets.to_json(),
            "version_record": listed(self.version_record),
            "binary": listed(self.binary),
            "checks": listed(self.checks),
            "grep_oracle": self.grep_oracle.to_json(),
            "pinned_sha": None if self.pinned_sha is None else self.pinned_sha.to_json(),
            "code": None if self.code is None else self.code.to_json(),
            "moved": list(self.moved),
            "unmoved": list(self.unmoved),
            "unknown": [u.to_json() for u in self.unknown],
        }
        if self.delta_format >= 4:  # formats 2 and 3 are frozen without it, and must read back byte for byte
            out["run"] = listed(self.run)
            for key, changes in (("sources", self.sources), ("environment", self.environment)):
                if changes:
                    out[key] = listed(changes)
        return out
