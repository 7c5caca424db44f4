"""What a YAML scalar means to freezer, and the scalars it refuses because readers disagree on them.

freezer reads YAML with PyYAML, whose implicit types are YAML 1.1's; a reviewer,
an editor or a consumer of a frozen file may read the same text as YAML 1.2
(its core schema). The two agree on most plain scalars and disagree on some
that look harmless: ``0414`` is 268 to 1.1 (octal) and 414 to 1.2, ``1_000``
is 1000 and the text "1_000", ``yes``/``no``/``on``/``off`` are booleans and
text, ``1e3`` is text and 1000.0, ``1:20`` is 80 and text, ``<<`` is a merge
and text. freezer refuses every plain scalar on which the two disagree, and
integers not written in plain decimal (``0x1F``, ``+12``), which read alike
but not as most reviewers read them. Dates stay text (what 1.2 reads), null's
spellings and ``true``/``True``/``TRUE`` mean the same to both. Every tag is
refused (``!!str`` too: quoting says the same without a tag). Quoted and block
scalars are text to both, so quoting is always the way out.
"""

from __future__ import annotations

import re
from typing import Any

from yaml.constructor import SafeConstructor
from yaml.nodes import ScalarNode
from yaml.resolver import Resolver

from freezer.parse.yamlhazards import shown, tag_message

_RESOLVER = Resolver()
_TAG = "tag:yaml.org,2002:"
# First characters for which an implicit resolver exists; a None key would mean "any first character".
RESOLVED_FIRST = frozenset(key for key in Resolver.yaml_implicit_resolvers if key)
NO_WILDCARD_RESOLVER = None not in Resolver.yaml_implicit_resolvers

_PLAIN_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
# YAML 1.2 core schema: the plain scalars it reads as numbers (its nulls and booleans are 1.1's too).
_CORE_DECIMAL = re.compile(r"[-+]?[0-9]+")
_CORE_OCTAL = re.compile(r"0o[0-7]+")
_CORE_HEX = re.compile(r"0x[0-9a-fA-F]+")
_CORE_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_CORE_BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_NUMBER_FIX = "write numbers in plain decimal (no leading zero, underscore, sign, base prefix or colon)"
_CONSTRUCTOR = SafeConstructor()

Resolved = tuple[Any, "str | None"]


def resolve(event: Any) -> Resolved:
    """A scalar event's value, or why it is refused: ``(value, None)`` or ``(raw text, refusal)``."""
    value = event.value
    if event.tag is not None:
        return value, tag_message(event.tag)
    if not event.implicit[0] or (NO_WILDCARD_RESOLVER and value and value[0] not in RESOLVED_FIRST):
        # What Resolver.resolve would answer, without its per-scalar list building: quoted and
        # block scalars are text, and so is a plain one whose first character starts no implicit type.
        return value, None
    # A plain scalar's value depends on its text alone, and fixtures repeat the same short words
    # (keys, statuses, classes, small numbers) thousands of times: resolve each text once.
    known = _PLAIN_VALUES.get(value)
    if known is not None:
        return known
    resolved = _plain(value)
    if len(value) <= 64 and len(_PLAIN_VALUES) < 4096:
        _PLAIN_VALUES[value] = resolved
    return resolved


_PLAIN_VALUES: dict[str, Resolved] = {}


def _plain(value: str) -> Resolved:
    kind = _RESOLVER.resolve(ScalarNode, value, (True, False))  # type: ignore[no-untyped-call]
    kind = kind[len(_TAG) :] if kind.startswith(_TAG) else kind
    if kind in ("str", "timestamp"):
        core = _core_number(value)
        return value, None if core is None else _refusal(value, "text", core, _NUMBER_FIX)
    if kind == "null":
        return None, None
    if kind == "bool":
        if value in _CORE_BOOLS:
            return _CORE_BOOLS[value], None
        meant = "true" if value.lower() in ("yes", "on") else "false"
        return value, _refusal(value, f"the boolean {meant}", "text", f"write {meant} for a boolean")
    if kind == "int":
        if _PLAIN_INT.fullmatch(value):
            try:
                return int(value), None
            except ValueError:  # over the interpreter's digit limit
                return value, f"{shown(value)} is an integer too long to read; quote it to make it text"
        return value, _refusal(value, _old_reading(kind, value), _core_number(value) or "text", _NUMBER_FIX)
    if kind == "float":
        if "_" in value or ":" in value:  # text to YAML 1.2
            return value, _refusal(value, _old_reading(kind, value), "text", _NUMBER_FIX)
        if value.lstrip("+-").lower() in (".inf", ".nan"):
            return value, f"{shown(value)} is not a finite number: NaN and infinities cannot be recorded"
        return float(value), None
    if kind == "merge":
        fix = f"write the merged keys out, or {_quote_it(value)}"
        return value, f"'<<' is a YAML merge key, a form of alias, which freezer refuses; {fix}"
    if kind == "value":
        return value, f"a plain '=' is YAML 1.1's value key but text to YAML 1.2; {_quote_it(value)}"
    return value, tag_message(kind)  # pragma: no cover - PyYAML has no other implicit type


def _old_reading(kind: str, value: str) -> str:
    """How PyYAML (YAML 1.1) reads a number that is not plain decimal, described."""
    node = ScalarNode(_TAG + kind, value)
    try:
        if kind == "int":
            return f"the integer {_CONSTRUCTOR.construct_yaml_int(node)}"
        return f"the number {_CONSTRUCTOR.construct_yaml_float(node)!r}"
    except ValueError:  # over the interpreter's digit limit
        return "an integer" if kind == "int" else "a number"


def _core_number(value: str) -> str | None:
    """How YAML 1.2's core schema reads ``value``, described, when it reads a number; else None."""
    try:
        if _CORE_DECIMAL.fullmatch(value):
            return f"the integer {int(value, 10)}"
        if _CORE_OCTAL.fullmatch(value):
            return f"the integer {int(value[2:], 8)}"
        if _CORE_HEX.fullmatch(value):
            return f"the integer {int(value[2:], 16)}"
    except ValueError:  # over the interpreter's digit limit
        return "an integer"
    if _CORE_FLOAT.fullmatch(value):
        return f"the number {float(value)!r}"
    return None


def _refusal(value: str, old: str, core: str, fix: str) -> str:
    if old == core and not old.startswith("an "):
        reading = f"reads as {old} in YAML 1.1 and 1.2 alike but is not written in plain decimal"
    else:
        reading = f"reads as {old} in YAML 1.1 (freezer's reader) but as {core} in YAML 1.2"
    return f"{shown(value)} {reading}; {fix}, or {_quote_it(value)}"


def _quote_it(value: str) -> str:
    return f"quote it ('{value}') to make it text" if len(value) <= 40 else "quote it to make it text"
