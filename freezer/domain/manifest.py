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

from freezer.domain import manifestfields
from freezer.domain.fixturekind import YAML_FILES_RECORD, FixtureKindName, FixtureKindRecord
from freezer.domain.images import ImageRef
from freezer.domain.jsontypes import JsonObject
from freezer.domain.manifestparts import (
    EXECUTABLE,
    LEGACY_GREP_ENGINE,
    REGULAR,
    Checks,
    CodeHistory,
    CodeRepoIdentity,
    Comparability,
    Contents,
    FixtureDigests,
    FixtureSchemaKind,
    FixtureSchemaRecord,
    GrepOracle,
    ManifestFormat,
    PinnedSha,
)
from freezer.domain.model import Binary, Raw, SurfaceCommit
from freezer.domain.scan import Followed, Scan, ScanUnknown, SubmoduleScan, TouchingCommit

# The scan's records live in freezer.domain.scan, the fixture kind's in freezer.domain.fixturekind,
# the manifest's smaller records in freezer.domain.manifestparts; readers have always found them here.
__all__ = [
    "EXECUTABLE",
    "LEGACY_GREP_ENGINE",
    "REGULAR",
    "Checks",
    "CodeHistory",
    "CodeRepoIdentity",
    "Comparability",
    "Contents",
    "FixtureDigests",
    "FixtureKindName",
    "FixtureKindRecord",
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
    # The files that are not 100644 (executable ones: 100755), sorted by path. A manifest written
    # before modes were recorded lists none, and its frozen copy holds none: every file is 100644.
    modes: Mapping[str, str] = field(default_factory=dict)
    # How the fixtures are read from the files (freezer's own YAML files unless the manifest records a kind).
    fixture_kind: FixtureKindRecord = YAML_FILES_RECORD
    # Container images by task id (only fixtures that name one), each fixture's sorted.
    images: Mapping[str, tuple[ImageRef, ...]] = field(default_factory=dict)
    # The images of the suite's Dockerfiles that no fixture names (shared by every fixture), sorted.
    suite_images: tuple[ImageRef, ...] = ()
    # Each git source of version.yaml named by a branch or tag → the commit the drafts' lock file
    # pinned it to (freezer lock), by source name. Written only when there is one.
    locked_sources: Mapping[str, str] = field(default_factory=dict)
    # Each Hugging Face dataset an lm-eval task reads at a branch or tag (main when it names none)
    # → that branch or tag → the commit the drafts' lock file pinned it to. Written only when there is one.
    locked_datasets: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
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
            schema = manifestfields.fixture_schema(data)
            grep = recorded.get("grep")
            checks = Checks(
                manifestfields.template_sha256(data),
                GrepOracle(grep["engine"], grep["version"]) if grep is not None else None,
                manifestfields.dimensions(data),
                FixtureSchemaRecord(*schema) if schema is not None else None,
                recorded.get("markdown_rules"),
                recorded.get("delta_block"),
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
                manifestfields.template_sha256(data),
                GrepOracle(LEGACY_GREP_ENGINE, data["freezer_version"]),
                None,
            )
            history = None
        previous = data["previous"]
        contents = manifestfields.contents(data)
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
            globs=manifestfields.surface_globs(data),
            commits=tuple(SurfaceCommit.from_data(c) for c in surface["commits"]),
            scan=scan,
            checks=checks,
            code_history=history,
            code_history_recorded=fmt >= 2,
            freezer_version=data["freezer_version"],
            cut_at=data["cut_at"],
            previous=(previous["name"], previous["manifest_sha256"]) if previous else None,
            files=dict(sorted(data["files"].items())),
            contents=Contents(*contents) if contents is not None else None,
            comparability=Comparability.from_data(comparability) if comparability is not None else None,
            canary=data.get("canary"),
            modes=dict(sorted((data.get("modes") or {}).items())),
            fixture_kind=FixtureKindRecord.of_manifest(data),
            images={task: tuple(ImageRef.from_data(i) for i in images[task]) for task in sorted(images)},
            suite_images=tuple(ImageRef.from_data(i) for i in data.get("suite_images") or ()),
            locked_sources=dict(sorted((data.get("locked_sources") or {}).items())),
            locked_datasets={
                name: dict(sorted(refs.items())) for name, refs in sorted((data.get("locked_datasets") or {}).items())
            },
            legacy_scan=legacy_scan,
        )

    def to_json(self) -> JsonObject:
        """The JSON record of this manifest, as a cut writes it (formats 2 and 3 only)."""
        if self.format < 2 or (self.scan is None and self.code_under_test):
            raise ValueError(f"manifest format {self.format} is read-only: freezer writes format 2 and later")
        out: JsonObject = {
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
        if self.modes:  # written only when a file is executable: no earlier manifest changes shape
            out["modes"] = dict(sorted(self.modes.items()))
        recorded = self.fixture_kind.manifest_entry()
        if recorded is not None:
            out["fixture_kind"] = recorded
        if self.fixture_kind.closure:  # absent: the rules of every version cut before (0)
            out["dependency_closure"] = self.fixture_kind.closure
        if self.images:
            out["environment_images"] = {task: [i.to_json() for i in refs] for task, refs in self.images.items()}
        if self.suite_images:
            out["suite_images"] = [i.to_json() for i in self.suite_images]
        if self.locked_sources:  # only a source named by a branch or tag and locked has one
            out["locked_sources"] = dict(sorted(self.locked_sources.items()))
        if self.locked_datasets:  # only a task's dataset read at a branch or tag and locked has one
            out["locked_datasets"] = {
                name: dict(sorted(refs.items())) for name, refs in sorted(self.locked_datasets.items())
            }
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

    def mode(self, rel: str) -> str:
        """The git mode of a frozen file: 100755 if executable, else 100644."""
        return self.modes.get(rel, REGULAR)

    def file_states(self) -> dict[str, str]:
        """Every file by what makes it that file: its sha256, followed by its mode when that is not
        100644. Equal states mean equal bytes and mode; a file kept 100644 reads as its bare hash,
        so whatever compares or digests files by hash is unchanged for every version without modes."""
        return {rel: file_state(sha, self.mode(rel)) for rel, sha in self.files.items()}


def file_state(sha256: str, mode: str) -> str:
    """A file's hash and, when it is not 100644, its mode (see :meth:`Manifest.file_states`)."""
    return sha256 if mode == REGULAR else f"{sha256} {mode}"
