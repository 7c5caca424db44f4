"""A suite's own JSON Schema: untrusted, so vetted before any use and applied without reaching out.

A registry arrives in pull requests, and its ``schema:`` file with it. jsonschema
left to itself fetches any ``$ref`` it cannot resolve (``http:``, ``file:``), follows
``$dynamicRef`` loops until the stack runs out and runs ``pattern`` with Python's
backtracking engine. So a suite schema is read as a restricted Draft 2020-12:

* JSON, an object, at most 1 MiB and nested at most 64 levels, with at most
  5,000 subschemas (checking a schema against the metaschema costs about 0.25 ms
  per subschema, and every command reads the config);
* ``$schema``, if given, names Draft 2020-12, and only at the top; ``$id`` only
  at the top (an embedded ``$id`` changes what the references below it mean);
* ``$ref`` is ``#/$defs/NAME``: a definition of this same file, which must be
  a schema object. freezer never retrieves a schema: a URL, a ``file:`` URI, a
  sibling file, an anchor, ``$dynamicRef`` and ``$recursiveRef`` are refused
  where they are written, and the validator's ``referencing`` registry refuses
  every retrieval in case one slipped through;
* references do not form a cycle, reach at most 64 subschemas deep and expand
  to at most 100,000 subschemas (freezer reads a schema by expanding it: the
  fields METHOD.md shows, the comparability groups);
* the branches of ``allOf``/``anyOf``/``oneOf`` are schema objects;
* every ``pattern`` and ``patternProperties`` key compiles with Python's ``re``
  without a warning (``[[`` reads as a nested set in a future Python);
* ``x-freezer-group`` on a top-level property is ``input``, ``grading`` or
  ``cosmetic`` (``identity`` only on ``task_id`` and ``status``);
* the Draft 2020-12 metaschema accepts it.

The validator that applies it is :mod:`freezer.schema.suiteapply`'s; applying it to fixtures is
:mod:`freezer.validate.validate`'s, in a child bounded in time and memory
(:func:`freezer.runtime.bounded.map_bounded`): a pattern that backtracks
catastrophically is stopped there. ``uniqueItems`` is checked in linear time.
A custom schema is never compiled to Python (fastjsonschema generates code
from the schema it is given, which for an untrusted schema is code injection).
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from freezer.domain.errors import FreezerError
from freezer.domain.escape import quoted
from freezer.domain.findings import JsonPath, format_json_path
from freezer.domain.jsontypes import JsonObject, JsonValue
from freezer.domain.problems import display_path
from freezer.runtime.limits import MAX_SCHEMA_BYTES
from freezer.runtime.reading import read_whole
from freezer.schema.suiteapply import compiled_pattern, extended, refusing_registry

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

MAX_DEPTH = 64
MAX_SUBSCHEMAS = 5_000
MAX_EXPANDED_DEPTH = 64
MAX_EXPANSION = 100_000
DIALECT = "https://json-schema.org/draft/2020-12/schema"
GROUPS = ("input", "grading", "cosmetic")
IDENTITY_FIELDS = ("task_id", "status")

_DEF_REF = re.compile(r"#/\$defs/([A-Za-z0-9_.-]+)")
# Keywords whose value is a schema, a list of schemas, or a map of name to schema (Draft 2020-12).
_ONE = (
    "additionalProperties",
    "items",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
)
_LIST = ("allOf", "anyOf", "oneOf", "prefixItems")
_MAP = ("properties", "patternProperties", "$defs", "dependentSchemas")
_BRANCHES = ("allOf", "anyOf", "oneOf")
_NEVER = {
    "$dynamicRef": "$dynamicRef is not followed by freezer; use $ref to a definition of this file (#/$defs/NAME)",
    "$recursiveRef": "$recursiveRef is not followed by freezer; use $ref to a definition of this file (#/$defs/NAME)",
}


class SchemaRefused(FreezerError):
    """A suite schema freezer will not use; the message names the file and the place in it."""


class _Refusal(Exception):
    def __init__(self, path: JsonPath, why: str) -> None:
        super().__init__(why)
        self.path = path
        self.why = why


def load(path: Path) -> JsonObject:
    """The suite schema at ``path``, vetted; :class:`SchemaRefused` says why it cannot be used."""
    display = display_path(path)
    try:
        data = read_whole(path, MAX_SCHEMA_BYTES)
    except FreezerError as exc:
        raise SchemaRefused(f"the fixture schema cannot be read: {exc.message}") from None
    return vetted(data, display)


def vetted(data: bytes, display: str) -> JsonObject:
    """The schema held in ``data`` (a file shown as ``display``), vetted once per content."""
    why = _verdict(data, display)
    if why is not None:
        raise SchemaRefused(why)
    schema: JsonObject = _parse(data)
    return schema


def problem(path: Path) -> str | None:
    """Why the suite schema at ``path`` cannot be used, or None."""
    try:
        load(path)
    except SchemaRefused as exc:
        return exc.message
    return None


def _parse(data: bytes) -> Any:
    """JSON as the frozen copy is read back (bytes, any UTF), refusing what reads other than it looks:
    a key given twice (the last would win unseen) and NaN or an infinity (no JSON number)."""
    return json.loads(data, object_pairs_hook=_unique_keys, parse_constant=_no_constant)


def _unique_keys(pairs: list[tuple[str, Any]]) -> JsonObject:
    found: JsonObject = {}
    for key, value in pairs:
        if key in found:
            raise ValueError(f"the key {quoted(key, 80)} is given twice in one object")
        found[key] = value
    return found


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


@lru_cache(maxsize=16)
def _verdict(data: bytes, display: str) -> str | None:
    if len(data) > MAX_SCHEMA_BYTES:
        return f"{display}: the fixture schema is {len(data):,} bytes, over the limit of {MAX_SCHEMA_BYTES:,}"
    try:
        schema = _parse(data)
        text = data.decode(json.detect_encoding(data), "replace")
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        return f"{display}: the fixture schema is not readable JSON: {_short(str(exc))}"
    try:
        _check(schema)
    except _Refusal as refusal:
        return f"{_where(display, text, refusal.path)}: {format_json_path(refusal.path)}: {refusal.why}"
    return None


def _where(display: str, text: str, path: JsonPath) -> str:
    """``file:line:col`` of ``path`` in the JSON text, or the file alone if it cannot be placed."""
    try:
        # start-up time: PyYAML and the located builder (~10 ms), only for a schema that is refused
        from freezer.parse.yamllocate import positions

        marks = positions(text)  # JSON is YAML: the loader's positions place every key
    except Exception:  # noqa: BLE001 - a position is a courtesy; the path alone still locates it
        return display
    for cut in range(len(path), -1, -1):
        mark = marks.get(tuple(path[:cut]))
        if mark is not None:
            return f"{display}:{mark[0]}:{mark[1]}"
    return display


def _short(text: str) -> str:
    return text if len(text) <= 200 else text[:197] + "..."


def _check(schema: Any) -> None:
    if not isinstance(schema, dict):
        raise _Refusal((), "the fixture schema must be a JSON object")
    _check_depth(schema)
    nodes = list(subschemas(schema))
    if len(nodes) > MAX_SUBSCHEMAS:
        raise _Refusal((), f"the schema holds {len(nodes):,} subschemas, over the limit of {MAX_SUBSCHEMAS:,}")
    for node, path in nodes:  # before the metaschema's regex format check compiles (and caches) them
        if isinstance(node, dict):
            _check_patterns(node, path)
    _check_meta(schema)
    edges = {id(node): [id(child) for child, _ in _children(node)] for node, _ in nodes if isinstance(node, dict)}
    refs: dict[int, int] = {}
    for node, path in nodes:
        if isinstance(node, dict):
            target = _check_node(schema, node, path)
            if target is not None:
                refs[id(node)] = id(target)
                edges[id(node)].append(id(target))
    paths = {id(node): path for node, path in nodes if isinstance(node, dict)}
    _check_references(edges, refs, paths, id(schema))
    _check_groups(schema)


def _check_depth(value: Any) -> None:
    stack: list[tuple[Any, JsonPath]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if len(path) > MAX_DEPTH:
            raise _Refusal(path[:MAX_DEPTH], f"the schema nests deeper than {MAX_DEPTH} levels")
        if isinstance(item, dict):
            stack.extend((v, (*path, k)) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((v, (*path, i)) for i, v in enumerate(item))


def object_at(node: JsonObject, key: str) -> JsonObject:
    """``node[key]`` when it is an object, else an empty one: a keyword absent, or of another type
    (which the metaschema refuses first)."""
    found = node.get(key)
    return found if isinstance(found, dict) else {}


def list_at(node: JsonObject, key: str) -> list[JsonValue]:
    """``node[key]`` when it is a list, else an empty one."""
    found = node.get(key)
    return found if isinstance(found, list) else []


def _children(node: JsonObject) -> Iterator[tuple[JsonValue, JsonPath]]:
    """The subschemas directly under ``node``, with their path relative to it."""
    for key in _ONE:
        if key in node:
            yield node[key], (key,)
    for key in _LIST:
        for index, child in enumerate(list_at(node, key)):
            yield child, (key, index)
    for key in _MAP:
        for name, child in object_at(node, key).items():
            yield child, (key, name)


def subschemas(root: JsonObject) -> Iterator[tuple[JsonValue, JsonPath]]:
    """Every schema in ``root`` (itself included), by where it is: not values that merely look like one."""
    stack: list[tuple[JsonValue, JsonPath]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        yield node, path
        if isinstance(node, dict):
            stack.extend((child, (*path, *rel)) for child, rel in _children(node))


def _check_meta(schema: JsonObject) -> None:
    """The Draft 2020-12 metaschema, with linear uniqueItems and no retrieval."""
    from jsonschema.exceptions import best_match  # jsonschema costs ~80 ms at start-up: only when vetting

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the regex format check compiles patterns; _check_node refuses warnings
        meta = _meta_validator()
        error = best_match(meta.iter_errors(schema))
    if error is not None:
        path: JsonPath = tuple(error.absolute_path)
        raise _Refusal(path, f"not a valid Draft 2020-12 schema: {_short(error.message)}")


@lru_cache(maxsize=1)
def _meta_validator() -> Validator:
    from jsonschema import Draft202012Validator  # ~80 ms at start-up: only when vetting

    meta_class: Any = extended(Draft202012Validator)
    built: Validator = meta_class(
        Draft202012Validator.META_SCHEMA,
        format_checker=Draft202012Validator.FORMAT_CHECKER,
        registry=refusing_registry(),
    )
    return built


def _check_node(root: JsonObject, node: JsonObject, path: JsonPath) -> JsonObject | None:
    """Refuse what freezer will not follow at ``node``; return the definition its $ref names."""
    for key, why in _NEVER.items():
        if key in node:
            raise _Refusal((*path, key), why)
    if path:
        for key in ("$id", "$schema"):
            if key in node:
                raise _Refusal((*path, key), f"{key} may only be given at the top of the schema")
    elif "$schema" in node and str(node["$schema"]).rstrip("#") != DIALECT:
        raise _Refusal(
            ("$schema",), f"{quoted(node['$schema'], 80)} is not Draft 2020-12; write {DIALECT!r} or leave it out"
        )
    for key in _BRANCHES:
        for index, branch in enumerate(list_at(node, key)):
            if not isinstance(branch, dict):
                raise _Refusal((*path, key, index), f"write a schema object here (freezer reads {key} branches)")
    if "$ref" not in node:
        return None
    ref = node["$ref"]
    match = _DEF_REF.fullmatch(ref) if isinstance(ref, str) else None
    if match is None:
        raise _Refusal(
            (*path, "$ref"),
            f"{quoted(ref, 80)} is not a definition of this file; freezer resolves $ref only to #/$defs/NAME "
            "(NAME of letters, digits, '.', '_', '-') and never fetches a schema (no URL, file or sibling schema)",
        )
    definitions = object_at(root, "$defs")
    target = definitions.get(match.group(1))
    if not isinstance(target, dict):
        what = "is not a schema object" if match.group(1) in definitions else "does not exist"
        raise _Refusal((*path, "$ref"), f"{quoted(ref, 80)} {what} in this file's $defs")
    return target


def _check_patterns(node: JsonObject, path: JsonPath) -> None:
    pattern = node.get("pattern")
    found: list[tuple[str, JsonPath]] = [(pattern, (*path, "pattern"))] if isinstance(pattern, str) else []
    found += [(key, (*path, "patternProperties", key)) for key in object_at(node, "patternProperties")]
    for pattern, where in found:
        try:
            compiled_pattern(pattern, strict=True)
        except (re.error, Warning) as exc:
            why = f"{quoted(pattern, 80)} is not a usable regular expression: {_short(str(exc))}"
            raise _Refusal(where, why) from None


def _check_references(edges: dict[int, list[int]], refs: dict[int, int], paths: dict[int, JsonPath], root: int) -> None:
    """No cycle; bounded depth and expansion, so whatever follows the references ends."""
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[int, int]] = [(root, 0)]
    while stack:
        node, next_child = stack.pop()
        if next_child == 0:
            if node in size:
                continue
            on_path.add(node)
        children = edges.get(node, [])
        if next_child < len(children):
            stack.append((node, next_child + 1))
            child = children[next_child]
            if child in on_path:
                where = (*paths[node], "$ref") if refs.get(node) == child else paths[node]
                raise _Refusal(
                    where,
                    "this $ref leads back to a schema that contains it; freezer needs references "
                    "without a cycle (whatever follows them would never end)",
                )
            if child not in size:
                stack.append((child, 0))
            continue
        on_path.discard(node)
        size[node] = min(MAX_EXPANSION + 1, 1 + sum(size[c] for c in children))
        depth[node] = 1 + max((depth[c] for c in children), default=0)
        if depth[node] > MAX_EXPANDED_DEPTH:
            raise _Refusal(paths[node], f"its references nest more than {MAX_EXPANDED_DEPTH} subschemas deep")
        if size[node] > MAX_EXPANSION:
            raise _Refusal(paths[node], f"its references expand to more than {MAX_EXPANSION:,} subschemas")


def _check_groups(schema: JsonObject) -> None:
    for name, prop in object_at(schema, "properties").items():
        if not isinstance(prop, dict) or "x-freezer-group" not in prop:
            continue
        group = prop["x-freezer-group"]
        allowed = (*GROUPS, "identity") if name in IDENTITY_FIELDS else GROUPS
        if group not in allowed:
            raise _Refusal(
                ("properties", name, "x-freezer-group"),
                f"{quoted(group, 80)} is not a field group; write one of {', '.join(allowed)}",
            )
