"""One differing JSON path of a delta (:class:`FieldChange`), as delta.json records it and readers
show it; :mod:`freezer.compare.deltamodel` builds the delta's sections from these."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, cast

from freezer.domain.jsontypes import JsonObject, JsonValue, json_list
from freezer.domain.model import Raw

# How one JSON path differs: a leaf appeared, went, took another value, or (a list of scalars)
# gained and lost items.
ChangeKind = Literal["added", "removed", "changed", "items"]
CHANGE_KINDS: tuple[ChangeKind, ...] = ("added", "removed", "changed", "items")


@dataclass(frozen=True)
class FieldChange:
    """One differing JSON path. Which values a kind carries: added → ``new``; removed → ``old``;
    changed → ``old`` and ``new``; items → ``added`` and ``removed``. Values are clipped text in
    delta.json and METHOD.md, and whole JSON values in ``freezer diff --format json``.

    ``lines`` (delta format 4, absent from the JSON when empty) is a multi-line text's change as
    a unified-style line diff: ``@@`` hunk headers, then lines marked `` ``, ``-`` or ``+``."""

    path: str
    change: ChangeKind
    old: JsonValue = None
    new: JsonValue = None
    added: tuple[JsonValue, ...] = ()
    removed: tuple[JsonValue, ...] = ()
    lines: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, data: Raw) -> FieldChange:
        kind = data["change"]
        if kind not in CHANGE_KINDS:
            raise ValueError(f"unknown change kind {kind!r} at {data.get('path')!r}")
        if kind == "items":
            return cls(data["path"], kind, added=tuple(data["added"]), removed=tuple(data["removed"]))
        lines = tuple(data.get("lines") or ())
        return cls(data["path"], cast(ChangeKind, kind), old=data.get("old"), new=data.get("new"), lines=lines)

    def to_json(self) -> JsonObject:
        out: JsonObject = {"path": self.path, "change": self.change}
        if self.change == "items":
            out.update(added=list(self.added), removed=list(self.removed))
        if self.change in ("removed", "changed"):
            out["old"] = self.old
        if self.change in ("added", "changed"):
            out["new"] = self.new
        if self.lines:
            out["lines"] = json_list(self.lines)
        return out


def changes_of(items: Sequence[Raw]) -> tuple[FieldChange, ...]:
    return tuple(FieldChange.from_json(c) for c in items)


def listed(changes: tuple[FieldChange, ...]) -> list[JsonValue]:
    return [c.to_json() for c in changes]
