"""The smaller records a manifest holds (the checks, the pin, the code history, the comparability
record, ...) and the manifest's constants. :mod:`freezer.domain.manifest` reads and writes them
as part of :class:`~freezer.domain.manifest.Manifest`, and re-exports every name here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from freezer.domain.jsontypes import JsonObject, JsonValue
from freezer.domain.manifestfields import sorted_arms, sorted_groups
from freezer.domain.model import Raw
from freezer.domain.scan import TouchingCommit

ManifestFormat = Literal[1, 2, 3]
# A frozen file's mode, as git records one: every file is 100644 unless ``Manifest.modes`` lists it.
REGULAR = "100644"
EXECUTABLE = "100755"
# folders and records: the kinds whose fixtures freezer reads from the benchmark's own files
# (:mod:`freezer.kinds`); without a schema of their own they meet freezer's identity rule alone.
# graph, generic or custom, or a kind of the catalog (freezer.kinds.catalog.KINDS): folders, records, lm-eval...
FixtureSchemaKind = str
# Freezer 0.1.0 reproduced Gate B with its own interpreter of rg's syntax; its manifests
# (format 1) do not say so, but the engine is known from the freezer version they record.
LEGACY_GREP_ENGINE = "freezer-rg-emulation"


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

    def to_json(self) -> JsonObject:
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

    def to_json(self) -> JsonObject:
        return {"engine": self.engine, "version": self.version}

    def __str__(self) -> str:
        return f"{self.engine} {self.version}"


@dataclass(frozen=True)
class FixtureSchemaRecord:
    """The schema the fixtures met: a built-in kind or the suite's own, with the sha256 of its text."""

    kind: FixtureSchemaKind
    sha256: str

    def to_json(self) -> JsonObject:
        return {"kind": self.kind, "sha256": self.sha256}


@dataclass(frozen=True)
class Checks:
    """What the checks of a cut used, besides the globs (kept with the scan)."""

    template_sha256: str
    grep: GrepOracle | None  # None: no code under test, so no Gate B ran
    dimensions: Mapping[str, str] | None  # None: not recorded (format 1); in their configured order
    fixture_schema: FixtureSchemaRecord | None = None  # None: the graph schema (before 0.2)
    markdown_rules: JsonValue = None  # None: not recorded (before rules 3); render checks what it knows
    # None: not recorded, the template rendered §Delta itself. 1: freezer rendered §Delta from its own
    # template (frozen as delta.md.j2) and the METHOD.md template placed it once, verbatim.
    delta_block: JsonValue = None

    @property
    def fixture_schema_kind(self) -> FixtureSchemaKind:
        return self.fixture_schema.kind if self.fixture_schema is not None else "graph"

    def to_json(self) -> JsonObject:
        out: JsonObject = {
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
        if self.delta_block is not None:
            out["delta_block"] = self.delta_block
        return out


@dataclass(frozen=True)
class PinnedSha:
    """The commit of the code under test a version is pinned to, resolved from what version.yaml declared."""

    full: str
    short: str
    declared_as: str

    def to_json(self) -> JsonObject:
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

    def to_json(self) -> JsonObject:
        return {"root_commits": list(self.root_commits), "origin": self.origin, "configured_path": self.configured_path}


@dataclass(frozen=True)
class Contents:
    """Which data files are the fixtures and which are assets."""

    fixtures: tuple[str, ...]
    assets: tuple[str, ...]

    def to_json(self) -> JsonObject:
        return {"fixtures": list(self.fixtures), "assets": list(self.assets)}


@dataclass(frozen=True)
class FixtureDigests:
    """A landed fixture's digests: what the agent sees, what grades it, what neither sees, and the score's."""

    input: str
    grading: str
    cosmetic: str
    score: str

    def to_json(self) -> JsonObject:
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
            sorted_arms(data["arms"]),
            sorted_groups(data["groups"]),
            {task: FixtureDigests(**data["fixtures"][task]) for task in sorted(data["fixtures"])},
            data["environment"],
        )

    def entry(self) -> JsonObject:
        """The record without the environment digest (what is recomputed from the fixtures)."""
        return {
            "arms": {arm: list(needs) for arm, needs in self.arms.items()},
            "groups": dict(self.groups),
            "fixtures": {task: digests.to_json() for task, digests in self.fixtures.items()},
        }

    def to_json(self) -> JsonObject:
        return {**self.entry(), "environment": self.environment}
