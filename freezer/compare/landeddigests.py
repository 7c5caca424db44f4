"""A frozen version's landed fixtures and their digests, computed from the version's own files.

Below the guard, so that ``check`` and ``audit`` can hold stored results to the digests that
``results check``, the imports and the API compute, by the one function."""

from __future__ import annotations

from freezer.compare import comparability
from freezer.compare.claims import file_fields_of
from freezer.domain.manifest import FixtureDigests
from freezer.registry.record import VersionData, groups_of
from freezer.validate.namedfiles import AssetFiles


def fixture_digests(data: VersionData) -> dict[str, FixtureDigests]:
    """Each landed fixture's digests (input, grading, cosmetic, and the score's), by task id: computed
    from the version's own groups and frozen file hashes, as ``results check`` and the API compute them
    (for format 3 on they equal the manifest's ``comparability.fixtures``, which the audit proves)."""
    manifest = data.frozen.manifest_model()
    groups = groups_of(data.frozen, manifest)
    files = AssetFiles.of(manifest)
    fields = file_fields_of(manifest)
    out = {}
    for fixture in data.fixtures:
        if fixture["status"] != "landed":
            continue
        digests = comparability.fixture_digests(fixture, groups, files, fields)
        out[fixture["task_id"]] = FixtureDigests(
            digests["input"], digests["grading"], digests["cosmetic"], comparability.score_digest(digests)
        )
    return out


def score_digests(data: VersionData) -> dict[str, str]:
    """Each landed fixture's score digest (what a result row records), by task id."""
    return {task: digests.score for task, digests in fixture_digests(data).items()}
