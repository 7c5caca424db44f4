"""The delta engine: everything that changed between two versions of a suite.

One engine serves METHOD.md's §Delta (at cut time, against the previous
version), ``freezer diff`` (any two versions) and audit (which recomputes the
frozen ``delta.json``). It is a pure function of frozen data: each version's
manifest (what its checks used and recorded), its version.yaml and its
fixtures. What differs between the two ends (fixtures, the set-level record,
the binary, the pinned SHA, the checks) is compared end to end; what happened
*between* them (tool-surface commits, code history) is accumulated over every
version along the chain. A dimension that is unknown on either side is said
to be unknown, never "did not move".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from freezer.compare import between
from freezer.compare.checkchanges import check_changes, oracle

# file_fields_of, field_changes, fixture_delta and version_record are read from here too (status,
# site, browse, comparability), where the rest of the delta is.
from freezer.compare.claims import changed_assets, claims_of, through_files, unclaimed_changes
from freezer.compare.deltamodel import AssetChanges, BeforeAfter, Delta, FixtureDelta, ModeChange, Unknown
from freezer.compare.environment import (
    FIXTURE_SET,
    REFERENCES_FORMAT,
    dataset_fields,
    harness_file_changes,
    image_changes,
    reference_unknowns,
    source_changes,
    source_fields,
    unpinned,
)
from freezer.compare.fieldchange import FieldChange
from freezer.compare.fieldlevel import NEWEST_FORMAT, field_changes, fixture_delta, run_changes, version_record
from freezer.domain.jsontypes import JsonObject
from freezer.domain.manifest import Manifest
from freezer.registry.record import Side

# 3: the checks also say when the arms or the field groups of the fixture schema moved (format 2,
# which every earlier version's delta.json holds, is still computed for them: audit recomputes it).
# 4: the run configuration (version.yaml's ``run:``) is a section and a dimension of its own,
# no longer part of the set-level record; a multi-line text also changes as a line diff, two
# different values never render alike (fieldtext), and fixtures name the files they use whose
# content changed.
# 5: a fixture changed through its files is changed, never also unchanged, and moves the fixture
# set; a changed asset that fixtures claim is theirs (``assets.claimed`` names them), and the
# ``assets`` dimension moves only for a file no fixture claims (the rule compare uses:
# freezer.compare.claims); a file named through a fixture is no longer also listed as a fixture
# file changed in bytes alone.
# 6: every reference is pinned or unknown with why (freezer.resolve.references: a url source with no
# content digest, a harness repo with no commit, an lm-eval task's dataset read at no pinned
# revision), and unknown is never listed as unmoved; the bytes of the harness files
# run.harness.paths names are changes of the run configuration.
DELTA_FORMAT = NEWEST_FORMAT
CLAIMS_FORMAT = 5
# What moved/unmoved call version.yaml's run: block (format 4 on).
RUN_CONFIGURATION = "run configuration"
# Said once, in unknown-free words, where a version has no code under test: the dimensions of code
# (binary, code under test, tool surface, Gate B) are left out of moved and unmoved, not "did not move".
NO_CODE = "no code under test"


def _typed(changes: list[JsonObject]) -> tuple[FieldChange, ...]:
    return tuple(FieldChange.from_json(c) for c in changes)


def _fixtures_and_assets(
    old: Side, new: Side, full: bool, delta_format: int
) -> tuple[FixtureDelta, AssetChanges, bool]:
    """The fixture set and the assets, and whether the suite's own assets moved. From format 4 the
    fixtures changed through their files are named; from format 5 they are not also unchanged, no
    file of theirs is also a fixture file changed in bytes alone, each changed asset that fixtures
    claim names them, and only an unclaimed one moves the ``assets`` dimension."""
    fixtures = fixture_delta(old.fixtures, new.fixtures, full=full, delta_format=delta_format)
    assets = asset_changes(old.manifest, new.manifest, delta_format)
    if delta_format < 4:
        return fixtures, assets, assets.moved
    through, bytes_only = through_files(old, new), in_bytes(old, new)
    if delta_format < CLAIMS_FORMAT:
        return replace(fixtures, through_files=through, files_in_bytes=bytes_only), assets, assets.moved
    moved_by_files = {change.task_id for change in through}
    named = {rel for change in through for rel in change.files}
    fixtures = replace(
        fixtures,
        unchanged=tuple(task for task in fixtures.unchanged if task not in moved_by_files),
        through_files=through,
        files_in_bytes=tuple(rel for rel in bytes_only if rel not in named),
    )
    if not assets.moved:
        return fixtures, assets, False
    claims = claims_of(old, new)  # only when an asset changed: it reads every fixture's entries
    claimed = {rel: claims.of(rel) for rel in changed_assets(assets) if claims.of(rel)}
    return fixtures, replace(assets, claimed=claimed), bool(unclaimed_changes(assets, claims))


def compute(
    chain: Sequence[Side],
    meanings: Mapping[str, str],
    *,
    reversed_: bool = False,
    full: bool = False,
    delta_format: int = DELTA_FORMAT,
) -> Delta:
    """The delta from ``chain[0]`` to ``chain[-1]``, accumulating every version in between.

    A one-element chain is a suite's first version: nothing to compare it with.
    ``meanings`` are the suite's dimensions (name → meaning), in their order. ``full`` keeps
    changed values whole (see :func:`field_changes`); delta.json and METHOD.md use the default.
    ``delta_format`` is the shape to compute: audit recomputes a frozen delta.json in its own.
    """
    new = chain[-1]
    old = chain[0] if len(chain) > 1 else None
    through = list(chain[1:]) if old else [new]
    surface = between.surface(through, meanings, chain)
    ends = [s for s in (old, new) if s is not None]
    incomplete = [s for s in through if s.manifest.scan is not None and not s.manifest.scan.build_sha_known]
    caveats = []
    for version in incomplete:
        tips = ", ".join(t[:8] for t in version.manifest.scan.tips) if version.manifest.scan else ""
        which = (
            "the pinned SHA and the declared commits"
            if version.manifest.format >= 2
            else "the pinned SHA; freezer 0.1.0 scanned no further"
        )
        caveats.append(
            f"{version.name}: the binary's build SHA is unknown, so the tool-surface scan stopped at {tips} "
            f"({which}). A tool-surface commit after those could be in the binary without being declared: "
            "the tool-surface record of this version may be incomplete."
        )
    unknown = [Unknown("binary build", why) for why in (between.build_unknown(s) for s in ends) if why is not None]
    if delta_format >= 4:
        unknown.extend(unpinned(ends))
    if delta_format >= REFERENCES_FORMAT:
        unknown.extend(reference_unknowns(ends))
    unseen = between.unseen(through)
    unknown.extend(unseen)
    # What a first version's delta says; a compared one replaces every comparison part.
    first = Delta(
        delta_format=delta_format,
        from_=old.name if old else None,
        to=new.name,
        reversed=reversed_,
        through=tuple(s.name for s in through),
        tool_surface=surface,
        caveats=tuple(caveats),
        fixtures=None,
        assets=None,
        version_record=(),
        run=_typed(run_changes(None, new.version, full=full)) if delta_format >= 4 else (),
        binary=(),
        checks=(),
        grep_oracle=BeforeAfter(None, oracle(new.manifest)),
        pinned_sha=None,
        code=None,
        moved=(),
        unmoved=(),
        unknown=tuple(unknown),
        sources=_typed(source_changes(None, new, full=full)) if delta_format >= 4 else (),
        environment=_typed(image_changes(None, new.manifest, full=full)) if delta_format >= 4 else (),
    )
    if old is None:
        return first
    fixtures, assets, suite_assets_moved = _fixtures_and_assets(old, new, full, delta_format)
    versions = (version_record(old.version, delta_format), version_record(new.version, delta_format))
    record = _typed(field_changes(*versions, full=full, delta_format=delta_format))
    run = _typed(run_changes(old.version, new.version, full=full)) if delta_format >= 4 else ()
    if delta_format >= REFERENCES_FORMAT:
        run = (*run, *_typed(harness_file_changes(old, new)))
    binaries = tuple(dict(s.manifest.binary.raw) if s.manifest.binary else {} for s in (old, new))
    binary = _typed(field_changes(*binaries, full=full, delta_format=delta_format))
    checks = _typed(check_changes(old.manifest, new.manifest, full, delta_format))
    code = between.code_between(through)
    if not code.recorded:
        unknown.append(
            Unknown(
                "code history",
                f"{', '.join(code.not_recorded_by)} did not record the commits between pinned SHAs "
                "(cut by freezer 0.1.0)",
            )
        )
    moved: list[str] = []
    unmoved: list[str] = []
    fixture_set_moved = fixtures.moved or (delta_format >= CLAIMS_FORMAT and bool(fixtures.through_files))
    if fixture_set_moved:
        moved.append(FIXTURE_SET)
    elif all(u.dimension != FIXTURE_SET for u in unknown):  # unknown is never "did not move"
        unmoved.append(FIXTURE_SET)
    (moved if record else unmoved).append("version record")
    sources = _typed(source_changes(old, new, full=full)) if delta_format >= 4 else ()
    kept = set(old.fixtures) & set(new.fixtures)
    environment = _typed(image_changes(old.manifest, new.manifest, full=full, kept=kept)) if delta_format >= 4 else ()
    if delta_format >= 4:
        blind = {u.dimension for u in unknown}
        if run or RUN_CONFIGURATION not in blind:  # unknown is never "did not move"
            (moved if run else unmoved).append(RUN_CONFIGURATION)
        if sources or ((source_fields(old.version) or dataset_fields(old.manifest)) and "sources" not in blind):
            (moved if sources else unmoved).append("sources")
        if environment:
            moved.append("environment")
        elif (old.manifest.images or old.manifest.suite_images) and not any(
            u.dimension == "environment" for u in unknown
        ):
            unmoved.append("environment")
    if assets.moved or assets_of(old.manifest) or assets_of(new.manifest):
        (moved if suite_assets_moved else unmoved).append("assets")
    for entry in surface:
        if entry.commits:
            moved.append(entry.dimension)
        elif incomplete:
            unknown.append(
                Unknown(
                    entry.dimension,
                    "no commit is declared or found up to the scanned tips, but the build SHA is unknown",
                )
            )
        elif unseen:
            unknown.append(
                Unknown(
                    entry.dimension,
                    "no commit is declared or found, but the scan could not see all of the tool surface "
                    f"({', '.join(u.dimension.removeprefix('tool surface at ') for u in unseen)})",
                )
            )
        else:
            unmoved.append(entry.dimension)
    with_code = old.manifest.code_under_test, new.manifest.code_under_test
    if any(with_code):
        (moved if binary else unmoved).append("binary")
        (moved if old.manifest.pinned_full != new.manifest.pinned_full else unmoved).append("code under test")
    (moved if checks else unmoved).append("checks")
    grep = BeforeAfter(oracle(old.manifest), oracle(new.manifest))
    if any(with_code):
        (moved if grep.moved else unmoved).append("Gate B grep oracle")
    return replace(
        first,
        fixtures=fixtures,
        assets=assets,
        version_record=record,
        run=run,
        binary=binary,
        checks=checks,
        grep_oracle=grep,
        pinned_sha=BeforeAfter(old.manifest.pinned_full, new.manifest.pinned_full) if any(with_code) else None,
        code=code if any(with_code) else None,
        moved=tuple(moved),
        unmoved=tuple(unmoved),
        unknown=tuple(unknown),
        sources=sources,
        environment=environment,
    )


# The files of two versions compared by content: the assets added, removed and changed (with their
# modes), and the fixture files whose bytes differ; which fixtures a changed file belongs to is
# freezer.compare.claims's to say.
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
