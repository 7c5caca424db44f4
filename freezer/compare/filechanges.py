"""The files of two versions compared by content: the assets added, removed and changed (with
their modes), and the fixture files whose bytes differ. Part of the delta (:mod:`freezer.compare.delta`);
which fixtures a changed file belongs to is :mod:`freezer.compare.claims`'s to say."""

from __future__ import annotations

from freezer.compare.deltamodel import AssetChanges, ModeChange
from freezer.domain.manifest import Manifest
from freezer.registry.record import Side


def assets_of(manifest: Manifest) -> dict[str, str]:
    return {rel: manifest.files.get(rel, "") for rel in manifest.asset_names()}


def asset_changes(old: Manifest, new: Manifest, delta_format: int) -> AssetChanges:
    """Assets added, removed and changed; from format 4 a file whose mode alone moved is changed too,
    with its modes (``mode 100644 → 100755``)."""
    before, after = assets_of(old), assets_of(new)
    both = set(before) & set(after)
    modes = {}
    if delta_format >= 4:
        for rel in sorted(rel for rel in both if old.mode(rel) != new.mode(rel)):
            modes[rel] = ModeChange(old.mode(rel), new.mode(rel), before[rel] != after[rel])
    return AssetChanges(
        tuple(sorted(set(after) - set(before))),
        tuple(sorted(set(before) - set(after))),
        tuple(sorted(rel for rel in both if before[rel] != after[rel] or rel in modes)),
        modes,
    )


def in_bytes(old: Side, new: Side) -> tuple[str, ...]:
    """Fixture files in both versions whose bytes differ: a comment or the line endings change
    no parsed field, yet the frozen file a reader opens is not the same."""
    before, after = old.manifest.files, new.manifest.files
    kept = set(old.manifest.fixture_names() or ()) & set(new.manifest.fixture_names() or ())
    return tuple(sorted(rel for rel in kept if rel in before and rel in after and before[rel] != after[rel]))
