"""The diff of two adjacent versions as structured HTML: what moved first, then the fixtures by
class (each with its field diffs), then the set-level field diffs, each multi-line text as a line diff.

Built from the same delta engine as ``freezer diff`` (no second copy of the delta logic); the class
of each fixture is the one the newer version froze (:func:`freezer.site.versionpage.frozen_classes`).
"""

from __future__ import annotations

from freezer.domain.jsontypes import JsonObject, JsonValue, as_object, objects_in
from freezer.site.fixturepage import history_field
from freezer.site.names import fixture_file, version_file
from freezer.site.versionpage import CLASS_ORDER

# The set-level records a delta holds field changes for, in the order a reader checks them.
_FIELD_SECTIONS = (
    ("run", "Run configuration"),
    ("version_record", "Version record"),
    ("binary", "Binary"),
    ("checks", "Checks"),
    ("sources", "Data sources"),
    ("environment", "Environment"),
)


def diff_context(delta: JsonObject, classes: dict[str, str]) -> JsonObject:
    """Everything diff.html.j2 shows of one delta (``Delta.to_json()``) and the newer version's classes."""
    fixtures = as_object(delta.get("fixtures")) or {}
    changed: dict[str, list[JsonValue]] = {
        str(c["task_id"]): [history_field(f) for f in objects_in(c.get("fields"))]
        for c in objects_in(fixtures.get("changed"))
    }
    briefs = {str(b["task_id"]): b for kind in ("added", "removed") for b in objects_in(fixtures.get(kind))}
    named = dict(classes)
    for task in changed:
        named.setdefault(task, "changed")
    for kind in ("added", "removed"):
        for brief in objects_in(fixtures.get(kind)):
            named.setdefault(str(brief["task_id"]), kind)
    groups: list[JsonValue] = []
    for kind in CLASS_ORDER:
        tasks = sorted(task for task, k in named.items() if k == kind)
        if tasks:
            rows: list[JsonValue] = [
                {
                    "task_id": task,
                    "path": f"../{fixture_file(task)}",
                    "status": (briefs.get(task) or {}).get("status"),
                    "fields": changed.get(task, []),
                }
                for task in tasks
            ]
            groups.append({"kind": kind, "rows": rows})
    sections: list[JsonValue] = []
    for key, title in _FIELD_SECTIONS:
        value = delta.get(key)
        if isinstance(value, list) and value and all(isinstance(c, dict) and "path" in c for c in value):
            sections.append({"title": title, "fields": [history_field(c) for c in objects_in(value)]})
    assets = as_object(delta.get("assets")) or {}
    return {
        "delta": delta,
        "before_page": f"../{version_file(str(delta['from']))}",
        "after_page": f"../{version_file(str(delta['to']))}",
        "groups": groups,
        "sections": sections,
        "tool_surface": [d for d in objects_in(delta.get("tool_surface")) if d.get("commits")],
        "assets": {kind: _list(assets.get(kind)) for kind in ("added", "changed", "removed")},
        "pinned": delta.get("pinned_sha") or {},
        "through_files": _list(fixtures.get("changed_through_files")),
    }


def _list(value: JsonValue) -> list[JsonValue]:
    return list(value) if isinstance(value, list) else []
