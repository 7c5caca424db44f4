"""Applying a vetted suite schema: jsonschema with freezer's own keywords, and no retrieval.

:mod:`freezer.schema.suiteschema` vets a suite's schema before any use; this module builds the
validator that applies it. ``pattern`` and ``patternProperties`` are compiled once per process
and note what they run on (:func:`freezer.runtime.bounded.note`), so a child stopped on a pattern
that backtracks catastrophically can say which one; ``uniqueItems`` runs in linear time; integers
are strict (``268.0`` is no line number); every ``$ref`` retrieval is refused.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from freezer.domain.escape import quoted
from freezer.domain.jsontypes import JsonObject

if TYPE_CHECKING:
    from jsonschema.protocols import Validator


class RetrievalRefused(Exception):
    """freezer never retrieves a schema; the vetting refuses every reference this would be asked for."""


def _refuse(uri: str) -> Any:
    raise RetrievalRefused(f"freezer never retrieves a schema ({uri!r})")


@lru_cache(maxsize=1)
def refusing_registry() -> Any:
    from referencing import Registry  # ~35 ms at start-up: only when a validator is built

    return Registry(retrieve=_refuse)  # type: ignore[call-arg]


_PATTERNS: dict[str, re.Pattern[str]] = {}


def compiled_pattern(pattern: str, *, strict: bool = False) -> re.Pattern[str]:
    """``pattern`` compiled once per process; ``strict`` turns a warning into an error (vetting)."""
    found = None if strict else _PATTERNS.get(pattern)
    if found is None:
        with warnings.catch_warnings():
            warnings.simplefilter("error" if strict else "ignore")
            found = re.compile(pattern)
        if len(_PATTERNS) < 100_000:
            _PATTERNS[pattern] = found
    return found


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    # jsonschema and referencing cost ~80 ms at start-up: imported only when a schema is applied.
    from jsonschema.exceptions import ValidationError

    from freezer.runtime import bounded  # lazy with jsonschema: the bounded children serve a suite's own schema only

    if validator.is_type(instance, "string"):
        bounded.note(pattern)
        if not compiled_pattern(pattern).search(instance):
            yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, patterns: JsonObject, instance: Any, schema: Any) -> Iterator[Any]:
    # Lazy: the bounded children serve a suite's own schema only, which a shipped-schema validate never applies.
    from freezer.runtime import bounded

    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        bounded.note(pattern)
        compiled = compiled_pattern(pattern)
        for key, value in instance.items():
            if compiled.search(key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """uniqueItems in linear time (jsonschema falls back to comparing every pair of unsortable items)."""
    # jsonschema and referencing cost ~80 ms at start-up: imported only when a schema is applied.
    from jsonschema.exceptions import ValidationError

    if not unique or not validator.is_type(instance, "array"):
        return
    seen: set[Any] = set()
    for item in instance:
        key = _equality_key(item)
        if key in seen:
            yield ValidationError(f"has non-unique elements (first repeated: {quoted(item, 80)})")
            return
        seen.add(key)


def _equality_key(value: Any) -> Any:
    """Equal under JSON Schema (1 == 1.0, true != 1, key order ignored) means an equal key. Numbers
    become bytes, whose hash is randomised: integers chosen to share a hash cannot slow the set down."""
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int):
        return ("n", value.to_bytes(value.bit_length() // 8 + 1, "little", signed=True))
    if isinstance(value, float):
        return ("f", repr(value))
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, list):
        return ("l", tuple(_equality_key(item) for item in value))
    if isinstance(value, dict):
        return ("d", frozenset((key, _equality_key(item)) for key, item in value.items()))
    return ("z", None) if value is None else ("o", repr(value))


_KEYWORDS = {"pattern": _pattern, "patternProperties": _pattern_properties, "uniqueItems": _unique_items}


def _is_strict_integer(_checker: Any, instance: Any) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


def extended(base: Any, strict_integers: bool = False) -> Any:
    from jsonschema import validators  # ~80 ms at start-up: only when a validator is built

    checker = base.TYPE_CHECKER.redefine("integer", _is_strict_integer) if strict_integers else None
    return validators.extend(base, validators=_KEYWORDS, type_checker=checker)  # type: ignore[no-untyped-call]


def validator(schema: JsonObject) -> Validator:
    """A validator for a vetted suite schema: strict integers, no retrieval, bounded keywords."""
    from jsonschema import Draft202012Validator  # ~80 ms at start-up: only when a schema is applied

    cls: Any = extended(Draft202012Validator, strict_integers=True)
    built: Validator = cls(schema, registry=refusing_registry())
    return built
