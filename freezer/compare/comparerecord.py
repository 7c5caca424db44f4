"""The comparability record every version carries (manifest format 3).

At cut time the manifest records, under ``comparability``, the arms of the
suite with what each depends on, the field groups of its fixture schema, and
the digests of every landed fixture; ``comparability.json`` holds the record
against every earlier version (newest first), one entry per arm: the class of
each fixture, the comparable subset with its digest, and why each other
fixture is excluded. Both are pure functions of frozen data, so the audit
recomputes them and a later freezer.yaml cannot rewrite them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence

from freezer.compare import comparability
from freezer.compare.claims import file_fields_of
from freezer.domain.canonical import compact
from freezer.domain.errors import FreezerError
from freezer.domain.jsontypes import JsonObject, json_list, json_object
from freezer.domain.manifest import Comparability, Manifest
from freezer.domain.model import Raw
from freezer.kinds.yamlfiles import FILE_FIELDS
from freezer.registry.config import SuiteConfig
from freezer.registry.model import Suite
from freezer.registry.record import (
    Side,
    arms_of,
    dimensions_of,
    load_frozen_drafts,
    recorded_groups,
    side,
    strictest_arms,
    strictest_groups,
)
from freezer.registry.record import read as read_verified
from freezer.validate.namedfiles import AssetFiles

# 2: each pair is read the stricter way where the two versions disagree (an arm that depends on
# more, a field in a stricter group). Format 1, which earlier versions froze, is still recomputed.
# 3: a changed fixture's reason names its files whose content changed (comparability.NAMING_FORMAT).
# 4: an image a fixture names moves (or leaves unknown) that fixture alone, not the environment of
# every fixture of the arm (comparability.ATTRIBUTION_FORMAT).
# 5: a version record that moved only in its title moves no arm (comparability.TITLE_FORMAT).
# Formats 1 to 4 are still recomputed.
# 6: a reference that pins nothing is "cannot tell", and harness bytes move run (comparability.REFERENCES_FORMAT).
RECORD_FORMAT = comparability.REFERENCES_FORMAT


def manifest_entry(
    arms: Mapping[str, Sequence[str]],
    groups: Mapping[str, str],
    fixtures: Sequence[Raw],
    asset_hashes: Mapping[str, str],
    file_fields: Sequence[str] = FILE_FIELDS,
) -> JsonObject:
    """What the manifest records: the arms, the field groups, and each landed fixture's digests
    (``file_fields``: the fields whose listed files count by content, a kind's own for its fixtures)."""
    digests: JsonObject = {}
    for fixture in sorted(fixtures, key=lambda f: f["task_id"]):
        if fixture.get("status") == "landed":
            found = comparability.fixture_digests(fixture, groups, asset_hashes, file_fields)
            digests[fixture["task_id"]] = {**found, "score": comparability.score_digest(found)}
    return {
        # Canonical order: the manifest is written with sorted keys, and the record is recomputed from it.
        "arms": {arm: json_list(arms[arm]) for arm in sorted(arms)},
        "groups": json_object(dict(sorted(groups.items()))),
        "fixtures": digests,
    }


def environment_digest(manifest: Manifest, version: Raw | None = None) -> str:
    """One digest of the environment a version's fixtures run in: the pinned SHA, the binary as
    frozen, the tool-surface commits declared since the previous build and, when its version.yaml
    has one (``version``), the run configuration; then the data sources it pins and the container
    images its fixtures name.

    The run configuration gets a digest tag of its own (``/2``): no version frozen before ``run:``
    existed can have one (the version schema refused it), so each of those keeps its ``/1`` digest.
    Likewise ``/3`` for what came after: no code under test, ``sources:`` and environment images,
    none of which an earlier version can hold (schema and manifest refused them), so every earlier
    digest is unchanged. The suite's own images (``suite_images``) join only when there are some,
    which no manifest written before could record; so do the commits a lock pinned git sources and
    the tasks' hub datasets to.
    """
    environment: JsonObject = {}
    if manifest.pinned is not None and manifest.binary is not None:
        environment["pinned_sha"] = manifest.pinned.full
        environment["binary"] = dict(manifest.binary.raw)
        environment["tool_surface_commits"] = json_list(c.sha for c in manifest.commits)
    tag = b"freezer-environment-digest/1\n"
    if version is not None and "run" in version:
        environment["run"] = version["run"]
        tag = b"freezer-environment-digest/2\n"
    sources = version.get("sources") if version is not None else None
    if not manifest.code_under_test or sources or manifest.images or manifest.suite_images:
        environment["code_under_test"] = manifest.code_under_test
        environment["sources"] = sources or []
        environment["images"] = {task: [i.to_json() for i in refs] for task, refs in manifest.images.items()}
        tag = b"freezer-environment-digest/3\n"
    if manifest.suite_images:  # only a manifest written since they are recorded has them
        environment["suite_images"] = [i.to_json() for i in manifest.suite_images]
    if manifest.locked_sources:  # likewise: a branch or tag source is pinned by its locked commit
        environment["locked_sources"] = dict(manifest.locked_sources)
    if manifest.locked_datasets:  # and the commits a lock pinned the tasks' hub datasets to
        environment["locked_datasets"] = {name: dict(refs) for name, refs in manifest.locked_datasets.items()}
    return hashlib.sha256(tag + compact(environment)).hexdigest()


def record(
    current: Side,
    earlier: Sequence[Side],
    meanings: Mapping[str, str],
    recorded: Comparability,
    record_format: int = RECORD_FORMAT,
) -> Raw:
    """comparability.json: ``current`` against every version in ``earlier`` (oldest first in the argument)."""
    against = []
    for index in reversed(range(len(earlier))):
        chain = [*earlier[index:], current]
        arms, groups = recorded.arms, recorded.groups
        if record_format >= 2:
            old = earlier[index].manifest
            arms = strictest_arms(arms_of(old), arms)
            groups = strictest_groups(*(g for g in (recorded_groups(old),) if g is not None), groups)
        pairs = comparability.compare(chain, meanings, arms, groups, record_format=record_format)
        against.append({"version": earlier[index].name, "arms": [pair.to_json() for pair in pairs]})
    return {"comparability_format": record_format, "version": current.name, "against": against}


def earlier_sides(suite: SuiteConfig, number: int, *, verify: bool = False) -> list[Side]:
    """Every frozen version of ``suite`` before ``number``, as the delta engine sees it; with
    ``verify``, each one's files are checked against their hashes first (a cut must not record
    comparability against a tampered version)."""
    sides = []
    for frozen in Suite.of(suite).before(number):
        if verify:
            sides.append(read_verified(frozen).side())
            continue
        manifest = frozen.manifest_model()
        version, fixtures = load_frozen_drafts(frozen, manifest)
        sides.append(side(manifest, version, fixtures))
    return sides


def recompute(suite: SuiteConfig, current: Side, record_format: int = RECORD_FORMAT) -> tuple[Comparability, Raw]:
    """(manifest entry, comparability.json in ``record_format``) recomputed from the frozen data of a
    format-3 version; raises FreezerError, OSError or ValueError when an earlier version cannot be read."""
    recorded = current.manifest.comparability
    if recorded is None:
        raise ValueError(f"{current.name}: its manifest records no comparability")
    asset_hashes = AssetFiles.of(current.manifest)  # by hash and mode; folders and globs name its assets
    fixtures = list(current.fixtures.values())
    entry = manifest_entry(recorded.arms, recorded.groups, fixtures, asset_hashes, file_fields_of(current.manifest))
    fresh = Comparability.from_data({**entry, "environment": environment_digest(current.manifest, current.version)})
    meanings = dimensions_of(current.manifest)
    return fresh, record(current, earlier_sides(suite, current.manifest.number), meanings, fresh, record_format)


def frozen_differences(suite: SuiteConfig, current: Side, frozen_record: bytes) -> list[str]:
    """What differs between the frozen comparability data and what the frozen inputs give now."""
    try:
        frozen = json.loads(frozen_record)
        recorded_format = frozen.get("comparability_format", RECORD_FORMAT) if isinstance(frozen, dict) else 0
        entry, fresh = recompute(suite, current, recorded_format)
    except (FreezerError, OSError, ValueError, KeyError, TypeError) as exc:
        detail = exc.message if isinstance(exc, FreezerError) else str(exc)
        return [f"cannot be recomputed from the chain: {detail}"]
    found = []
    if entry != current.manifest.comparability:
        found.append("the manifest's fixture digests do not match the frozen fixtures")
    if fresh != frozen:
        found.append("does not match the comparability recomputed from the chain")
    return found
