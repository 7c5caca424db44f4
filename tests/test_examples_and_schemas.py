"""The schemas describe every property; broken copies of real example fixtures fail precisely."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, V2, assert_clean_failure, run_inprocess

SCHEMAS = sorted((REPO / "schemas").glob("*.schema.json"))


def _properties(node: Any, where: str = "$") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        for name, prop in (node.get("properties") or {}).items():
            yield f"{where}.{name}", prop
        for key, value in node.items():
            yield from _properties(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _properties(item, f"{where}[{index}]")


@pytest.mark.parametrize("schema_file", SCHEMAS, ids=[p.name for p in SCHEMAS])
def test_every_property_has_a_description(schema_file: Path) -> None:
    schema = json.loads(schema_file.read_text())
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].endswith(schema_file.name)
    # Properties inside if/then conditions are not fields a user writes; they need no help text.
    missing = [
        where
        for where, prop in _properties(schema)
        if isinstance(prop, dict) and "description" not in prop and "/if" not in where
    ]
    assert missing == [], missing


BASE = "callers-run-deterministic-containers.yaml"
MUTATIONS: dict[str, tuple[str, str, str]] = {
    # name: (old text, new text, expected start of the single problem line after the file name)
    "required-field-removed": ("class: trace\n", "", ":1:1: $: missing required field 'class'"),
    "wrong-type": ("line: 268", "line: two-six-eight", ":26:5: $.ground_truth[0].line: expected integer"),
    "duplicate-key": (
        "difficulty: medium\n",
        "difficulty: medium\ndifficulty: hard\n",
        ":4:1: $.difficulty: duplicate key",
    ),
    "broken-syntax": ("tools: [orbit.graph.callers]", "tools: [orbit.graph.callers", ":20:13: $: YAML syntax"),
    "overlap": (
        "    - load_state\n",
        "    - load_state\n    - load_task\n",
        ":62:7: $.oracle.must_not_include[3]: 'load_task'",
    ),
    "dotdot-path": (
        "crates/orbit-engine/src/activity_job/dispatcher.rs\n    line: 268",
        "../dispatcher.rs\n    line: 268",
        ":25:5: $.ground_truth[0].file: '../dispatcher.rs' climbs out",
    ),
}


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_broken_copy_of_example_fixture(name: str, v2_copy: Path) -> None:
    old, new, expected = MUTATIONS[name]
    path = v2_copy / "fixtures" / BASE
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    result = run_inprocess("validate", str(path))
    assert_clean_failure(result)
    lines = [line for line in result.out.splitlines() if ": $" in line]
    assert len(lines) == 1, result.out
    assert lines[0].split(BASE, 1)[1].startswith(expected), lines[0]


def test_example_v2_is_the_seed_transcribed() -> None:
    import yaml

    version = yaml.safe_load((V2 / "version.yaml").read_text(encoding="utf-8"))
    fixtures = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted((V2 / "fixtures").glob("*.yaml"))]
    landed = {f["task_id"]: f for f in fixtures if f["status"] == "landed"}
    dropped = {f["task_id"]: f for f in fixtures if f["status"] == "dropped"}
    assert sorted(landed) == [
        "callers-run-deterministic-containers",
        "impact-tool-context-struct-literals",
        "locate-loopaudit-variants",
        "trace-tool-call-event-construct-sites",
    ]
    assert {k: v["dropped"]["stage"] for k, v in dropped.items()} == {
        "deps-orbit-common-reverse-consumers": "gate_b",
        "locate-dispatch-trait-methods": "drafting",
        "locate-fsprofile-resolution-chain": "not_authored",
    }
    assert [c["sha"] for c in version["tool_surface_commits"]] == ["56117f6c", "5f861caf", "7e86d41c"]
    assert version["pinned_sha"] == "7df885db"
    runs = [
        (f["task_id"], r["model"], r["budget"], r["cost_usd"], r["wall_seconds"])
        for f in fixtures
        for r in f.get("gate_c", [])
    ]
    assert sorted(runs) == [
        ("callers-run-deterministic-containers", "claude-sonnet-4-6", 1.0, 0.08, 27),
        ("impact-tool-context-struct-literals", "claude-opus-4-7", 4.0, 1.78, 239),
        ("locate-loopaudit-variants", "claude-sonnet-4-6", 1.0, 0.08, 25),
        ("trace-tool-call-event-construct-sites", "gpt-5.3-codex", None, 0, 143),
    ]
    seed = REPO.parent / "shared" / "seed" / "000_ce6f45612ba0f861.txt"
    if seed.exists():
        text = seed.read_text(encoding="utf-8")
        assert version["provenance_text"] in text
        for note in version["sweep_notes"]:
            assert note["body"] in text
