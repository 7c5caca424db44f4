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
from typing import Any

from freezer.compare import between, fieldtext
from freezer.compare.delta_v1 import field_changes as clipped_field_changes
from freezer.compare.delta_v1 import flatten
from freezer.compare.deltamodel import (
    AssetChanges,
    BeforeAfter,
    Delta,
    FieldChange,
    FilesChange,
    FixtureDelta,
    ModeChange,
    Unknown,
)
from freezer.compare.environment import image_changes, source_changes, source_fields, unpinned
from freezer.domain.manifest import Manifest
from freezer.domain.model import Raw
from freezer.kinds.catalog import file_fields
from freezer.registry.record import Side, arms_of
from freezer.validate.namedfiles import FILE_FIELDS, AssetFiles, changed_files

# 3: the checks also say when the arms or the field groups of the fixture schema moved (format 2,
# which every earlier version's delta.json holds, is still computed for them: audit recomputes it).
# 4: the run configuration (version.yaml's ``run:``) is a section and a dimension of its own,
# no longer part of the set-level record; a multi-line text also changes as a line diff, two
# different values never render alike (fieldtext), and fixtures name the files they use whose
# content changed.
DELTA_FORMAT = 4
# Fields of version.yaml shown in their own sections, not in the set-level record.
_SHOWN_ELSEWHERE = ("suite", "version", "pinned_sha", "binary", "tool_surface_commits")
# What moved/unmoved call version.yaml's run: block (format 4 on).
RUN_CONFIGURATION = "run configuration"
# Said once, in unknown-free words, where a version has no code under test: the dimensions of code
# (binary, code under test, tool surface, Gate B) are left out of moved and unmoved, not "did not move".
NO_CODE = "no code under test"


def _classes(fixtures: Mapping[str, Raw]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for fixture in fixtures.values():
        if fixture.get("status") == "landed" and fixture.get("class"):
            counts[fixture["class"]] = counts.get(fixture["class"], 0) + 1
    return dict(sorted(counts.items()))


def field_changes(old: Raw, new: Raw, *, full: bool = False, delta_format: int = DELTA_FORMAT) -> list[dict[str, Any]]:
    """Field-level differences by JSON path. Clipped text by default (what delta.json froze and
    METHOD.md shows); ``full`` keeps each value as it is, for machines (``diff --format json``).
    From format 4 a multi-line text also carries its line diff (``lines``), and two different
    values are always shown so that they read differently (:mod:`freezer.compare.fieldtext`)."""
    if delta_format >= 4:
        return fieldtext.field_changes(flatten(old), flatten(new), full=full)
    if not full:
        return clipped_field_changes(dict(old), dict(new))
    before, after = flatten(old), flatten(new)
    changes: list[dict[str, Any]] = []
    for path in sorted(set(before) | set(after)):
        if path not in before:
            changes.append({"path": path, "change": "added", "new": after[path]})
        elif path not in after:
            changes.append({"path": path, "change": "removed", "old": before[path]})
        elif before[path] != after[path]:
            a, b = before[path], after[path]
            if isinstance(a, list) and isinstance(b, list):
                added, removed = [x for x in b if x not in a], [x for x in a if x not in b]
                changes.append({"path": path, "change": "items", "added": added, "removed": removed})
            else:
                changes.append({"path": path, "change": "changed", "old": a, "new": b})
    return changes


def fixture_delta(
    old: Mapping[str, Raw], new: Mapping[str, Raw], *, full: bool = False, delta_format: int = DELTA_FORMAT
) -> dict[str, Any]:
    """Fixtures added, removed and changed field by field, by task id. Unlike 0.1.0's (kept
    unchanged in delta_v1 for its frozen versions), a fixture need not have a class. From format
    4, ``true`` and ``1`` differ (as they do in the fixture's digests)."""

    def brief(f: Raw) -> dict[str, Any]:
        return {"task_id": f["task_id"], "class": f.get("class"), "status": f["status"]}

    both = sorted(set(old) & set(new))

    def differs(task: str) -> bool:
        return not fieldtext.same(old[task], new[task]) if delta_format >= 4 else old[task] != new[task]

    old_classes, new_classes = _classes(old), _classes(new)
    return {
        "added": [brief(new[t]) for t in sorted(set(new) - set(old))],
        "removed": [brief(old[t]) for t in sorted(set(old) - set(new))],
        "changed": [
            {"task_id": t, "fields": field_changes(old[t], new[t], full=full, delta_format=delta_format)}
            for t in both
            if differs(t)
        ],
        "unchanged": [t for t in both if not differs(t)],
        "classes": {
            "before": old_classes,
            "after": new_classes,
            "added": sorted(set(new_classes) - set(old_classes)),
            "removed": sorted(set(old_classes) - set(new_classes)),
        },
    }


def version_record(version: Raw, delta_format: int = DELTA_FORMAT) -> dict[str, Any]:
    """The fields of version.yaml that §Delta lists as the set-level record (from format 4, the run
    configuration has its own section)."""
    hidden = (*_SHOWN_ELSEWHERE, "run", "sources") if delta_format >= 4 else _SHOWN_ELSEWHERE
    return {key: value for key, value in version.items() if key not in hidden}


def run_changes(old: Raw | None, new: Raw, *, full: bool = False) -> list[dict[str, Any]]:
    """The run configuration field by field (paths relative to ``run``). For a first version
    (``old`` None) every field is listed as added: that is its run configuration."""
    before, after = dict((old or {}).get("run") or {}), dict(new.get("run") or {})
    return [{**c, "path": c["path"].removeprefix("$.")} for c in field_changes(before, after, full=full)]


def _comparability_changes(old: Manifest, new: Manifest, full: bool, delta_format: int) -> list[dict[str, Any]]:
    """Arms and field groups that moved between two versions that both recorded them (format 3)."""
    before, after = old.comparability, new.comparability
    if before is None or after is None:
        return []
    changes: list[dict[str, Any]] = []
    old_arms = {arm: list(needs) for arm, needs in arms_of(old).items()}
    new_arms = {arm: list(needs) for arm, needs in arms_of(new).items()}
    for change in field_changes(old_arms, new_arms, full=full, delta_format=delta_format):
        changes.append({**change, "path": "arm " + change["path"].removeprefix("$.")})
    for change in field_changes(dict(before.groups), dict(after.groups), full=full, delta_format=delta_format):
        changes.append({**change, "path": "field group " + change["path"].removeprefix("$.")})
    return changes


def _check_changes(old: Manifest, new: Manifest, full: bool, delta_format: int) -> list[dict[str, Any]]:
    hashed = 64 if full else 16
    changes: list[dict[str, Any]] = []
    if old.checks.template_sha256 != new.checks.template_sha256:
        changes.append(
            {
                "path": "METHOD.md template (sha256)",
                "change": "changed",
                "old": old.checks.template_sha256[:hashed],
                "new": new.checks.template_sha256[:hashed],
            }
        )
    if old.globs != new.globs:
        changes.append(
            {
                "path": "tool_surface globs",
                "change": "items",
                "added": [g for g in new.globs if g not in old.globs],
                "removed": [g for g in old.globs if g not in new.globs],
            }
        )
    before_kind, after_kind = old.checks.fixture_schema_kind, new.checks.fixture_schema_kind
    before_sha = old.checks.fixture_schema.sha256 if old.checks.fixture_schema else ""
    after_sha = new.checks.fixture_schema.sha256 if new.checks.fixture_schema else ""
    if before_kind != after_kind or (before_sha and after_sha and before_sha != after_sha):
        changes.append(
            {
                "path": "fixture schema",
                "change": "changed",
                "old": f"{before_kind} {before_sha[:hashed]}".strip(),
                "new": f"{after_kind} {after_sha[:hashed]}".strip(),
            }
        )
    if old.checks.dimensions is not None and new.checks.dimensions is not None:
        dimensions = (dict(old.checks.dimensions), dict(new.checks.dimensions))
        for change in field_changes(*dimensions, full=full, delta_format=delta_format):
            changes.append({**change, "path": "dimension " + change["path"].removeprefix("$.")})
    if delta_format >= 3:
        changes.extend(_comparability_changes(old, new, full, delta_format))
    return changes


def _oracle(manifest: Manifest) -> str | None:
    return str(manifest.checks.grep) if manifest.checks.grep is not None else None


def _assets(manifest: Manifest) -> dict[str, str]:
    return {rel: manifest.files.get(rel, "") for rel in manifest.asset_names()}


def _asset_changes(old: Manifest, new: Manifest, delta_format: int = DELTA_FORMAT) -> AssetChanges:
    """Assets added, removed and changed; from format 4 a file whose mode alone moved is changed too,
    with its modes (``mode 100644 → 100755``)."""
    before, after = _assets(old), _assets(new)
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


def file_fields_of(manifest: Manifest) -> tuple[str, ...]:
    """The fields of a version's parsed fixtures that list files counted by their content: assets
    and graders, or a kind's own (a folders fixture's ``files``: every file of its folder)."""
    return FILE_FIELDS if manifest.fixture_kind is None else file_fields(manifest.fixture_kind)


def _through_files(old: Side, new: Side) -> tuple[FilesChange, ...]:
    """Fixtures in both versions that name a file (assets, graders: a file, a folder or a glob; a
    folders fixture's own files) whose content or mode changed, or that a folder or glob gained or
    lost: a fixture can change what its agent sees with its own YAML untouched."""
    before, after = AssetFiles.of(old.manifest), AssetFiles.of(new.manifest)
    keys = tuple(dict.fromkeys((*file_fields_of(old.manifest), *file_fields_of(new.manifest))))
    found = []
    for task in sorted(set(old.fixtures) & set(new.fixtures)):
        moved = changed_files(old.fixtures[task], new.fixtures[task], before, after, keys, keys)
        if moved:
            found.append(FilesChange(task, tuple(sorted(moved))))
    return tuple(found)


def _in_bytes(old: Side, new: Side) -> tuple[str, ...]:
    """Fixture files in both versions whose bytes differ: a comment or the line endings change
    no parsed field, yet the frozen file a reader opens is not the same."""
    before, after = old.manifest.files, new.manifest.files
    kept = set(old.manifest.fixture_names() or ()) & set(new.manifest.fixture_names() or ())
    return tuple(sorted(rel for rel in kept if rel in before and rel in after and before[rel] != after[rel]))


def _typed(changes: list[dict[str, Any]]) -> tuple[FieldChange, ...]:
    return tuple(FieldChange.from_json(c) for c in changes)


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
        grep_oracle=BeforeAfter(None, _oracle(new.manifest)),
        pinned_sha=None,
        code=None,
        moved=(),
        unmoved=(),
        unknown=tuple(unknown),
        sources=_typed(source_changes(None, new.version, full=full)) if delta_format >= 4 else (),
        environment=_typed(image_changes(None, new.manifest, full=full)) if delta_format >= 4 else (),
    )
    if old is None:
        return first
    fixtures = FixtureDelta.from_json(fixture_delta(old.fixtures, new.fixtures, full=full, delta_format=delta_format))
    assets = _asset_changes(old.manifest, new.manifest, delta_format)
    if delta_format >= 4:
        fixtures = replace(fixtures, through_files=_through_files(old, new), files_in_bytes=_in_bytes(old, new))
    versions = (version_record(old.version, delta_format), version_record(new.version, delta_format))
    record = _typed(field_changes(*versions, full=full, delta_format=delta_format))
    run = _typed(run_changes(old.version, new.version, full=full)) if delta_format >= 4 else ()
    binaries = tuple(dict(s.manifest.binary.raw) if s.manifest.binary else {} for s in (old, new))
    binary = _typed(field_changes(*binaries, full=full, delta_format=delta_format))
    checks = _typed(_check_changes(old.manifest, new.manifest, full, delta_format))
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
    (moved if fixtures.moved else unmoved).append("fixture set")
    (moved if record else unmoved).append("version record")
    sources = _typed(source_changes(old.version, new.version, full=full)) if delta_format >= 4 else ()
    kept = set(old.fixtures) & set(new.fixtures)
    environment = _typed(image_changes(old.manifest, new.manifest, full=full, kept=kept)) if delta_format >= 4 else ()
    if delta_format >= 4:
        (moved if run else unmoved).append(RUN_CONFIGURATION)
        if sources or source_fields(old.version):
            (moved if sources else unmoved).append("sources")
        if environment:
            moved.append("environment")
        elif (old.manifest.images or old.manifest.suite_images) and not any(
            u.dimension == "environment" for u in unknown
        ):
            unmoved.append("environment")
    if assets.moved or _assets(old.manifest) or _assets(new.manifest):
        (moved if assets.moved else unmoved).append("assets")
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
    oracle = BeforeAfter(_oracle(old.manifest), _oracle(new.manifest))
    if any(with_code):
        (moved if oracle.moved else unmoved).append("Gate B grep oracle")
    return replace(
        first,
        fixtures=fixtures,
        assets=assets,
        version_record=record,
        run=run,
        binary=binary,
        checks=checks,
        grep_oracle=oracle,
        pinned_sha=BeforeAfter(old.manifest.pinned_full, new.manifest.pinned_full) if any(with_code) else None,
        code=code if any(with_code) else None,
        moved=tuple(moved),
        unmoved=tuple(unmoved),
        unknown=tuple(unknown),
        sources=sources,
        environment=environment,
    )
