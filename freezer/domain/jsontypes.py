"""The type of JSON that is truly open-ended: a user's ``metadata``, a JSON Schema document, a
harness's results file before it is checked, an old record read back for audit.

freezer's own records are dataclasses (manifest, delta, comparability, status events); they become
JSON only at the edge, where they are written. This alias is for the rest, and unlike
``dict[str, Any]`` it makes mypy ask what a value is before it is used.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypeAlias

JsonValue: TypeAlias = "bool | int | float | str | list[JsonValue] | dict[str, JsonValue] | None"
JsonObject: TypeAlias = "dict[str, JsonValue]"


def as_object(value: JsonValue) -> JsonObject | None:
    """``value`` if it is a JSON object, else None: the one narrowing every reader needs first."""
    return value if isinstance(value, dict) else None


def objects_in(value: JsonValue) -> list[JsonObject]:
    """The JSON objects of ``value`` when it is an array (what a checked document holds there), else none."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def json_list(items: Iterable[JsonValue]) -> list[JsonValue]:
    """``items`` as a JSON array: a ``list[str]`` is not a ``list[JsonValue]`` to mypy (lists are
    invariant), though every str is a JSON value."""
    return list(items)


def json_object(items: Mapping[str, JsonValue]) -> JsonObject:
    """``items`` as a JSON object (a ``dict[str, int]`` is not a ``JsonObject`` to mypy, as above)."""
    return dict(items)
