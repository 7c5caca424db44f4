"""Issue 23, classes 1, 10 and 11: a suite's own schema is hostile input.

Each case is data: ``tests/cases/schemas/*.json`` (a schema, a fixture, what
the one clear message must say and how long it may take) and
``tests/cases/shapes/*.yaml`` (a fixture whose first line says where and how it
must be refused under a schema that only asks for ``task_id``). Every case
runs the real CLI in this process over a real registry in ``tmp_path``.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from hostile import suite_schemas

from freezer.schema import schemas, suiteschema

from conftest import EXAMPLES, REPO, Run, run_inprocess
from registry_helpers import snapshot

# Slow (a hostile corpus): CI runs it; `pytest -m slow` runs it here.
pytestmark = pytest.mark.slow

SCHEMA_CASES = sorted((REPO / "tests/cases/schemas").glob("*.json"))
SHAPE_CASES = sorted((REPO / "tests/cases/shapes").glob("*.yaml"))


def _run(root: Path, *args: str) -> tuple[Run, list[str]]:
    """The CLI in this process; its exit, output, and every warning it raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = run_inprocess(*args, cwd=root)
    return result, [f"{w.category.__name__}: {w.message}" for w in caught]


def _clean(result: Run, code: int) -> None:
    assert result.code == code, result.text
    assert "Traceback" not in result.text and "internal error" not in result.text, result.text


@pytest.mark.parametrize("case", SCHEMA_CASES, ids=[p.stem for p in SCHEMA_CASES])
def test_schema_case(tmp_path: Path, case: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec: dict[str, Any] = json.loads(case.read_text())
    root = suite_schemas.registry(tmp_path, spec)
    for name, value in spec.get("env", {}).items():
        monkeypatch.setenv(name, value)
    before = snapshot(root)
    result, caught = _run(root, "validate")
    _clean(result, spec["exit"])
    for expected in spec["expect"]:
        assert expected in result.text, result.text
    assert caught == [], caught
    assert snapshot(root) == before
    if spec["exit"]:
        assert suite_schemas.SCHEMA in result.text or suite_schemas.FIXTURE in result.text, result.text


def test_refusals_name_the_schema_file_line_column_and_path(tmp_path: Path) -> None:
    spec = json.loads((REPO / "tests/cases/schemas/ref-under-items.json").read_text())
    result, _ = _run(suite_schemas.registry(tmp_path, spec), "validate")
    line = next(line for line in result.text.splitlines() if "$ref" in line)
    assert line.startswith("  freezer.yaml:7:5: $.suites.api.schema: suite.schema.json:9:13: ")
    assert "$.properties.x.items.properties.y['$ref']: 'http://127.0.0.1:9/x.schema.json' is not a definition" in line


def test_a_refused_schema_stops_every_command_at_the_config(tmp_path: Path) -> None:
    spec = json.loads((REPO / "tests/cases/schemas/ref-file-secret.json").read_text())
    root = suite_schemas.registry(tmp_path, spec)
    for args in (["validate"], ["cut", "api_v1", "--dry-run"], ["status"], ["list"], ["audit"], ["check"]):
        result, _ = _run(root, *args)
        _clean(result, 1)
        assert "suite.schema.json:" in result.text and "'file:///etc/passwd' is not a definition" in result.text
        assert "root:" not in result.text  # nothing of /etc/passwd comes back


@pytest.mark.parametrize("case", SHAPE_CASES, ids=[p.stem for p in SHAPE_CASES])
def test_a_field_freezer_reads_keeps_freezers_shape(tmp_path: Path, case: Path) -> None:
    text = case.read_text()
    expected = text.splitlines()[0].removeprefix("# expect: ")
    root = suite_schemas.registry(tmp_path, {"schema": {"type": "object", "required": ["task_id"]}, "fixture": text})
    result, caught = _run(root, "validate")
    _clean(result, 1)
    assert caught == []
    assert f"{suite_schemas.FIXTURE}{expected}" in result.out, result.out
    if case.stem != "not-a-mapping":  # that one the suite's own schema refuses first
        assert "whatever the suite's schema allows" in result.out


@pytest.mark.parametrize("name", ["metadata-list", "graph-tool-path-number", "ground-truth-number", "oracle-list"])
def test_a_cut_under_a_loose_schema_stops_at_validate_with_the_place(tmp_path: Path, name: str) -> None:
    text = (REPO / "tests/cases/shapes" / f"{name}.yaml").read_text()
    root = suite_schemas.registry(tmp_path, {"schema": {"required": ["task_id"]}, "fixture": text})
    result, _ = _run(root, "cut", "api_v1", "--dry-run")
    _clean(result, 1)
    assert "cut refused at step 'validate'" in result.text and "template failed to render" not in result.text
    assert f"{suite_schemas.FIXTURE}{text.splitlines()[0].removeprefix('# expect: ')}" in result.text


def test_the_shape_is_the_shipped_definitions() -> None:
    """One source: each field's shape is its shipped definition, bar the built-in kinds' naming rules."""
    # Any: the test reads into the schema documents by the shape it asserts.
    shape: Any = schemas.freezer_shape()
    generic: Any = schemas.builtin("generic")
    graph: Any = schemas.builtin("fixture")
    assert generic["$defs"] == graph["$defs"]
    assert shape["$defs"] == _without_editorial_limits(generic["$defs"])
    for name, definition in shape["properties"].items():
        shipped = generic["properties"].get(name) or graph["properties"][name]
        if name in ("task_id", "class", "difficulty"):
            assert definition["type"] == "string" and definition["minLength"] == 1
            assert not {"pattern", "enum", "maxLength"} & set(definition)
        else:
            assert definition == _without_editorial_limits(shipped), name
    assert "pattern" in shape["properties"]["naive_grep"]["properties"]  # a field named pattern stays
    assert set(shape["properties"]) == set(generic["properties"]) | set(graph["properties"])
    assert shape["required"] == ["task_id", "status"]
    # Every valid built-in fixture has freezer's shape: the shape only relaxes them.
    for path in sorted(EXAMPLES.glob("*/*/fixtures/*.yaml")):
        import yaml

        assert schemas.shape_errors(yaml.safe_load(path.read_text())) == [], path


def _without_editorial_limits(value: Any) -> Any:
    """The shipped definitions as freezer's shape keeps them: no text length or spelling limit.
    (Every maxLength and pattern of these definitions is a keyword: no field is named either.)"""
    if isinstance(value, dict):
        kept = {k: v for k, v in value.items() if k not in ("maxLength", "pattern") or isinstance(v, dict)}
        return {k: _without_editorial_limits(v) for k, v in kept.items()}
    return [_without_editorial_limits(v) for v in value] if isinstance(value, list) else value


def test_a_custom_schema_never_reaches_fastjsonschema(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """fastjsonschema turns a schema into Python source and runs it: never for a registry's schema."""
    import fastjsonschema

    calls: list[str] = []

    def spy(name: str) -> Any:
        real = getattr(fastjsonschema, name)

        def called(*args: Any, **kwargs: Any) -> Any:
            calls.append(name)
            return real(*args, **kwargs)

        return called

    for name in ("compile", "compile_to_code"):
        monkeypatch.setattr(fastjsonschema, name, spy(name))
    spec = json.loads((REPO / "tests/cases/schemas/allowed-local-refs.json").read_text())
    root = suite_schemas.registry(tmp_path, spec)
    for args in (["validate"], ["validate", "drafts/api"], ["status"], ["cut", "api_v1", "--dry-run"]):
        _run(root, *args)
    assert schemas.fast_validator(f"file:{root / 'suite.schema.json'}") is None
    assert calls == []


def test_a_frozen_schema_is_vetted_like_a_suites() -> None:
    bad = json.dumps({"properties": {"x": {"$ref": "http://127.0.0.1:9/x.json"}}}).encode()
    with pytest.raises(suiteschema.SchemaRefused, match=r"fixture\.schema\.json:1:\d+: .*is not a definition"):
        suiteschema.vetted(bad, "versions/api_v1/fixture.schema.json")
    cycle = {"properties": {"x": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"$ref": "#/$defs/a"}}}
    with pytest.raises(suiteschema.SchemaRefused, match="leads back to a schema that contains it"):
        suiteschema.vetted(json.dumps(cycle).encode(), "fixture.schema.json")
    good = json.dumps({"$defs": {"a": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/a"}}}).encode()
    vetted = suiteschema.vetted(good, "x")
    assert suiteschema.object_at(vetted, "properties")["x"] == {"$ref": "#/$defs/a"}


def test_an_oversized_schema_is_refused_before_it_is_read(tmp_path: Path) -> None:
    spec = {"schema_text": '{"description": "' + "x" * (1 << 20) + '"}'}
    result, _ = _run(suite_schemas.registry(tmp_path, spec), "validate")
    _clean(result, 1)
    assert "suite.schema.json: file is" in result.text and "over the 1048576-byte limit" in result.text


@pytest.mark.parametrize(
    "budget",
    [
        pytest.param((1, 400), id="sample"),  # every mutation kind on one fixture per example version, ~2 s
        pytest.param((None, 500), id="full", marks=pytest.mark.slow),  # every fixture: 2,190 mutations
    ],
)
def test_the_compiled_shape_agrees_with_jsonschema(budget: tuple[int | None, int]) -> None:
    """freezer's shape is compiled like the shipped schemas: both verdicts agree on every example,
    every shape case and every schema mutation of the hostile corpus (``budget``: mutated fixtures
    per example version, fewest documents both must refuse)."""
    per_version, rejected_at_least = budget
    import yaml
    from hostile import corpus

    documents = [yaml.safe_load(p.read_text()) for p in sorted(EXAMPLES.glob("*/*/fixtures/*.yaml"))]
    documents += [yaml.safe_load(p.read_text()) for p in SHAPE_CASES]
    documents += [data for _, data in corpus.schema_documents(per_version)]
    fast, reference = schemas.fast_validator(schemas.SHAPE), schemas.validator(schemas.SHAPE)
    verdicts = []
    for document in documents:
        try:
            fast(document)
            fast_ok = True
        except Exception:  # noqa: BLE001 - any refusal counts
            fast_ok = False
        verdicts.append((fast_ok, reference.is_valid(document)))
    assert all(a == b for a, b in verdicts)
    assert sum(a for a, _ in verdicts) >= 20 and sum(not a for a, _ in verdicts) >= rejected_at_least
