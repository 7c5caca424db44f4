"""manifest.json, typed: the one reader of every manifest format and the one writer of the current ones.

:meth:`Manifest.from_data` reads format 1 (freezer 0.1.0), 2 and 3 from data that already passed
the manifest schema, so building one never fails on shape. :meth:`Manifest.to_json` gives back
the JSON record a cut writes (formats 2 and 3; format 1 is read-only): with
:func:`freezer.domain.canonical.frozen_file` it is the frozen manifest byte for byte, which the
tests prove for every manifest a cut writes. Everything a reader asks of a manifest is a typed
field here; raw JSON stays at the boundary (the registry's reader and the schema check).

Canonical order: ``files`` is sorted by path, ``comparability.arms`` and ``groups`` by name and
``comparability.fixtures`` by task id, as the manifest is written with sorted keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from freezer.domain.images import ImageRef
from freezer.domain.model import Binary, Raw, SurfaceCommit
from freezer.domain.scan import Followed, Scan, ScanUnknown, SubmoduleScan, TouchingCommit

ManifestFormat = Literal[1, 2, 3]
FixtureSchemaKind = Literal["graph", "generic", "custom"]
# Freezer 0.1.0 reproduced Gate B with its own interpreter of rg's syntax; its manifests
# (format 1) do not say so, but the engine is known from the freezer version they record.
LEGACY_GREP_ENGINE = "freezer-rg-emulation"
# The scan's records live in freezer.domain.scan; readers have always found them here.
__all__ = [
    "LEGACY_GREP_ENGINE",
    "Checks",
    "CodeHistory",
    "CodeRepoIdentity",
    "Comparability",
    "Contents",
    "FixtureDigests",
    "FixtureSchemaKind",
    "FixtureSchemaRecord",
    "Followed",
    "GrepOracle",
    "Manifest",
    "ManifestFormat",
    "PinnedSha",
    "Scan",
    "ScanUnknown",
    "SubmoduleScan",
    "TouchingCommit",
]


@dataclass(frozen=True)
class CodeHistory:
    """The code under test between two pinned SHAs, as git showed it at cut time."""

    from_sha: str
    to_sha: str
    ahead: int
    behind: int
    touching_ground_truth: tuple[TouchingCommit, ...]

    @classmethod
    def from_data(cls, data: Raw) -> CodeHistory:
        touching = tuple(TouchingCommit.from_data(c) for c in data["touching_ground_truth"])
        return cls(data["from"], data["to"], data["ahead"], data["behind"], touching)

    def to_json(self) -> dict[str, Any]:
        return {
            "from": self.from_sha,
            "to": self.to_sha,
            "ahead": self.ahead,
            "behind": self.behind,
            "touching_ground_truth": [c.to_json() for c in self.touching_ground_truth],
        }


@dataclass(frozen=True)
class GrepOracle:
    """The program that reproduced Gate B, and its version."""

    engine: str
    version: str

    def to_json(self) -> dict[str, Any]:
        return {"engine": self.engine, "version": self.version}

    def __str__(self) -> str:
        return f"{self.engine} {self.version}"


@dataclass(frozen=True)
class FixtureSchemaRecord:
    """The schema the fixtures met: a built-in kind or the suite's own, with the sha256 of its text."""

    kind: FixtureSchemaKind
    sha256: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "sha256": self.sha256}


@dataclass(frozen=True)
class Checks:
    """What the checks of a cut used, besides the globs (kept with the scan)."""

    template_sha256: str
    grep: GrepOracle | None  # None: no code under test, so no Gate B ran
    dimensions: Mapping[str, str] | None  # None: not recorded (format 1); in their configured order
    fixture_schema: FixtureSchemaRecord | None = None  # None: the graph schema (before 0.2)
    markdown_rules: object = None  # None: not recorded (before rules 3); render checks what it knows

    @property
    def fixture_schema_kind(self) -> FixtureSchemaKind:
        return self.fixture_schema.kind if self.fixture_schema is not None else "graph"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "template_sha256": self.template_sha256,
            **({"grep": self.grep.to_json()} if self.grep is not None else {}),
            # A list: the order of the dimensions is the order §Delta shows them in, and JSON
            # objects are written with sorted keys.
            "dimensions": [{"dimension": k, "meaning": v} for k, v in (self.dimensions or {}).items()],
        }
        if self.fixture_schema is not None:
            out["fixture_schema"] = self.fixture_schema.to_json()
        if self.markdown_rules is not None:
            out["markdown_rules"] = self.markdown_rules
        return out


@dataclass(frozen=True)
class PinnedSha:
    full: str
    short: str
    declared_as: str

    def to_json(self) -> dict[str, Any]:
        return {"full": self.full, "short": self.short, "declared_as": self.declared_as}


@dataclass(frozen=True)
class CodeRepoIdentity:
    """The code repository the SHAs refer to: its root commits identify it across clones."""

    root_commits: tuple[str, ...]
    origin: str | None
    configured_path: str

    @classmethod
    def from_data(cls, data: Raw) -> CodeRepoIdentity:
        return cls(tuple(data["root_commits"]), data["origin"], data["configured_path"])

    def to_json(self) -> dict[str, Any]:
        return {"root_commits": list(self.root_commits), "origin": self.origin, "configured_path": self.configured_path}


@dataclass(frozen=True)
class Contents:
    """Which data files are the fixtures and which are assets."""

    fixtures: tuple[str, ...]
    assets: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"fixtures": list(self.fixtures), "assets": list(self.assets)}


@dataclass(frozen=True)
class FixtureDigests:
    """A landed fixture's digests: what the agent sees, what grades it, what neither sees, and the score's."""

    input: str
    grading: str
    cosmetic: str
    score: str

    def to_json(self) -> dict[str, str]:
        return {"input": self.input, "grading": self.grading, "cosmetic": self.cosmetic, "score": self.score}


@dataclass(frozen=True)
class Comparability:
    """Format 3: the arms with what each depends on, the field groups, the fixture digests and the
    environment's digest (canonical order: arms, groups and fixtures sorted by name)."""

    arms: Mapping[str, tuple[str, ...]]
    groups: Mapping[str, str]
    fixtures: Mapping[str, FixtureDigests]
    environment: str

    @classmethod
    def from_data(cls, data: Raw) -> Comparability:
        return cls(
            {arm: tuple(data["arms"][arm]) for arm in sorted(data["arms"])},
            dict(sorted(data["groups"].items())),
            {task: FixtureDigests(**data["fixtures"][task]) for task in sorted(data["fixtures"])},
            data["environment"],
        )

    def entry(self) -> dict[str, Any]:
        """The record without the environment digest (what is recomputed from the fixtures)."""
        return {
            "arms": {arm: list(needs) for arm, needs in self.arms.items()},
            "groups": dict(self.groups),
            "fixtures": {task: digests.to_json() for task, digests in self.fixtures.items()},
        }

    def to_json(self) -> dict[str, Any]:
        return {**self.entry(), "environment": self.environment}


@dataclass(frozen=True)
class Manifest:
    """manifest.json of a frozen version, in any format, read the same way.

    Format 1 (freezer 0.1.0) did not record what its checks used; what can be derived
    from it exactly (the template's hash, the scan) is derived, and what cannot (the
    code history) is ``None`` with ``code_history_recorded`` False.

    A suite with no code under test (no ``code_repo``) has no pinned SHA, code repository,
    binary, tool surface nor Gate B oracle: ``pinned``, ``code_repo`` and ``binary`` are None
    and the JSON says ``"code_under_test": false`` instead (an optional field, so every
    manifest written before reads and re-serialises byte for byte).
    """

    format: ManifestFormat
    suite: str
    number: int
    name: str
    pinned: PinnedSha | None  # None: no code under test
    code_repo: CodeRepoIdentity | None
    binary: Binary | None
    globs: tuple[str, ...]
    commits: tuple[SurfaceCommit, ...]
    scan: Scan | None  # None: a format-1 first version, which scanned nothing
    checks: Checks
    code_history: CodeHistory | None
    code_history_recorded: bool
    freezer_version: str
    cut_at: str
    previous: tuple[str, str] | None  # (name, manifest sha256)
    files: Mapping[str, str]  # sorted by path
    contents: Contents | None = None
    comparability: Comparability | None = None
    canary: str | None = None
    # Container images by task id (only fixtures that name one), each fixture's sorted.
    images: Mapping[str, tuple[ImageRef, ...]] = field(default_factory=dict)
    # Format 1's scan as it recorded it (scanned_from, scanned_to): read-only, never written again.
    legacy_scan: tuple[str | None, str | None] | None = field(default=None, repr=False)

    @classmethod
    def from_data(cls, data: Raw) -> Manifest:
        code = data.get("code_under_test", True)
        binary = Binary.from_data(data["binary"]) if code else None
        surface = data["tool_surface"] if code else {"globs": [], "commits": [], "scan": None}
        fmt = data["manifest_format"]
        legacy_scan = None
        if fmt >= 2:
            scan: Scan | None = Scan.from_data(surface["scan"]) if code else None
            recorded = data["checks"]
            schema = recorded.get("fixture_schema")
            grep = recorded.get("grep")
            checks = Checks(
                recorded["template_sha256"],
                GrepOracle(grep["engine"], grep["version"]) if grep is not None else None,
                {d["dimension"]: d["meaning"] for d in recorded["dimensions"]},
                FixtureSchemaRecord(schema["kind"], schema["sha256"]) if schema is not None else None,
                recorded.get("markdown_rules"),
            )
            history = CodeHistory.from_data(data["code_history"]) if data["code_history"] else None
        else:  # format 1: derived from what it did record
            legacy_scan = (surface["scanned_from"], surface["scanned_to"])
            scan = None
            if surface["scanned_to"]:
                excluded = (surface["scanned_from"],) if surface["scanned_from"] else ()
                known = bool(binary and binary.build_known)
                scan = Scan(excluded, (surface["scanned_to"],), tuple(surface["globs"]), known)
            checks = Checks(
                data["files"].get("METHOD.md.j2", ""),
                GrepOracle(LEGACY_GREP_ENGINE, data["freezer_version"]),
                None,
            )
            history = None
        previous = data["previous"]
        contents = data.get("contents")
        comparability = data.get("comparability")
        pinned = data.get("pinned_sha")
        images = data.get("environment_images") or {}
        return cls(
            format=fmt,
            suite=data["suite"],
            number=data["version"],
            name=data["name"],
            pinned=PinnedSha(pinned["full"], pinned["short"], pinned["declared_as"]) if pinned else None,
            code_repo=CodeRepoIdentity.from_data(data["code_repo"]) if code else None,
            binary=binary,
            globs=tuple(surface["globs"]),
            commits=tuple(SurfaceCommit.from_data(c) for c in surface["commits"]),
            scan=scan,
            checks=checks,
            code_history=history,
            code_history_recorded=fmt >= 2,
            freezer_version=data["freezer_version"],
            cut_at=data["cut_at"],
            previous=(previous["name"], previous["manifest_sha256"]) if previous else None,
            files=dict(sorted(data["files"].items())),
            contents=Contents(tuple(contents["fixtures"]), tuple(contents["assets"])) if contents else None,
            comparability=Comparability.from_data(comparability) if comparability is not None else None,
            canary=data.get("canary"),
            images={task: tuple(ImageRef.from_data(i) for i in images[task]) for task in sorted(images)},
            legacy_scan=legacy_scan,
        )

    def to_json(self) -> dict[str, Any]:
        """The JSON record of this manifest, as a cut writes it (formats 2 and 3 only)."""
        if self.format < 2 or (self.scan is None and self.code_under_test):
            raise ValueError(f"manifest format {self.format} is read-only: freezer writes format 2 and later")
        out: dict[str, Any] = {
            "manifest_format": self.format,
            "suite": self.suite,
            "version": self.number,
            "name": self.name,
        }
        if self.pinned is not None and self.code_repo is not None and self.binary is not None and self.scan:
            out["pinned_sha"] = self.pinned.to_json()
            out["code_repo"] = self.code_repo.to_json()
            out["binary"] = dict(self.binary.raw)
            out["tool_surface"] = {
                "globs": list(self.globs),
                "commits": [c.to_json() for c in self.commits],
                "scan": self.scan.to_json(),
            }
        else:
            out["code_under_test"] = False
        out |= {
            "checks": self.checks.to_json(),
            "code_history": self.code_history.to_json() if self.code_history is not None else None,
            "freezer_version": self.freezer_version,
            "cut_at": self.cut_at,
            "previous": {"name": self.previous[0], "manifest_sha256": self.previous[1]} if self.previous else None,
            "files": dict(sorted(self.files.items())),
        }
        if self.contents is not None:
            out["contents"] = self.contents.to_json()
        if self.comparability is not None:
            out["comparability"] = self.comparability.to_json()
        if self.canary is not None:
            out["canary"] = self.canary
        if self.images:
            out["environment_images"] = {task: [i.to_json() for i in refs] for task, refs in self.images.items()}
        return out

    @property
    def code_under_test(self) -> bool:
        """False for a suite with no code_repo: no pinned SHA, binary, tool surface nor code checks."""
        return self.pinned is not None

    @property
    def pinned_sha(self) -> str:
        """The pinned SHA of the code under test; only code checks ask, and only when there is code."""
        if self.pinned is None:
            raise ValueError(f"{self.name} has no code under test, so no pinned SHA")
        return self.pinned.full

    @property
    def pinned_full(self) -> str | None:
        """The pinned SHA, or None for a suite with no code under test (what listings show)."""
        return self.pinned.full if self.pinned is not None else None

    @property
    def recorded_scan(self) -> Scan | None:
        """The scan as the manifest recorded it in full (format 2 on); None for format 1."""
        return self.scan if self.format >= 2 else None

    @property
    def scan_tips(self) -> tuple[str, ...]:
        """Where the next version's scan must start excluding: everything this one covered."""
        if self.scan is not None:
            return self.scan.tips
        if self.binary is None or self.pinned is None:
            return ()
        return (self.binary.build_sha or self.pinned_sha,)

    @property
    def scan_globs(self) -> tuple[str, ...]:
        return self.scan.globs if self.scan is not None else self.globs

    def fixture_names(self) -> list[str] | None:
        """The fixture files the manifest lists (format 2 on), or None: then every YAML file but version.yaml."""
        return list(self.contents.fixtures) if self.contents is not None else None

    def asset_names(self) -> tuple[str, ...]:
        return self.contents.assets if self.contents is not None else ()
