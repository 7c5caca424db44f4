"""Field-level differences of the delta: fixtures by JSON path, the set-level record and the run
configuration of version.yaml. :mod:`freezer.compare.delta` puts them together; ``freezer status``
reads them too (the drafts against the latest version)."""

from __future__ import annotations

from collections.abc import Mapping

from freezer.compare import fieldtext
from freezer.compare.delta_v1 import field_changes as clipped_field_changes
from freezer.compare.delta_v1 import flatten
from freezer.compare.deltamodel import ClassCounts, FixtureBrief, FixtureChange, FixtureDelta
from freezer.compare.fieldchange import changes_of
from freezer.domain.fixtureclass import class_counts, fixture_class
from freezer.domain.jsontypes import JsonObject, JsonValue
from freezer.domain.model import Raw

# The newest delta format (each format's change: freezer.compare.delta). Here so that the
# field-level functions default to it without importing the engine that imports them.
NEWEST_FORMAT = 6
# Fields of version.yaml shown in their own sections, not in the set-level record.
_SHOWN_ELSEWHERE = ("suite", "version", "pinned_sha", "binary", "tool_surface_commits")


def _classes(fixtures: Mapping[str, Raw]) -> dict[str, int]:
    return class_counts(fixture for fixture in fixtures.values() if fixture.get("status") == "landed")


def field_changes(old: Raw, new: Raw, *, full: bool = False, delta_format: int = NEWEST_FORMAT) -> list[JsonObject]:
    """Field-level differences by JSON path. Clipped text by default (what delta.json froze and
    METHOD.md shows); ``full`` keeps each value as it is, for machines (``diff --format json``).
    From format 4 a multi-line text also carries its line diff (``lines``), and two different
    values are always shown so that they read differently (:mod:`freezer.compare.fieldtext`)."""
    if delta_format >= 4:
        return fieldtext.field_changes(flatten(dict(old)), flatten(dict(new)), full=full)
    if not full:
        return clipped_field_changes(dict(old), dict(new))
    before, after = flatten(dict(old)), flatten(dict(new))
    changes: list[JsonObject] = []
    for path in sorted(set(before) | set(after)):
        if path not in before:
            changes.append({"path": path, "change": "added", "new": after[path]})
        elif path not in after:
            changes.append({"path": path, "change": "removed", "old": before[path]})
        elif before[path] != after[path]:
            a, b = before[path], after[path]
            if isinstance(a, list) and isinstance(b, list):
                added: JsonValue = [x for x in b if x not in a]
                removed: JsonValue = [x for x in a if x not in b]
                changes.append({"path": path, "change": "items", "added": added, "removed": removed})
            else:
                changes.append({"path": path, "change": "changed", "old": a, "new": b})
    return changes


def fixture_delta(
    old: Mapping[str, Raw], new: Mapping[str, Raw], *, full: bool = False, delta_format: int = NEWEST_FORMAT
) -> FixtureDelta:
    """Fixtures added, removed and changed field by field, by task id. Unlike 0.1.0's (kept
    unchanged in delta_v1 for its frozen versions), a fixture need not have a class. From format
    4, ``true`` and ``1`` differ (as they do in the fixture's digests). ``unchanged`` here is by
    fields alone: the engine takes out of it the fixtures changed through their files (format 5)."""

    def brief(f: Raw) -> FixtureBrief:
        return FixtureBrief(f["task_id"], fixture_class(f), f["status"])

    both = sorted(set(old) & set(new))

    def differs(task: str) -> bool:
        return not fieldtext.same(dict(old[task]), dict(new[task])) if delta_format >= 4 else old[task] != new[task]

    old_classes, new_classes = _classes(old), _classes(new)
    return FixtureDelta(
        added=tuple(brief(new[t]) for t in sorted(set(new) - set(old))),
        removed=tuple(brief(old[t]) for t in sorted(set(old) - set(new))),
        changed=tuple(
            FixtureChange(t, changes_of(field_changes(old[t], new[t], full=full, delta_format=delta_format)))
            for t in both
            if differs(t)
        ),
        unchanged=tuple(t for t in both if not differs(t)),
        classes=ClassCounts(
            before=old_classes,
            after=new_classes,
            added=tuple(sorted(set(new_classes) - set(old_classes))),
            removed=tuple(sorted(set(old_classes) - set(new_classes))),
        ),
    )


def version_record(version: Raw, delta_format: int = NEWEST_FORMAT) -> JsonObject:
    """The fields of version.yaml that §Delta lists as the set-level record (from format 4, the run
    configuration has its own section)."""
    hidden = (*_SHOWN_ELSEWHERE, "run", "sources") if delta_format >= 4 else _SHOWN_ELSEWHERE
    return {key: value for key, value in version.items() if key not in hidden}


def run_changes(old: Raw | None, new: Raw, *, full: bool = False) -> list[JsonObject]:
    """The run configuration field by field (paths relative to ``run``). For a first version
    (``old`` None) every field is listed as added: that is its run configuration."""
    before, after = dict((old or {}).get("run") or {}), dict(new.get("run") or {})
    return [{**c, "path": str(c["path"]).removeprefix("$.")} for c in field_changes(before, after, full=full)]
