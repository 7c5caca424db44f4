"""The delta of freezer 0.1.0 (manifest format 1), kept unchanged so that audit can
recompute the ``delta.json`` of versions that release cut, byte for byte.

Do not change this module: its output is frozen in those versions. New cuts use
:mod:`freezer.compare.delta`, which reuses the field-level diff from here.
"""

from __future__ import annotations

from typing import Any

_SHOWN = 120


def _flatten(value: Any, prefix: str = "$") -> dict[str, Any]:
    """Leaves by JSON path; lists of scalars stay whole so they diff as sets."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
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


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    text = " ".join(str(text).split())
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def field_changes(old: dict[str, Any], new: dict[str, Any]) -> list[dict[str, Any]]:
    """Field-level differences between two fixtures, by JSON path."""
    before, after = _flatten(old), _flatten(new)
    changes: list[dict[str, Any]] = []
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


def _classes(fixtures: dict[str, dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for fixture in fixtures.values():
        if fixture.get("status") == "landed":
            counts[fixture["class"]] = counts.get(fixture["class"], 0) + 1
    return dict(sorted(counts.items()))


def fixture_delta(old: dict[str, dict[str, Any]], new: dict[str, dict[str, Any]]) -> dict[str, Any]:
    def brief(f: dict[str, Any]) -> dict[str, Any]:
        return {"task_id": f["task_id"], "class": f["class"], "status": f["status"]}

    changed = []
    for task_id in sorted(set(old) & set(new)):
        if old[task_id] != new[task_id]:
            changed.append({"task_id": task_id, "fields": field_changes(old[task_id], new[task_id])})
    old_classes, new_classes = _classes(old), _classes(new)
    return {
        "added": [brief(new[t]) for t in sorted(set(new) - set(old))],
        "removed": [brief(old[t]) for t in sorted(set(old) - set(new))],
        "changed": changed,
        "unchanged": sorted(t for t in set(old) & set(new) if old[t] == new[t]),
        "classes": {
            "before": old_classes,
            "after": new_classes,
            "added": sorted(set(new_classes) - set(old_classes)),
            "removed": sorted(set(old_classes) - set(new_classes)),
        },
    }


def side(
    name: str, pinned_sha: str, binary: dict[str, Any], commits: list[dict[str, Any]], fixtures: list[dict[str, Any]]
) -> dict[str, Any]:
    """One side of a comparison, as :func:`compute` takes it."""
    return {
        "name": name,
        "pinned_sha": pinned_sha,
        "binary": binary,
        "commits": commits,
        "fixtures": {f["task_id"]: f for f in fixtures},
    }


def frozen_side(manifest: dict[str, Any], fixtures: list[dict[str, Any]]) -> dict[str, Any]:
    """The side of a frozen version: everything but the fixtures comes from its manifest."""
    return side(
        manifest["name"],
        manifest["pinned_sha"]["full"],
        manifest["binary"],
        manifest["tool_surface"]["commits"],
        fixtures,
    )


def compute(
    previous: dict[str, Any] | None,
    current: dict[str, Any],
    dimensions: dict[str, str],
) -> dict[str, Any]:
    """The full delta between two versions.

    Each side is ``{"name", "pinned_sha", "binary", "commits", "fixtures"}``,
    where ``fixtures`` maps task ids to fixture data and ``commits`` is the
    resolved tool-surface commit list of that version.
    """
    # A list, not a mapping: the order of the dimensions is part of the rendered delta,
    # and JSON objects written with sorted keys would lose it.
    surface: list[dict[str, Any]] = [
        {"dimension": name, "meaning": meaning, "commits": []} for name, meaning in dimensions.items()
    ]
    slots = {entry["dimension"]: entry for entry in surface}
    for commit in current["commits"]:
        if commit["dimension"] not in slots:
            slots[commit["dimension"]] = {"dimension": commit["dimension"], "meaning": "", "commits": []}
            surface.append(slots[commit["dimension"]])
        slots[commit["dimension"]]["commits"].append(
            {key: commit.get(key) for key in ("sha", "declared_as", "task", "effect", "subject")}
        )
    delta: dict[str, Any] = {
        "from": previous["name"] if previous else None,
        "to": current["name"],
        "tool_surface": surface,
    }
    if previous is None:
        delta.update({"fixtures": None, "pinned_sha": None, "binary": None, "moved": [], "unmoved": []})
        return delta
    fixtures = fixture_delta(previous["fixtures"], current["fixtures"])
    binary_changes = field_changes(previous["binary"], current["binary"])
    moved: list[str] = []
    unmoved: list[str] = []
    fixtures_moved = bool(fixtures["added"] or fixtures["removed"] or fixtures["changed"])
    (moved if fixtures_moved else unmoved).append("fixture set")
    for entry in surface:
        (moved if entry["commits"] else unmoved).append(entry["dimension"])
    (moved if binary_changes else unmoved).append("binary")
    pinned_moved = previous["pinned_sha"] != current["pinned_sha"]
    (moved if pinned_moved else unmoved).append("code under test")
    delta.update(
        {
            "fixtures": fixtures,
            "pinned_sha": {"before": previous["pinned_sha"], "after": current["pinned_sha"]},
            "binary": binary_changes,
            "moved": moved,
            "unmoved": unmoved,
        }
    )
    return delta
