"""The delta of freezer 0.1.0 (manifest format 1), kept unchanged so that audit can
recompute the ``delta.json`` of versions that release cut, byte for byte.

Do not change this module: its output is frozen in those versions. New cuts use
:mod:`freezer.compare.delta`, which reuses the field-level diff from here.
"""

from __future__ import annotations

from dataclasses import dataclass

from freezer.domain.jsontypes import JsonObject, JsonValue, json_list, json_object

_SHOWN = 120


def _flatten(value: JsonValue, prefix: str = "$") -> JsonObject:
    """Leaves by JSON path; lists of scalars stay whole so they diff as sets."""
    if isinstance(value, dict):
        out: JsonObject = {}
        for key in value:
            out.update(_flatten(value[key], f"{prefix}.{key}"))
        return out
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        out = {}
        for index, item in enumerate(value):
            out.update(_flatten(item, f"{prefix}[{index}]"))
        return out
    return {prefix: value}


# delta.py's unclipped diff walks fixtures the same way.
flatten = _flatten


def _short(value: JsonValue) -> str:
    text = value if isinstance(value, str) else repr(value)
    text = " ".join(str(text).split())
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def field_changes(old: JsonObject, new: JsonObject) -> list[JsonObject]:
    """Field-level differences between two fixtures, by JSON path."""
    before, after = _flatten(old), _flatten(new)
    changes: list[JsonObject] = []
    for path in sorted(set(before) | set(after)):
        a, b = before.get(path), after.get(path)
        if path not in before:
            changes.append({"path": path, "change": "added", "new": _short(b)})
        elif path not in after:
            changes.append({"path": path, "change": "removed", "old": _short(a)})
        elif a != b:
            if isinstance(a, list) and isinstance(b, list):
                changes.append(
                    {
                        "path": path,
                        "change": "items",
                        "added": [_short(x) for x in b if x not in a],
                        "removed": [_short(x) for x in a if x not in b],
                    }
                )
            else:
                changes.append({"path": path, "change": "changed", "old": _short(a), "new": _short(b)})
    return changes


def _classes(fixtures: dict[str, JsonObject]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for fixture in fixtures.values():
        if fixture.get("status") == "landed":
            name = fixture["class"]
            if not isinstance(name, str):  # 0.1.0's schema required a class, as a string
                raise ValueError(f"fixture {fixture.get('task_id')!r}: class {name!r} is not a string")
            counts[name] = counts.get(name, 0) + 1
    return dict(sorted(counts.items()))


def fixture_delta(old: dict[str, JsonObject], new: dict[str, JsonObject]) -> JsonObject:
    def brief(f: JsonObject) -> JsonObject:
        return {"task_id": f["task_id"], "class": f["class"], "status": f["status"]}

    changed: list[JsonValue] = []
    for task_id in sorted(set(old) & set(new)):
        if old[task_id] != new[task_id]:
            fields: list[JsonValue] = [*field_changes(old[task_id], new[task_id])]
            changed.append({"task_id": task_id, "fields": fields})
    old_classes, new_classes = _classes(old), _classes(new)
    return {
        "added": [brief(new[t]) for t in sorted(set(new) - set(old))],
        "removed": [brief(old[t]) for t in sorted(set(old) - set(new))],
        "changed": changed,
        "unchanged": json_list(sorted(t for t in set(old) & set(new) if old[t] == new[t])),
        "classes": {
            "before": json_object(old_classes),
            "after": json_object(new_classes),
            "added": json_list(sorted(set(new_classes) - set(old_classes))),
            "removed": json_list(sorted(set(old_classes) - set(new_classes))),
        },
    }


@dataclass(frozen=True)
class Side:
    """One side of a comparison, as :func:`compute` takes it: ``fixtures`` maps task ids to fixture
    data and ``commits`` is the resolved tool-surface commit list of that version."""

    name: str
    pinned_sha: str
    binary: JsonObject
    commits: list[JsonObject]
    fixtures: dict[str, JsonObject]


def side(name: str, pinned_sha: str, binary: JsonObject, commits: list[JsonObject], fixtures: list[JsonObject]) -> Side:
    """One side of a comparison, its fixtures keyed by task id."""
    return Side(name, pinned_sha, binary, commits, {str(f["task_id"]): f for f in fixtures})


def compute(previous: Side | None, current: Side, dimensions: dict[str, str]) -> JsonObject:
    """The full delta between two versions."""
    # A list, not a mapping: the order of the dimensions is part of the rendered delta,
    # and JSON objects written with sorted keys would lose it.
    commits_of: dict[str, list[JsonValue]] = {name: [] for name in dimensions}
    meanings = dict(dimensions)
    for commit in current.commits:
        dimension = str(commit["dimension"])
        if dimension not in commits_of:
            commits_of[dimension], meanings[dimension] = [], ""
        commits_of[dimension].append(
            {key: commit.get(key) for key in ("sha", "declared_as", "task", "effect", "subject")}
        )
    surface: list[JsonValue] = [
        {"dimension": name, "meaning": meanings[name], "commits": commits} for name, commits in commits_of.items()
    ]
    delta: JsonObject = {
        "from": previous.name if previous else None,
        "to": current.name,
        "tool_surface": surface,
    }
    if previous is None:
        delta.update({"fixtures": None, "pinned_sha": None, "binary": None, "moved": [], "unmoved": []})
        return delta
    fixtures = fixture_delta(previous.fixtures, current.fixtures)
    binary_changes: list[JsonValue] = [*field_changes(previous.binary, current.binary)]
    moved: list[JsonValue] = []
    unmoved: list[JsonValue] = []
    fixtures_moved = bool(fixtures["added"] or fixtures["removed"] or fixtures["changed"])
    (moved if fixtures_moved else unmoved).append("fixture set")
    for name, commits in commits_of.items():
        (moved if commits else unmoved).append(name)
    (moved if binary_changes else unmoved).append("binary")
    pinned_moved = previous.pinned_sha != current.pinned_sha
    (moved if pinned_moved else unmoved).append("code under test")
    delta.update(
        {
            "fixtures": fixtures,
            "pinned_sha": {"before": previous.pinned_sha, "after": current.pinned_sha},
            "binary": binary_changes,
            "moved": moved,
            "unmoved": unmoved,
        }
    )
    return delta
