"""The typed domain: a ground-truth site, a fixture, a version draft, a manifest.

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

Raw = Mapping[str, Any]
# A fixture's status (the schemas' enum): landed fixtures are the benchmark; dropped ones are history.
FixtureStatus = Literal["landed", "dropped"]

# Freezer 0.1.0 reproduced Gate B with its own interpreter of rg's syntax; its manifests
# (format 1) do not say so, but the engine is known from the freezer version they record.
# The fixture fields that hold file:line sites in the code under test.
SITE_LISTS = ("ground_truth", "traps")
LEGACY_GREP_ENGINE = "freezer-rg-emulation"


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

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"sha": self.sha, "dimension": self.dimension, "effect": self.effect}
        for key in ("task", "declared_as", "subject"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out


@dataclass(frozen=True)
class Binary:
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
        )


@dataclass(frozen=True)
class Scan:
    """The undeclared-commit scan: every commit reachable from ``tips`` and from no ``excluded``
    commit, touching ``globs``, was declared."""

    excluded: tuple[str, ...]
    tips: tuple[str, ...]
    globs: tuple[str, ...]
    build_sha_known: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "excluded": list(self.excluded),
            "tips": list(self.tips),
            "globs": list(self.globs),
            "build_sha_known": self.build_sha_known,
        }


@dataclass(frozen=True)
class CodeHistory:
    """The code under test between two pinned SHAs, as git showed it at cut time."""

    from_sha: str
    to_sha: str
    ahead: int
    behind: int
    touching_ground_truth: tuple[Raw, ...]

    @classmethod
    def from_data(cls, data: Raw) -> CodeHistory:
        return cls(data["from"], data["to"], data["ahead"], data["behind"], tuple(data["touching_ground_truth"]))

    def to_json(self) -> dict[str, Any]:
        return {
            "from": self.from_sha,
            "to": self.to_sha,
            "ahead": self.ahead,
            "behind": self.behind,
            "touching_ground_truth": [dict(c) for c in self.touching_ground_truth],
        }


@dataclass(frozen=True)
class Checks:
    """What the checks of a cut used, besides the globs (kept with the scan)."""

    template_sha256: str
    grep: Raw
    dimensions: Mapping[str, str] | None  # None: not recorded (format 1)
    fixture_schema: Mapping[str, Any] | None = None  # {"kind", "sha256"}; None: the graph schema (before 0.2)

    def to_json(self) -> dict[str, Any]:
        return {
            "template_sha256": self.template_sha256,
            "grep": dict(self.grep),
            # A list: the order of the dimensions is the order §Delta shows them in, and JSON
            # objects are written with sorted keys.
            "dimensions": [{"dimension": k, "meaning": v} for k, v in (self.dimensions or {}).items()],
        }


@dataclass(frozen=True)
class Manifest:
    """manifest.json of a frozen version, in either format, read the same way.

    Format 1 (freezer 0.1.0) did not record what its checks used; what can be derived
    from it exactly (the template's hash, the scan) is derived, and what cannot (the
    code history) is ``None`` with ``code_history_recorded`` False.
    """

    format: int
    suite: str
    number: int
    name: str
    pinned_sha: str
    binary: Binary
    globs: tuple[str, ...]
    commits: tuple[SurfaceCommit, ...]
    scan: Scan | None  # None: a format-1 first version, which scanned nothing
    checks: Checks
    code_history: CodeHistory | None
    code_history_recorded: bool
    previous: tuple[str, str] | None  # (name, manifest sha256)
    files: Mapping[str, str]
    freezer_version: str
    raw: Raw

    @classmethod
    def from_data(cls, data: Raw) -> Manifest:
        binary = Binary.from_data(data["binary"])
        surface = data["tool_surface"]
        fmt = data["manifest_format"]
        if fmt >= 2:
            recorded = surface["scan"]
            scan: Scan | None = Scan(
                tuple(recorded["excluded"]),
                tuple(recorded["tips"]),
                tuple(recorded["globs"]),
                recorded["build_sha_known"],
            )
            recorded_checks = data["checks"]
            dimensions = {d["dimension"]: d["meaning"] for d in recorded_checks["dimensions"]}
            checks = Checks(
                recorded_checks["template_sha256"],
                recorded_checks["grep"],
                dimensions,
                recorded_checks.get("fixture_schema"),
            )
            history = CodeHistory.from_data(data["code_history"]) if data["code_history"] else None
        else:
            scan = None
            if surface["scanned_to"]:
                excluded = (surface["scanned_from"],) if surface["scanned_from"] else ()
                scan = Scan(excluded, (surface["scanned_to"],), tuple(surface["globs"]), binary.build_known)
            checks = Checks(
                data["files"].get("METHOD.md.j2", ""),
                {"engine": LEGACY_GREP_ENGINE, "version": data["freezer_version"]},
                None,
            )
            history = None
        previous = data["previous"]
        return cls(
            format=fmt,
            suite=data["suite"],
            number=data["version"],
            name=data["name"],
            pinned_sha=data["pinned_sha"]["full"],
            binary=binary,
            globs=tuple(surface["globs"]),
            commits=tuple(SurfaceCommit.from_data(c) for c in surface["commits"]),
            scan=scan,
            checks=checks,
            code_history=history,
            code_history_recorded=fmt >= 2,
            previous=(previous["name"], previous["manifest_sha256"]) if previous else None,
            files=data["files"],
            freezer_version=data["freezer_version"],
            raw=data,
        )

    @property
    def scan_tips(self) -> tuple[str, ...]:
        """Where the next version's scan must start excluding: everything this one covered."""
        if self.scan is not None:
            return self.scan.tips
        return (self.binary.build_sha or self.pinned_sha,)

    @property
    def scan_globs(self) -> tuple[str, ...]:
        return self.scan.globs if self.scan is not None else self.globs
