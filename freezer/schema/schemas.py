"""Schema validation: one compiled validator per schema, readable messages.

Building a validator is far more expensive than running it, so each schema
is compiled once per process. Messages are rewritten so that an oversized
value never floods the terminal and an unexpected key is reported at its own
line rather than at its parent.

A suite's own schema (``file:<path>``) is vetted by :mod:`freezer.schema.suiteschema`
and applied by jsonschema alone. Whatever it says, every field freezer itself
reads is checked against freezer's own shape for it (``shape``: the shipped
fixture schemas' definitions of those fields, with no field required but
``task_id`` and ``status`` and every other field free).
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from freezer.domain.escape import quoted
from freezer.domain.findings import JsonPath
from freezer.domain.jsontypes import JsonObject
from freezer.runtime import resources
from freezer.schema import suiteapply, suiteschema

if TYPE_CHECKING:
    from jsonschema import ValidationError
    from jsonschema.protocols import Validator

FIXTURE = "fixture"
GENERIC = "generic"
VERSION = "version"
REGISTRY = "registry"
MANIFEST = "manifest"
SHAPE = "shape"  # derived: what freezer itself reads of a fixture (see freezer_shape)


def _is_strict_integer(_checker: Any, instance: Any) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


# Fields whose shipped definitions carry the built-in kinds' naming conventions (a pattern, a list
# of values); a suite with its own schema keeps its own names, so freezer asks only for text.
_CONVENTIONS = ("task_id", "class", "difficulty")
# The built-in kinds' editorial limits (how long a text, how a path is spelled): a suite's own schema
# sets its own; freezer needs the structure, which the file size limit already bounds.
_EDITORIAL = ("maxLength", "pattern")


def freezer_shape() -> JsonObject:
    """What freezer itself reads of a fixture, whatever the suite's schema: each field's definition
    from the shipped schemas (generic's, and the graph kind's for its own fields) without their
    editorial limits, the rules between fields freezer relies on (a dropped fixture says why),
    no field required but ``task_id`` and ``status``, and unknown fields free."""
    import copy  # start-up time: only a suite with its own schema asks for the shape

    generic, graph = resources.schema(GENERIC), resources.schema(FIXTURE)
    rules = [rule for rule in suiteschema.list_at(generic, "allOf") if isinstance(rule, dict)]
    shape: JsonObject = copy.deepcopy(
        {
            "$schema": generic["$schema"],
            "$id": "https://freezer.dev/schemas/shape.schema.json",
            "title": "what freezer reads of a fixture under a suite's own schema",
            "type": "object",
            "required": ["task_id", "status"],
            "properties": {
                **suiteschema.object_at(graph, "properties"),
                **suiteschema.object_at(generic, "properties"),
            },
            "allOf": [rule for rule in rules if set(suiteschema.object_at(rule, "then")) == {"required"}],
            "$defs": generic["$defs"],
        }
    )
    for node, _ in suiteschema.subschemas(shape):
        if isinstance(node, dict):
            for keyword in _EDITORIAL:
                node.pop(keyword, None)
    properties = suiteschema.object_at(shape, "properties")
    for key in _CONVENTIONS:
        plain = {k: v for k, v in suiteschema.object_at(properties, key).items() if k != "enum"}
        properties[key] = {**plain, "type": "string", "minLength": 1}
    return shape


def builtin(name: str) -> JsonObject:
    """A schema freezer ships (or derives from what it ships), by name."""
    return freezer_shape() if name == SHAPE else resources.schema(name)


@cache
def _schema(name: str) -> JsonObject:
    """A built-in schema by name, or a suite's own (vetted) by ``file:<path>``."""
    if name.startswith("file:"):
        return suiteschema.load(Path(name[5:]))
    return builtin(name)


@cache
def validator(name: str) -> Validator:
    from jsonschema import Draft202012Validator, validators  # ~80 ms at start-up: only when a validator is built

    schema = _schema(name)
    if name.startswith("file:"):
        return suiteapply.validator(schema)  # vetted by _schema; never compiled to Python
    Draft202012Validator.check_schema(schema)
    # 268.0 is no line number: "integer" means an integer as written, not any integral number.
    strict: Any = validators.extend(  # type: ignore[no-untyped-call]
        Draft202012Validator, type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_strict_integer)
    )
    built: Validator = strict(schema)
    return built


@cache
def fast_validator(name: str) -> Any:
    """The schema compiled to Python (freezer/schema/_compiled/), or None if it cannot be imported."""
    if name.startswith("file:"):
        return None  # a suite's own schema: jsonschema alone (generating Python from it is code injection)
    module = f"freezer.schema._compiled.{name}"
    try:
        __import__(module)  # not importlib.import_module, as kinds.catalog.kind_class says why
    except ImportError:  # pragma: no cover - a broken install; jsonschema alone still works
        return None
    return sys.modules[module].validate


def schema_errors(name: str, instance: Any) -> list[tuple[JsonPath, str]]:
    """Every violation of schema ``name`` as (json path, message), sorted by path.

    The compiled validator decides. A document it refuses goes to jsonschema,
    which names every problem; should jsonschema find none, the compiled
    validator's own reason is reported, so a refusal is never lost.
    tests/test_fast_validation.py proves the two agree.
    """
    fast = fast_validator(name)
    fast_error: Any = None
    if fast is not None:
        try:
            fast(instance)
            return []
        except Exception as exc:  # noqa: BLE001 - any refusal sends the document to the reference validator
            fast_error = exc
    from referencing.exceptions import Unresolvable  # ~35 ms at start-up: only when a document is refused

    found: list[tuple[JsonPath, str]] = []
    root = _schema(name)
    try:
        for error in validator(name).iter_errors(instance):
            for item in _describe(error, root):
                if item not in found:  # one error per missing field would repeat the whole list each time
                    found.append(item)
    except (RecursionError, Unresolvable) as exc:
        # Only a suite's own schema can get here: the vetting keeps references local and acyclic.
        return [((), f"the suite's schema cannot be applied to this document: {quoted(str(exc))}")]
    if not found and fast_error is not None:
        path = tuple(getattr(fast_error, "path", None) or ())[1:]
        found.append((path, str(getattr(fast_error, "message", fast_error)).removeprefix("data.")))
    found.sort(key=lambda item: tuple(str(p) for p in item[0]))
    return found


def shape_errors(instance: Any) -> list[tuple[JsonPath, str]]:
    """:func:`schema_errors` against freezer's own shape, each message saying whose rule it is."""
    found = []
    for path, message in schema_errors(SHAPE, instance):
        whose = f"freezer reads {path[0]} itself" if path else "a rule of freezer's own"
        found.append((path, f"{message} ({whose}, whatever the suite's schema allows)"))
    return found


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    names: dict[type, str] = {str: "string", list: "list", dict: "mapping"}
    return names.get(type(value), type(value).__name__)


def _condition(error: ValidationError, root: JsonObject) -> str:
    """' (required when status is landed)' for a field an if/then rule requires, else ''."""
    steps = list(error.schema_path)
    if "then" not in steps:
        return ""
    node: Any = root
    for step in steps[: steps.index("then")]:
        node = node[step]
    condition = (node.get("if") or {}).get("properties") or {}
    said = [f"{key} is {value['const']}" for key, value in condition.items() if "const" in value]
    return f" (required when {' and '.join(said)})" if said else " (required by a conditional rule)"


_SHA_PATTERN = "^[0-9a-fA-F]{7,40}$"


def _not_a_sha(value: str) -> str:
    """A commit is pinned by its id; names like HEAD or main move, so they are refused with the way out."""
    if value.strip().upper() == "TODO":
        return "not set yet: write the commit SHA (in the code repository: git rev-parse HEAD)"
    looks_like_ref = value == "HEAD" or value.startswith(("HEAD~", "HEAD^", "origin/", "refs/")) or value.isalpha()
    if looks_like_ref:
        return (
            f"{quoted(value)} is a ref name, and a ref moves: pin the commit it names now "
            f"(in the code repository: git rev-parse {value})"
        )
    return f"{quoted(value)} is not a commit SHA: write 7 to 40 hex digits (git rev-parse gives them)"


def _a(wanted: str) -> str:
    """'an object (a mapping of fields)' for JSON Schema's 'object', else 'a string', 'an array'."""
    if wanted == "object":
        return "an object (a mapping of fields)"
    return f"{'an' if wanted[:1] in 'aeiou' else 'a'} {wanted}"


def _unknown_field(key: str, absent: set[str]) -> str:
    """The message for a field the schema does not know, naming the absent field it most likely meant."""
    import difflib  # start-up time: asked only for a field the schema does not know

    meant = difflib.get_close_matches(key, sorted(absent), n=1, cutoff=0.75)
    if meant:
        return f"unknown field {key!r}: did you mean {meant[0]!r}?"
    return f"unknown field {key!r} (check its spelling)"


def _describe(error: ValidationError, root: JsonObject) -> list[tuple[JsonPath, str]]:
    path: JsonPath = tuple(error.absolute_path)
    kind: Any = error.validator
    expected: Any = error.validator_value
    instance: Any = error.instance
    schema: Any = error.schema
    if kind == "additionalProperties" and isinstance(instance, dict):
        known = set(schema.get("properties", {}))
        extras = sorted(k for k in instance if k not in known)
        return [((*path, key), _unknown_field(key, known - set(instance))) for key in extras]
    if kind == "required":
        missing = [k for k in expected if isinstance(instance, dict) and k not in instance]
        why = _condition(error, root)
        return [(path, f"missing required field {k!r}{why}") for k in missing]
    if kind == "type":
        wanted = " or ".join(expected) if isinstance(expected, list) else expected
        if instance is None and not path:
            return [(path, f"the file holds no fields (it is empty, comments only or null): expected {_a(wanted)}")]
        hint = ""
        if wanted == "string" and isinstance(instance, (int, float)) and not isinstance(instance, bool):
            hint = f"; YAML read it as a number: put it in quotes ('{instance}')"
        return [(path, f"expected {wanted}, got {_kind(instance)} {quoted(instance)}{hint}")]
    if kind == "enum":
        return [(path, f"{quoted(instance)} is not one of {', '.join(map(repr, expected))}")]
    if kind == "const":
        return [(path, f"{quoted(instance)} must be {expected!r}")]
    if kind == "maxLength":
        return [(path, f"text is {len(instance)} characters, over the limit of {expected}")]
    if kind == "minLength":
        return [(path, "must not be empty")]
    if kind == "maxItems":
        return [(path, f"has {len(instance)} items, over the limit of {expected}")]
    if kind == "minItems":
        return [(path, f"needs at least {expected} item(s)")]
    if kind == "pattern" and expected == _SHA_PATTERN and isinstance(instance, str):
        return [(path, _not_a_sha(instance))]
    if kind == "pattern":
        return [(path, f"{quoted(instance)} does not match the pattern {expected}")]
    if kind == "propertyNames":
        return [(path, f"name {quoted(instance)} is not allowed ({error.message[:200]})")]
    if kind == "anyOf" and all(isinstance(s, dict) and set(s) == {"required"} for s in expected):
        names = ", ".join(repr(s["required"][0]) for s in expected)
        return [(path, f"needs at least one of {names}")]
    if kind == "oneOf" and all(set(s) == {"required"} for s in expected):
        keys = [s["required"][0] for s in expected]
        present = [k for k in keys if isinstance(instance, dict) and k in instance]
        names = ", ".join(repr(k) for k in keys)
        if present:
            return [(path, f"give only one of {names}; found {', '.join(map(repr, present))}")]
        return [(path, f"needs one of {names}")]
    if kind == "not" and isinstance(expected, dict) and "required" in expected:
        # JSON Schema's "required" holds for any non-object, so "not required" fails for a list or
        # a string: that is the type error already reported, not a field it holds.
        if not isinstance(instance, dict):
            return []
        return [((*path, k), f"field {k!r} is not allowed here") for k in expected["required"]]
    message = error.message
    if len(message) > 300:
        message = f"fails the {kind!r} rule ({quoted(expected)})"
    return [(path, message)]
