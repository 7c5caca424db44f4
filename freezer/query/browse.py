"""Reading frozen versions for people and harnesses: summaries, details, diffs."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from freezer.compare.delta import Side, side
from freezer.compare.delta import compute as compute_delta
from freezer.domain.errors import FreezerError, IntegrityError, UsageError
from freezer.domain.model import Manifest
from freezer.domain.problems import display_path
from freezer.guard import audit
from freezer.registry import registry
from freezer.registry.config import SuiteConfig
from freezer.render.method import fixture_names, load_frozen_drafts, load_yaml_files
from freezer.runtime.reading import read_whole


@dataclass
class VersionData:
    """A frozen version read from disk."""

    frozen: registry.FrozenVersion
    manifest: dict[str, Any]
    version: dict[str, Any]
    fixtures: list[dict[str, Any]]

    def side(self) -> Side:
        return side(self.frozen.manifest_model(), self.version, self.fixtures)


def read(frozen: registry.FrozenVersion, *, verify: bool = True, deep: bool = False) -> VersionData:
    """Read a frozen version; with ``verify``, refuse one whose files do not match their hashes.

    Hashes are what make a listing trustworthy; the deeper proofs (chain, delta, METHOD.md),
    which cost seconds per thousand fixtures, are run with ``deep`` (the Python API's load)
    and by ``freezer audit``.
    """
    suite_stub = SuiteConfig(frozen.suite, frozen.path.parent, frozen.path.parent, frozen.path.parent, ())
    frozen_files = None
    if verify:
        result, frozen_files = audit.integrity(suite_stub, frozen, deep=deep)
        if result.failures:
            listed = "; ".join(str(f) for f in result.failures[:5])
            raise IntegrityError(
                f"{frozen.name} failed its integrity check: {listed}", hint="run freezer audit for the full report"
            )
    try:
        manifest = frozen.manifest()
        # A verified version's drafts were just read by the integrity check.
        version, fixtures = (
            load_yaml_files(frozen_files, fixture_names(manifest))
            if frozen_files is not None
            else load_frozen_drafts(frozen, manifest)
        )
    except (OSError, ValueError, KeyError) as exc:
        raise IntegrityError(f"{frozen.name} cannot be read: {exc}") from None
    return VersionData(frozen, manifest, version, sorted(fixtures, key=lambda f: f["task_id"]))


def find(suite: SuiteConfig, label: str) -> registry.FrozenVersion:
    number = registry.parse_version(label, suite.name)
    for frozen in registry.frozen_versions(suite):
        if frozen.number == number:
            return frozen
    raise UsageError(f"{registry.version_name(suite.name, number)} is not frozen in {suite.versions}")


def summary_row(suite: SuiteConfig, frozen: registry.FrozenVersion) -> dict[str, Any]:
    result, _ = audit.integrity(suite, frozen, deep=False)
    row: dict[str, Any] = {"version": frozen.name, "hashes": "ok" if result.ok else "FAILED"}
    try:
        data = read(frozen, verify=False)
    except Exception:  # noqa: BLE001 - a broken version still gets a row
        row.update({"pinned_sha": None, "cut_at": None, "landed": None, "dropped": None, "classes": []})
        return row
    landed = [f for f in data.fixtures if f["status"] == "landed"]
    row.update(
        {
            "pinned_sha": data.manifest["pinned_sha"]["full"],
            "cut_at": data.manifest["cut_at"],
            "landed": len(landed),
            "dropped": len(data.fixtures) - len(landed),
            "classes": sorted({f["class"] for f in landed if f.get("class")}),
        }
    )
    return row


def diff(
    suite: SuiteConfig, a: registry.FrozenVersion, b: registry.FrozenVersion, *, full: bool = False
) -> dict[str, Any]:
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
    chain = [v for v in registry.frozen_versions(suite) if low.number <= v.number <= high.number]
    sides = [read(v).side() for v in chain]
    meanings = sides[-1].manifest.checks.dimensions or suite.dimensions
    return compute_delta(sides, meanings, reversed_=reversed_, full=full)


def groups_of(frozen: registry.FrozenVersion, manifest: Manifest) -> dict[str, str]:
    """The field groups of the fixture schema a version was cut with (its own frozen copy if custom)."""
    from freezer.compare import comparability

    kind = (manifest.checks.fixture_schema or {}).get("kind", "graph")
    if kind == "custom":
        from freezer.schema.schemas import MAX_SCHEMA_BYTES, frozen_custom_schema  # jsonschema: only when needed

        path = frozen.path / "fixture.schema.json"
        try:
            schema = frozen_custom_schema(read_whole(path, MAX_SCHEMA_BYTES), display_path(path))
        except FreezerError as exc:  # SchemaRefused is one: a frozen copy is vetted as a suite schema is
            raise IntegrityError(f"{frozen.name}: its fixture schema cannot be used ({exc.message})") from None
        return comparability.field_groups(schema)
    return comparability.builtin_groups(kind)


def score_digests(data: VersionData) -> dict[str, str]:
    """Each landed fixture's score digest (what a result row records), by task id."""
    from freezer.compare.comparability import fixture_digests, score_digest

    manifest = data.frozen.manifest_model()
    groups = groups_of(data.frozen, manifest)
    return {
        f["task_id"]: score_digest(fixture_digests(f, groups, manifest.files))
        for f in data.fixtures
        if f["status"] == "landed"
    }


def compare(
    suite: SuiteConfig, a: registry.FrozenVersion, b: registry.FrozenVersion, arm: str | None = None
) -> list[Any]:
    """Per-fixture comparability of two frozen versions, for one arm or for each of the suite's arms."""
    from freezer.compare import comparability

    if a.number == b.number:
        raise UsageError(f"{a.name} and {b.name} are the same version; name two different versions")
    low, high = (a, b) if a.number < b.number else (b, a)
    chain = [v for v in registry.frozen_versions(suite) if low.number <= v.number <= high.number]
    sides = [read(v).side() for v in chain]
    meanings = sides[-1].manifest.checks.dimensions or suite.dimensions
    arms = dict(suite.arms) or comparability.default_arms(list(meanings))
    if arm is not None:
        if arm not in arms:
            raise UsageError(f"suite {suite.name!r} has no arm {arm!r}; its arms: {', '.join(arms)}")
        arms = {arm: arms[arm]}
    return comparability.compare(sides, meanings, arms, groups_of(high, sides[-1].manifest))


def log_rows(suite: SuiteConfig) -> list[dict[str, Any]]:
    """One row per frozen version, newest first, from the manifests and the frozen deltas alone
    (no audit: ``freezer audit`` proves them)."""
    rows = []
    for frozen in reversed(registry.frozen_versions(suite)):
        row: dict[str, Any] = {"version": frozen.name}
        try:
            data = read(frozen, verify=False)
            delta = json.loads(read_whole(frozen.path / registry.DELTA))
        except (IntegrityError, OSError, ValueError, RecursionError, FreezerError) as exc:
            row["error"] = exc.message if isinstance(exc, FreezerError) else str(exc)
            rows.append(row)
            continue
        landed = [f for f in data.fixtures if f["status"] == "landed"]
        row.update(
            {
                "cut_at": data.manifest["cut_at"],
                "pinned_sha": data.manifest["pinned_sha"]["full"],
                "landed": len(landed),
                "dropped": len(data.fixtures) - len(landed),
                "previous": delta.get("from"),
                "moved": list(delta.get("moved") or []),
            }
        )
        rows.append(row)
    return rows
