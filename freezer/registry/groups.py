"""The field groups of a fixture schema: which fields an agent sees (input), which grade it, which neither.

Read alike for the next cut (the suite's schema as configured, :meth:`freezer.registry.model.Suite.configured_groups`)
and for a frozen version (:func:`freezer.registry.record.groups_of`); apart from the frozen records, so that
``freezer check`` compares a suite's groups with its latest version without importing them.
"""

from __future__ import annotations

from freezer.domain.jsontypes import JsonObject, as_object
from freezer.kinds.catalog import builtin_schema


def field_groups(schema: JsonObject) -> dict[str, str]:
    """Field → group, from the ``x-freezer-group`` annotations of a fixture schema's properties."""
    properties = as_object(schema.get("properties")) or {}
    return {
        name: str(prop.get("x-freezer-group", "input")) for name, prop in properties.items() if isinstance(prop, dict)
    }


def builtin_groups(kind: str) -> dict[str, str]:
    return field_groups(builtin_schema(kind))
