"""The typed domain: a ground-truth site, a fixture, a version draft (the manifest is
:mod:`freezer.domain.manifest`'s).

Each is built from data that already passed its JSON Schema, so building one
never fails on shape. Each also keeps the plain data it came from (``raw``):
the field-by-field delta and the METHOD.md template walk that generically,
while the rules, the provenance checks and the delta engine read the typed
fields, so strict mypy sees into them.

Plain dataclasses, not a validation library: the schemas already validate
(and locate every problem), so a second validator would only disagree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from freezer.domain.jsontypes import JsonObject

Raw = Mapping[str, Any]
# A fixture's status (the schemas' enum): landed fixtures are the benchmark; dropped ones are history.
FixtureStatus = Literal["landed", "dropped"]


@dataclass(slots=True)  # not frozen: a cut builds one per site, and frozen dataclasses build 3x slower
class Site:
    """One ground-truth or trap site: a file and the line(s) it names."""

    file: str
    field: str  # which key named the lines: "line", "lines" or "range"
    lines: tuple[int, ...]  # a range gives (start, end)
    symbol: str | None
    container: str | None
    members: tuple[str, ...]

    @classmethod
    def from_data(cls, data: Raw) -> Site:
        lines: tuple[int, ...]
        if "line" in data:
            field, lines = "line", (data["line"],)
        elif "lines" in data:
            field, lines = "lines", tuple(data["lines"])
        else:
            field, lines = "range", (data["range"]["start"], data["range"]["end"])
        members = data.get("members")
        return cls(data["file"], field, lines, data.get("symbol"), data.get("container"), tuple(members or ()))


@dataclass(frozen=True)
class Fixture:
    """One fixture, landed (part of the benchmark) or dropped (a candidate kept as history), with the sites it names."""

    task_id: str
    fixture_class: str
    status: FixtureStatus
    ground_truth: tuple[Site, ...]
    traps: tuple[Site, ...]
    raw: Raw

    @classmethod
    def from_data(cls, data: Raw) -> Fixture:
        return cls(
            data["task_id"],
            data.get("class") or "",
            data["status"],
            tuple(Site.from_data(s) for s in data.get("ground_truth") or ()),
            tuple(Site.from_data(s) for s in data.get("traps") or ()),
            data,
        )

    @property
    def landed(self) -> bool:
        return self.status == "landed"

    def site_files(self) -> set[str]:
        return {site.file for site in (*self.ground_truth, *self.traps)}


@dataclass(frozen=True)
class SurfaceCommit:
    """A declared tool-surface commit; ``sha`` is full once resolved (in a manifest)."""

    sha: str
    dimension: str
    effect: str
    task: str | None = None
    declared_as: str | None = None
    subject: str | None = None

    @classmethod
    def from_data(cls, data: Raw) -> SurfaceCommit:
        optional = (data.get("task"), data.get("declared_as"), data.get("subject"))
        return cls(data["sha"], data["dimension"], data["effect"], *optional)

    def to_json(self) -> JsonObject:
        out: JsonObject = {"sha": self.sha, "dimension": self.dimension, "effect": self.effect}
        for key in ("task", "declared_as", "subject"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out


@dataclass(frozen=True)
class Binary:
    """version.yaml's ``binary:``: the tool binary every provider of the sweep ran, and where it was built from."""

    name: str
    build_sha: str | None
    build_sha_unknown: str | None
    raw: Raw

    @classmethod
    def from_data(cls, data: Raw) -> Binary:
        return cls(data["name"], data.get("build_sha"), data.get("build_sha_unknown"), data)

    @property
    def build_known(self) -> bool:
        return self.build_sha is not None


# A run parameter's value, as the version schema allows it.
ParameterValue = str | int | float | bool | tuple[str, ...]


@dataclass(frozen=True)
class Harness:
    """The harness code a sweep ran: files in the drafts (frozen as assets) and/or a repository commit."""

    paths: tuple[str, ...]
    repo: str | None
    commit: str | None

    @classmethod
    def from_data(cls, data: Raw) -> Harness:
        return cls(tuple(data.get("paths") or ()), data.get("repo"), data.get("commit"))


@dataclass(frozen=True)
class RunConfig:
    """version.yaml's ``run:`` block: how the sweep runs the fixtures. Scores of an arm that depends
    on ``run`` compare only while it stays the same; ``raw`` is what the delta diffs field by field."""

    harness: Harness | None
    models: Mapping[str, str]  # role (main, probe, ...) -> model id
    seeds: tuple[int, ...]
    budgets: Mapping[str, float]
    timeouts: Mapping[str, float]  # seconds
    parameters: Mapping[str, ParameterValue]
    raw: Raw

    @classmethod
    def from_data(cls, data: Raw) -> RunConfig:
        harness = data.get("harness")
        parameters = {
            name: tuple(value) if isinstance(value, list) else value
            for name, value in (data.get("parameters") or {}).items()
        }
        return cls(
            Harness.from_data(harness) if harness is not None else None,
            dict(data.get("models") or {}),
            tuple(data.get("seeds") or ()),
            dict(data.get("budgets") or {}),
            dict(data.get("timeouts") or {}),
            parameters,
            data,
        )


@dataclass(frozen=True)
class VersionDraft:
    """version.yaml: the set-level record of a version."""

    suite: str
    number: int
    pinned_sha: str
    binary: Binary
    commits: tuple[SurfaceCommit, ...]
    min_landed: int
    min_classes: int
    raw: Raw
    run: RunConfig | None = None  # None: the draft states no run configuration

    @classmethod
    def from_data(cls, data: Raw) -> VersionDraft:
        return cls(
            data["suite"],
            data["version"],
            data["pinned_sha"],
            Binary.from_data(data["binary"]),
            tuple(SurfaceCommit.from_data(c) for c in data["tool_surface_commits"]),
            data["acceptance"]["min_landed"],
            data["acceptance"]["min_classes"],
            data,
            RunConfig.from_data(data["run"]) if "run" in data else None,
        )


# What a data source is (the version schema's enum).
SourceKind = Literal["huggingface", "git", "url"]


@dataclass(frozen=True)
class Source:
    """One entry of version.yaml's ``sources:``: a data source the fixtures are drawn from, with the
    revision the author pinned. freezer never fetches it: the pin is what a reader checks against."""

    name: str
    kind: SourceKind
    revision: str
    notes: str | None

    @classmethod
    def from_data(cls, data: Raw) -> Source:
        return cls(data["name"], data["kind"], data["revision"], data.get("notes"))


def sources_of(version: Raw) -> tuple[Source, ...]:
    """The data sources a version.yaml pins (none when it has no ``sources:``)."""
    return tuple(Source.from_data(s) for s in version.get("sources") or ())
