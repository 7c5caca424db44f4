"""METHOD.md as a pure function of a version's frozen bytes.

Both ``cut`` (on the staged files) and ``audit`` (on the frozen ones) call
:func:`method_from_files`, so a version's METHOD.md can always be reproduced
byte for byte from what was frozen: the drafts, ``delta.json``, the copied
template and ``manifest.json``.
"""

from __future__ import annotations

import hashlib
import json
import shlex
from dataclasses import asdict

from freezer.domain.errors import IntegrityError
from freezer.domain.fixtureclass import class_counts
from freezer.domain.jsontypes import JsonObject, JsonValue, json_list, objects_in
from freezer.domain.manifest import Manifest, Scan
from freezer.domain.model import sources_of
from freezer.parse.yamllocate import YAML_SUFFIXES
from freezer.registry import registry
from freezer.registry.record import fixture_schema_of, read_version_files
from freezer.registry.registry import frozen_fixture_files
from freezer.render.render import (
    RECORDED_MARKDOWN_RULES,
    TemplateProblem,
    is_shipped,
    render_delta_block,
    render_method,
)
from freezer.render.shown import Unshown, delta_unshown
from freezer.resolve.grep import rg_command
from freezer.runtime.resources import schema as schemas_data
from freezer.validate.template import PLACE_IT, placement


def _object(value: JsonValue) -> JsonObject:
    """``value`` if it is a JSON object, else an empty one (a document the schema checked has one there)."""
    return value if isinstance(value, dict) else {}


def _where(site: JsonObject) -> str:
    if "line" in site:
        return str(site["line"])
    lines = site.get("lines")
    if isinstance(lines, list):
        return ", ".join(str(n) for n in lines)
    where = _object(site["range"])
    return f"{where['start']}–{where['end']}"


def _gate_c_rows(fixtures: list[JsonObject]) -> list[JsonValue]:
    rows: list[JsonValue] = []
    for fixture in fixtures:
        for run in objects_in(fixture.get("gate_c")):
            cost = "—" if run.get("cost_usd") is None else f"${run['cost_usd']:.2f}"
            if run.get("cost_note"):
                cost += f" {run['cost_note']}"
            rows.append(
                {
                    "task_id": fixture["task_id"],
                    "provider": run["provider"],
                    "model": run["model"],
                    "seed": run["seed"],
                    "budget": "n/a" if run.get("budget") is None else run["budget"],
                    "verdict": run["verdict"],
                    "cost": cost,
                    "wall": "—" if run.get("wall_seconds") is None else f"{run['wall_seconds']:g} s",
                }
            )
    return rows


# The shape of a schema: its properties' shapes, and its items' shape (None for no array).
Shape = tuple[dict[str, "Shape"], "Shape | None"]
_SCALAR: Shape = ({}, None)


def _shape(schema: JsonObject, root: JsonObject, depth: int = 0) -> Shape:
    while "$ref" in schema:
        schema = _object(_object(root["$defs"])[str(schema["$ref"]).rsplit("/", 1)[1]])
    if depth > 20:  # a recursive schema: values deeper than this are left as they are
        return _SCALAR
    properties = dict(_object(schema.get("properties")))
    for branch in [
        *objects_in(schema.get("oneOf")),
        *objects_in(schema.get("anyOf")),
        *objects_in(schema.get("allOf")),
    ]:
        properties.update(_object(branch.get("properties")))
    items = schema.get("items")
    return (
        {key: _shape(sub, root, depth + 1) for key, sub in properties.items() if isinstance(sub, dict)},
        _shape(items, root, depth + 1) if isinstance(items, dict) else None,
    )


def _merge(a: Shape, b: Shape) -> Shape:
    merged = {key: _merge(a[0].get(key, _SCALAR), b[0].get(key, _SCALAR)) for key in {**a[0], **b[0]}}
    items = a[1] if b[1] is None else b[1] if a[1] is None else _merge(a[1], b[1])
    return merged, items


def _fill(value: JsonValue, shape: Shape) -> JsonValue:
    """A copy of ``value`` with every property the shape names present (None when absent), so a
    template can name any field a schema accepts without failing on a document that omits it."""
    properties, items = shape
    if isinstance(value, dict):
        out: JsonObject = dict.fromkeys(properties)
        for key, item in value.items():
            out[key] = _fill(item, properties[key]) if key in properties else item
        return out
    if isinstance(value, list) and items is not None:
        return [_fill(item, items) for item in value]
    return value


_SHAPES: dict[tuple[int, tuple[str, ...]], tuple[JsonObject, Shape]] = {}


def _shape_of(root: JsonObject, *pointer: str) -> Shape:
    """The shape of ``root`` (or of its sub-schema at ``pointer``), worked out once per schema:
    an audit or a 10,000-fixture cut fills every fixture with it."""
    cached = _SHAPES.get((id(root), pointer))
    if cached is None or cached[0] is not root:
        schema = root
        for part in pointer:
            schema = _object(schema[part])
        cached = (root, _shape(schema, root))
        _SHAPES[(id(root), pointer)] = cached
    return cached[1]


_TEMPLATE_SHAPES: dict[int, tuple[JsonObject, Shape]] = {}


def _template_shape(schema: JsonObject) -> Shape:
    """The fixture schema's shape merged with the built-in ones, which together name every field
    the shipped template shows, so the template can read any of them whatever the suite's schema."""
    cached = _TEMPLATE_SHAPES.get(id(schema))
    if cached is None or cached[0] is not schema:
        builtin = _merge(_shape_of(schemas_data("fixture")), _shape_of(schemas_data("generic")))
        cached = (schema, _merge(builtin, _shape_of(schema)))
        _TEMPLATE_SHAPES[id(schema)] = cached
    return cached[1]


def _complete_as(value: JsonValue, schema_name: str | JsonObject, *pointer: str) -> JsonValue:
    root = schemas_data(schema_name) if isinstance(schema_name, str) else schema_name
    return _fill(value, _shape_of(root, *pointer))


def _for_template(fixture: JsonObject, schema: JsonObject) -> JsonObject:
    """A fixture with every optional key present and the derived fields the template shows."""
    shown = _object(_fill(fixture, _template_shape(schema)))
    if fixture.get("status") == "dropped" and "dropped" not in fixture:
        # A fixture of kind folders or records is dropped by the suite's rule, with no dropped
        # record of freezer's (every graph and generic one has one: their schemas require it).
        shown["dropped"] = {}
    shown["gate_c_summary"] = ", ".join(
        f"{run['verdict']} ({run['provider']}/{run['model']} @ seed {run['seed']})"
        for run in objects_in(fixture.get("gate_c"))
    )
    grep = fixture.get("naive_grep")
    shown["grep_command"] = (
        rg_command(str(grep["pattern"]), _strings(grep["paths"]), _strings(grep.get("flags")))
        if isinstance(grep, dict) and grep
        else ""
    )
    for key in ("ground_truth", "traps"):
        if fixture.get(key):
            pairs = zip(objects_in(shown[key]), objects_in(fixture[key]), strict=True)
            shown[key] = [{**site, "where": _where(original)} for site, original in pairs]
    return shown


def _strings(value: JsonValue) -> list[str]:
    return [str(item) for item in value] if isinstance(value, list) else []


def _complete_delta(delta: JsonObject) -> JsonObject:
    """Every field change with all of its keys, whichever kind of change it is."""

    def changes(items: JsonValue) -> JsonValue:
        if not isinstance(items, list):
            return items
        return [{"old": None, "new": None, "added": [], "removed": [], **_object(c)} for c in items]

    out = dict(delta)
    for key in ("binary", "version_record", "checks"):
        out[key] = changes(out.get(key))
    for key in ("sources", "environment"):  # delta format 4, absent when empty
        out[key] = changes(out.get(key) or [])
    fixtures = out.get("fixtures")
    if isinstance(fixtures, dict):
        changed: list[JsonValue] = [{**f, "fields": changes(f["fields"])} for f in objects_in(fixtures["changed"])]
        out["fixtures"] = {**fixtures, "changed": changed}
    return out


def _scan(scan: Scan | None) -> JsonObject | None:
    if scan is None:
        return None
    return {
        **scan.to_json(),
        "tips_short": json_list(t[:8] for t in scan.tips),
        "excluded_short": json_list(t[:8] for t in scan.excluded),
    }


def method_from_files(
    files: dict[str, bytes],
    manifest_bytes: bytes,
    template_name: str = registry.TEMPLATE_COPY,
    parsed: tuple[JsonObject, list[JsonObject]] | None = None,
    unshown: list[Unshown] | None = None,
) -> str:
    """Render METHOD.md; ``parsed`` passes the drafts already read from these same bytes.

    A METHOD.md that does not show §Delta as visible text, once and unforged, is refused (a cut,
    and an audit of a version that records it was checked so); given ``unshown``, how a version
    frozen before that rule fails it is added there instead and the text is returned: the version
    stands as frozen, and the audit says so."""

    manifest = Manifest.from_data(json.loads(manifest_bytes))
    version, fixtures = (
        parsed
        if parsed is not None
        else read_version_files(files, frozen_fixture_files(manifest), manifest.fixture_kind)
    )
    fixture_schema = fixture_schema_of(manifest, files)
    fixture_files = set(frozen_fixture_files(manifest))
    delta = json.loads(files[registry.DELTA])
    try:
        template = files[registry.TEMPLATE_COPY].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TemplateProblem(f"{template_name}: the template is not UTF-8 text (byte {exc.start})") from None
    ordered = [
        _for_template(f, fixture_schema)
        for f in sorted(fixtures, key=lambda f: (f["status"] != "landed", str(f["task_id"])))
    ]
    landed = [f for f in ordered if f["status"] == "landed"]
    binary = _complete_as(dict(manifest.binary.raw), "version", "properties", "binary") if manifest.binary else None
    previous = manifest.previous[0] if manifest.previous else None
    context: JsonObject = {
        "name": manifest.name,
        "suite": manifest.suite,
        "version": manifest.number,
        "title": version.get("title"),
        "task_id": version.get("task_id"),
        "pinned_sha": manifest.pinned.full if manifest.pinned else None,
        "pinned_short": manifest.pinned.short if manifest.pinned else None,
        # False: no code_repo, so no pinned SHA, binary, tool surface, ground truth nor Gate B.
        "code_under_test": manifest.code_under_test,
        "sources": [asdict(source) for source in sources_of(version)],
        "images": [
            {"task_id": task, **image.to_json(), "pinned": image.pinned, "unknown": image.unknown_why}
            for task, refs in manifest.images.items()
            for image in refs
        ],
        "cut_at": manifest.cut_at,
        "manifest_sha256": hashlib.sha256(manifest_bytes).hexdigest(),
        "previous_name": previous,
        "delta_heading": previous.rsplit("_", 1)[1] if previous else f"v{manifest.number - 1 or 0}",
        "freezer_version": manifest.freezer_version,
        "purpose": version["purpose"],
        "rationale": version.get("rationale"),
        "provenance_text": version.get("provenance_text"),
        "binary": binary,
        "commits": _complete_as(
            [c.to_json() for c in manifest.commits], "version", "properties", "tool_surface_commits"
        ),
        "fixtures": json_list(ordered),
        "landed": json_list(landed),
        "landed_classes": json_list(list(class_counts(landed))),
        "assets": json_list(sorted(rel for rel in manifest.files if _is_asset(rel, fixture_files))),
        "dropped": json_list(f for f in ordered if f["status"] == "dropped"),
        "gate_c_rows": _gate_c_rows(ordered),
        "delta": _complete_delta(delta),
        # Format 3: the comparability record against every earlier version (None before).
        "comparability": json.loads(files[registry.COMPARABILITY]) if registry.COMPARABILITY in files else None,
        "scan": _scan(manifest.recorded_scan),
        "known_caveats": version.get("known_caveats") or [],
        "sweep_notes": version.get("sweep_notes") or [],
        "audit_command": f"freezer audit {manifest.name}",
        "grep_commands": json_list(f["grep_command"] for f in landed if f["grep_command"]),
        "grep_oracle": manifest.checks.grep.to_json() if manifest.format >= 2 and manifest.checks.grep else None,
        "markdown_rules": markdown_rules(manifest.checks.markdown_rules, manifest.format),
        "directory": shlex.quote(manifest.name),
    }
    if manifest.format < 2 or manifest.checks.delta_block is None:
        # Cut before freezer owned §Delta: its whole template rendered the section, and still does.
        return render_method(template, context, template_name)
    return _with_delta_block(files, template, context, template_name, manifest.checks.delta_block, unshown)


# The §Delta blocks a manifest can record (checks.delta_block); new cuts record the last. 2: the
# rendered METHOD.md was also read as a viewer reads it and shows the block (freezer.render.shown);
# a version recording 1 was cut before that rule, so an audit says how it fails instead of failing it.
DELTA_BLOCKS = (1, 2)
SHOWN_SINCE = 2


def _with_delta_block(
    files: dict[str, bytes],
    template: str,
    context: JsonObject,
    template_name: str,
    recorded: object,
    unshown: list[Unshown] | None,
) -> str:
    """METHOD.md whose §Delta is the block freezer renders from its own frozen delta template:
    the METHOD.md template must place it once, and the result must hold it verbatim."""
    if type(recorded) is not int or recorded not in DELTA_BLOCKS:
        raise IntegrityError(
            f"manifest.json: checks.delta_block is {str(recorded)[:40]!r}, which this freezer does not know",
            hint="a newer freezer cut it: upgrade freezer to render and audit it",
        )
    misplaced = placement(template)
    if misplaced:
        first = misplaced[0]
        raise TemplateProblem(f"{template_name}{f':{first.line}' if first.line else ''}: {first.message}")
    try:
        delta_template = files[registry.DELTA_TEMPLATE_COPY].decode("utf-8")
    except KeyError:
        raise IntegrityError(f"{registry.DELTA_TEMPLATE_COPY}: the §Delta template is missing") from None
    except UnicodeDecodeError as exc:
        raise TemplateProblem(
            f"{registry.DELTA_TEMPLATE_COPY}: the template is not UTF-8 text (byte {exc.start})"
        ) from None
    block = render_delta_block(delta_template, context, registry.DELTA_TEMPLATE_COPY)
    rendered = render_method(template, {**context, "delta_block": block}, template_name)
    count = rendered.count(block)
    if count != 1:
        shown = "does not hold" if count == 0 else f"holds {count} copies of"
        raise TemplateProblem(
            f"{template_name}: the rendered METHOD.md {shown} the §Delta block freezer rendered; {PLACE_IT}"
        )
    # freezer's own template places the block after a blank line, outside any HTML or code, and
    # writes no other heading saying Delta (tests/test_delta_shown.py reads a cut's METHOD.md): the
    # reading (markdown-it-py, about 2 s a MB of METHOD.md) is for a suite's own template.
    hidden = [] if is_shipped(template) else delta_unshown(rendered, block)
    if hidden and (unshown is None or recorded >= SHOWN_SINCE):
        at = hidden[0]
        raise TemplateProblem(f"{registry.METHOD}:{at.line} (rendered from {template_name}): {at.message}")
    if unshown is not None:
        unshown.extend(hidden)
    return rendered


def markdown_rules(recorded: object, manifest_format: int) -> int:
    """The Markdown rules a version's METHOD.md was rendered with (``recorded``: its manifest's
    ``checks.markdown_rules``): recorded since rules 3; before, format 2 rendered prose with 0.2's
    rules and format 1 keeps 0.1's, byte for byte."""
    if recorded is None:
        return 2 if manifest_format >= 2 else 1
    if type(recorded) is not int or recorded not in RECORDED_MARKDOWN_RULES:
        raise IntegrityError(
            f"manifest.json: checks.markdown_rules is {str(recorded)[:40]!r}, which this freezer does not know",
            hint="a newer freezer cut it: upgrade freezer to render and audit it",
        )
    return recorded


def _is_asset(rel: str, fixture_files: set[str]) -> bool:
    generated = (
        registry.DELTA,
        registry.COMPARABILITY,
        registry.TEMPLATE_COPY,
        registry.DELTA_TEMPLATE_COPY,
        registry.GITATTRIBUTES,
        registry.FROZEN_SCHEMA,
    )
    # YAML assets stay unlisted, as every METHOD.md since 0.1 rendered them: an older one must
    # re-render byte for byte.
    return rel not in generated and rel not in fixture_files and not rel.endswith(YAML_SUFFIXES)
