"""Reading frozen versions for people and harnesses: summaries, details, diffs."""

from __future__ import annotations

import json
from typing import Any, Literal

from freezer.compare import comparability
from freezer.compare.delta import compute as compute_delta
from freezer.compare.delta import file_fields_of
from freezer.compare.deltamodel import Delta
from freezer.domain.errors import FreezerError, IntegrityError, UsageError
from freezer.registry import registry
from freezer.registry.config import SuiteConfig
from freezer.registry.integrity import integrity
from freezer.registry.model import Suite
from freezer.registry.record import (
    VersionData,
    arms_of,
    dimensions_of,
    groups_of,
    read,
    strictest_arms,
    strictest_groups,
)
from freezer.runtime.reading import read_whole
from freezer.validate.namedfiles import AssetFiles

# A summary row's word for its version's files: they match their recorded hashes, or not.
Hashes = Literal["ok", "FAILED"]


def find(suite: SuiteConfig, label: str) -> registry.FrozenVersion:
    return Suite.of(suite).version(label)


def summary_row(suite: SuiteConfig, frozen: registry.FrozenVersion) -> dict[str, Any]:
    result, _ = integrity(frozen)
    hashes: Hashes = "ok" if result.ok else "FAILED"
    row: dict[str, Any] = {"version": frozen.name, "hashes": hashes}
    try:
        data = read(frozen, verify=False)
    except Exception:  # noqa: BLE001 - a broken version still gets a row
        row.update({"pinned_sha": None, "cut_at": None, "landed": None, "dropped": None, "classes": []})
        return row
    landed = [f for f in data.fixtures if f["status"] == "landed"]
    row.update(
        {
            "pinned_sha": data.manifest.pinned_full,
            "cut_at": data.manifest.cut_at,
            "landed": len(landed),
            "dropped": len(data.fixtures) - len(landed),
            "classes": sorted({f["class"] for f in landed if f.get("class")}),
        }
    )
    return row


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


def score_digests(data: VersionData) -> dict[str, str]:
    """Each landed fixture's score digest (what a result row records), by task id."""
    manifest = data.frozen.manifest_model()
    groups = groups_of(data.frozen, manifest)
    files = AssetFiles.of(manifest)
    return {
        f["task_id"]: comparability.score_digest(
            comparability.fixture_digests(f, groups, files, file_fields_of(manifest))
        )
        for f in data.fixtures
        if f["status"] == "landed"
    }


def compare(
    suite: SuiteConfig, a: registry.FrozenVersion, b: registry.FrozenVersion, arm: str | None = None
) -> list[Any]:
    """Per-fixture comparability of two frozen versions, for one arm or for each of their arms.

    What was frozen rules: the arms, the dimensions and the field groups are the ones the two
    versions were cut with, never today's freezer.yaml; where the two disagree (an arm that
    depends on more, a field moved from grading to cosmetic) the stricter reading holds for both.
    """
    if a.number == b.number:
        raise UsageError(f"{a.name} and {b.name} are the same version; name two different versions")
    low, high = (a, b) if a.number < b.number else (b, a)
    sides = [read(v).side() for v in Suite.of(suite).between(low, high)]
    old, new = sides[0].manifest, sides[-1].manifest
    meanings = dimensions_of(new)
    arms = strictest_arms(arms_of(old), arms_of(new))
    groups = strictest_groups(groups_of(low, old), groups_of(high, new))
    if arm is not None:
        if arm not in arms:
            raise UsageError(f"suite {suite.name!r} has no arm {arm!r}; its arms: {', '.join(arms)}")
        arms = {arm: arms[arm]}
    return comparability.compare(sides, meanings, arms, groups)


def log_rows(suite: SuiteConfig) -> list[dict[str, Any]]:
    """One row per frozen version, newest first, from the manifests and the frozen deltas alone
    (no audit: ``freezer audit`` proves them)."""
    rows = []
    for frozen in reversed(Suite.of(suite).versions()):
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
                "cut_at": data.manifest.cut_at,
                "pinned_sha": data.manifest.pinned_full,
                "landed": len(landed),
                "dropped": len(data.fixtures) - len(landed),
                "previous": delta.get("from"),
                "moved": list(delta.get("moved") or []),
            }
        )
        rows.append(row)
    return rows
