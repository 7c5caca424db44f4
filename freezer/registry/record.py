"""A frozen version's own record, read: its files, its drafts, and what it says about itself.

What was frozen rules the past. Every question about an existing version (its
fixture files, its dimensions, its arms, the field groups of its fixture
schema) is answered here from that version's frozen data (the manifest, the
frozen ``fixture.schema.json``), never from today's freezer.yaml. A version
whose manifest format did not record something gets the documented default of
that format: format 1 recorded no dimensions (0.1.0's defaults), formats 1 and 2
no arms (one arm, ``all``, depending on the dimensions, the binary and the code).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from freezer.domain.errors import FreezerError, IntegrityError
from freezer.domain.escape import visible
from freezer.domain.fixturekind import YAML_FILES_RECORD
from freezer.domain.jsontypes import JsonObject
from freezer.domain.manifest import FixtureKindRecord, Manifest
from freezer.domain.model import Raw
from freezer.domain.problems import display_path
from freezer.kinds.catalog import builtin_schema, kind_of, read_frozen
from freezer.parse.yamlload import load_bytes
from freezer.registry.dimensions import format_2_default_arms
from freezer.registry.groups import builtin_groups, field_groups
from freezer.registry.integrity import integrity, require_intact
from freezer.registry.registry import FROZEN_SCHEMA, MANIFEST, FrozenVersion, frozen_fixture_files
from freezer.runtime.limits import MAX_SCHEMA_BYTES, MAX_WHOLE_FILE_BYTES
from freezer.runtime.paths import unsafe_reason
from freezer.runtime.reading import read_whole
from freezer.runtime.relpaths import relative_parts
from freezer.schema.suiteschema import SchemaRefused, vetted

# What a version of manifest format 1 (freezer 0.1.0) was cut with: it did not record its dimensions.
FORMAT_1_DIMENSIONS = {
    "indexer": "what the index contains (ignore files, noise removed or added)",
    "descriptions": "the tool descriptions the agent reads",
    "surface": "tool behaviour and output shape",
}
# How strict each field group reads: a field two versions place differently is read the stricter way.
_STRICTNESS = {"input": 3, "grading": 2, "cosmetic": 1, "identity": 0}


# --- the files of a frozen version -----------------------------------------------------------------


def read_version_files(
    files: Mapping[str, bytes], fixtures: Collection[str] | None = None, kind: FixtureKindRecord = YAML_FILES_RECORD
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The version draft and the parsed fixtures of a version's files, read as its kind reads them
    (``kind``: the manifest's); ``fixtures`` names the fixture files (the manifest's list, see
    :func:`frozen_fixture_files`), else those the kind claims."""
    if "version.yaml" not in files:
        raise IntegrityError("version.yaml is missing from the frozen files")
    loaded = load_bytes(files["version.yaml"], "version.yaml")
    if loaded.document is None:
        raise IntegrityError(f"version.yaml: frozen file cannot be read: {loaded.problems[0].message}")
    claims = kind_of(kind).claims
    chosen = set(fixtures) if fixtures is not None else {rel for rel in files if claims(rel)}
    read = read_frozen(kind, dict(sorted(files.items())), chosen)
    if read.problems:
        first = read.problems[0]
        raise IntegrityError(f"{first.file}: frozen file cannot be read: {first.message}")
    return loaded.document.data, [fixture.data for fixture in read.fixtures]


def frozen_file(frozen: FrozenVersion, rel: str, checked: set[str]) -> Path:
    """The file a manifest names, refused unless it lies inside the version, reached through no link:
    an unverified manifest (``freezer list`` reads one) must not make freezer read elsewhere. Each
    folder is checked once (``checked``); open the file itself without following a link, as
    :func:`freezer.runtime.reading.read_whole` does."""
    try:
        parts = relative_parts(rel)
        folder = "/".join(parts[:-1])
        reason = None if folder in checked else unsafe_reason(frozen.path, frozen.path / folder)
    except ValueError as exc:
        reason = str(exc)
    if reason is not None:
        where = f"{display_path(frozen.path)}/{MANIFEST}"
        raise IntegrityError(f"{where}: the file '{visible(rel)}' it lists {reason}")
    checked.add(folder)
    return frozen.path / rel


def load_frozen_drafts(frozen: FrozenVersion, manifest: Manifest) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The version draft and fixtures of a frozen version, reading only those files."""
    folders: set[str] = set()
    # Every listed path is checked, read or not: a manifest that names a file outside its version is refused.
    paths = {rel: frozen_file(frozen, rel, folders) for rel in manifest.files}
    fixtures = frozen_fixture_files(manifest)
    wanted = ["version.yaml", *fixtures]
    wanted.extend(kind_of(manifest.fixture_kind).assets_read(manifest.asset_names()))
    files = {rel: read_whole(paths[rel], MAX_WHOLE_FILE_BYTES) for rel in wanted if rel in paths}
    return read_version_files(files, fixtures, manifest.fixture_kind)


def fixture_schema_of(manifest: Manifest, files: Mapping[str, bytes]) -> JsonObject:
    """The fixture schema a version was cut under: its kind's, or the suite's own frozen copy."""
    kind = manifest.checks.fixture_schema_kind
    if kind == "custom":
        if FROZEN_SCHEMA not in files:
            raise IntegrityError(f"{FROZEN_SCHEMA}: the suite's frozen fixture schema cannot be read")
        try:
            # Vetted as a suite schema is: a frozen copy in a pull request is as untrusted (a $ref cycle
            # would make a walk of its shape loop forever).
            return vetted(files[FROZEN_SCHEMA], FROZEN_SCHEMA)
        except SchemaRefused as exc:
            raise IntegrityError(f"{FROZEN_SCHEMA}: {exc.message}") from None
    return builtin_schema(kind)


# --- what a version says about itself ---------------------------------------------------------------


def dimensions_of(manifest: Manifest) -> dict[str, str]:
    """The dimensions (name → meaning, in order) a version was cut with."""
    if manifest.checks.dimensions is not None:
        return dict(manifest.checks.dimensions)
    return dict(FORMAT_1_DIMENSIONS)


def arms_of(manifest: Manifest) -> dict[str, tuple[str, ...]]:
    """The arms a version was cut with, and what each depends on (canonical order: by name)."""
    recorded = manifest.comparability
    if recorded is not None:
        return {arm: tuple(recorded.arms[arm]) for arm in sorted(recorded.arms)}
    return format_2_default_arms(list(dimensions_of(manifest)))


def groups_of(frozen: FrozenVersion, manifest: Manifest) -> dict[str, str]:
    """The field groups of the fixture schema a version was cut with: as its manifest recorded them
    (format 3), else its kind's. A suite's own schema is read from the version's frozen copy (vetted
    as a suite schema is), and must give what the manifest recorded."""
    recorded = manifest.comparability
    kind = manifest.checks.fixture_schema_kind
    if kind != "custom":
        return dict(recorded.groups) if recorded is not None else builtin_groups(kind)
    path = frozen.path / FROZEN_SCHEMA
    try:
        schema = vetted(read_whole(path, MAX_SCHEMA_BYTES), display_path(path))
    except FreezerError as exc:  # SchemaRefused is one: a frozen copy is vetted as a suite schema is
        raise IntegrityError(f"{frozen.name}: its fixture schema cannot be used ({exc.message})") from None
    groups = field_groups(schema)
    if recorded is not None and dict(recorded.groups) != groups:
        raise IntegrityError(f"{frozen.name}: the field groups its manifest records are not its {FROZEN_SCHEMA}'s")
    return groups


def strictest_groups(*groupings: Mapping[str, str]) -> dict[str, str]:
    """One field → group reading for versions that disagree: each field in its strictest group (a
    field one version grades and another calls cosmetic is graded for both; a field a schema does
    not place is input)."""
    fields = sorted({name for grouping in groupings for name in grouping})
    merged = {}
    for name in fields:
        placed = [grouping.get(name, "input") for grouping in groupings]
        merged[name] = max(placed, key=lambda group: _STRICTNESS.get(group, _STRICTNESS["input"]))
    return merged


def strictest_arms(
    older: Mapping[str, Sequence[str]], newer: Mapping[str, Sequence[str]]
) -> dict[str, tuple[str, ...]]:
    """One reading of the arms of two versions that disagree: the newer version's arms, each
    depending on everything either version says it depends on (canonical order: by name)."""
    return {arm: tuple(dict.fromkeys((*newer[arm], *older.get(arm, ())))) for arm in sorted(newer)}


def recorded_groups(manifest: Manifest) -> dict[str, str] | None:
    """The field groups a version was cut with, when they can be told from its manifest alone
    (recorded, or a built-in kind's); None for a custom schema before they were recorded."""
    recorded = manifest.comparability
    if recorded is not None:
        return dict(recorded.groups)
    kind = manifest.checks.fixture_schema_kind
    return None if kind == "custom" else builtin_groups(kind)


# --- a frozen version, read ------------------------------------------------------------------------


@dataclass(frozen=True)
class Side:
    """One version as the delta engine sees it."""

    manifest: Manifest
    version: Raw
    fixtures: Mapping[str, Raw]

    @property
    def name(self) -> str:
        return self.manifest.name


def side(manifest: Manifest, version: Raw, fixtures: Sequence[Raw]) -> Side:
    return Side(manifest, version, {f["task_id"]: f for f in fixtures})


@dataclass
class VersionData:
    """A frozen version read from disk."""

    frozen: FrozenVersion
    manifest: Manifest
    version: dict[str, Any]
    fixtures: list[dict[str, Any]]
    # The manifest as JSON, for what shows it whole (``show --format json``, the API's ``manifest``).
    manifest_json: dict[str, Any]

    def side(self) -> Side:
        return side(self.manifest, self.version, self.fixtures)


def read(frozen: FrozenVersion, *, verify: bool = True) -> VersionData:
    """Read a frozen version; with ``verify``, refuse one whose files do not match their hashes.

    Hashes are what make a listing trustworthy; the deeper proofs (chain, delta, METHOD.md),
    which cost seconds per thousand fixtures, are the audit's (:mod:`freezer.guard.audit`).
    """
    frozen_files = None
    if verify:
        result, frozen_files = integrity(frozen)
        require_intact(frozen, result)
    return read_checked(frozen, frozen_files)


def read_checked(frozen: FrozenVersion, frozen_files: dict[str, bytes] | None) -> VersionData:
    """A frozen version from the data files an integrity check already read (None: read them now)."""
    try:
        loaded = frozen.manifest()
        manifest = Manifest.from_data(loaded)
        # A verified version's drafts were just read by the integrity check.
        version, fixtures = (
            read_version_files(frozen_files, frozen_fixture_files(manifest), manifest.fixture_kind)
            if frozen_files is not None
            else load_frozen_drafts(frozen, manifest)
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:  # an unverified manifest
        raise IntegrityError(f"{frozen.name} cannot be read: {exc}") from None
    return VersionData(frozen, manifest, version, sorted(fixtures, key=lambda f: f["task_id"]), loaded)
