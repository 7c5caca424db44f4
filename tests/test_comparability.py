"""Issue 15: per-fixture digests, computed classes, arms, freezer compare and freezer results check."""

from __future__ import annotations

import copy
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from freezer.compare.comparability import GROUPS, fixture_class, fixture_digests
from freezer.registry.groups import builtin_groups

from conftest import EXAMPLES, REPO, assert_clean_failure, run_inprocess
from registry_helpers import code_commit, commit_all

SEED_FIXTURE = EXAMPLES / "graph/v2/fixtures/locate-loopaudit-variants.yaml"


@pytest.fixture(scope="module")
def demo_root(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> Path:
    root = tmp_path_factory.mktemp("compare") / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    return root


@pytest.fixture(scope="module")
def surface_moved(tmp_path_factory: pytest.TempPathFactory, demo_root: Path) -> Path:
    """The demo plus graph_v3: v2's fixtures unchanged, one tool-surface commit declared and the pin moved to it."""
    root = tmp_path_factory.mktemp("compare3") / "demo"
    shutil.copytree(demo_root, root, symlinks=True)
    sha = code_commit(root, {"crates/orbit-graph/src/tools/rank.rs": "// ranking v3\n"}, "rerank search results")
    assert run_inprocess("next", "--suite", "graph", cwd=root).code == 0
    version = root / "drafts/graph/version.yaml"
    text = re.sub(r"# TODO\(freezer next\).*\n", "", version.read_text())
    text = re.sub(r"(?m)^pinned_sha: .*$", f"pinned_sha: {sha}", text)
    text = text.replace(
        "tool_surface_commits: []  # the commits since the previous build, when there are any\n",
        f"tool_surface_commits:\n  - sha: {sha}\n    dimension: surface\n"
        "    effect: Search ranks exact symbol names first.\n",
    )
    version.write_text(text)
    cut = run_inprocess("cut", "v3", "--suite", "graph", cwd=root)
    assert cut.code == 0, cut.text
    commit_all(root, "freeze graph_v3")
    return root


def _records(root: Path, *args: str) -> dict[str, dict[str, Any]]:
    result = run_inprocess("compare", *args, "--suite", "graph", "--format", "json", cwd=root)
    assert result.code == 0, result.text
    return {record["arm"]: record for record in json.loads(result.out)["result"]["arms"]}


def test_the_seed_v1_to_v2_case_for_both_arms(demo_root: Path) -> None:
    """Between v1 and v2 the surface, descriptions and indexer moved: no graph-tool score compares,
    not even on locate-loopaudit-variants; for a grep-only arm, only its own change (the oracle) counts."""
    records = _records(demo_root, "v1", "v2")
    graph, grep = records["graph-tools"], records["grep-only"]
    assert graph["comparable"] == [] and grep["comparable"] == []
    assert {"indexer", "descriptions", "surface"} <= set(graph["moved"])
    assert graph["classes"]["locate-loopaudit-variants"] == "changed"
    loopaudit_graph = graph["excluded"]["locate-loopaudit-variants"]
    assert loopaudit_graph.startswith("moved for arm graph-tools: indexer, descriptions, surface")
    loopaudit_grep = grep["excluded"]["locate-loopaudit-variants"]
    assert loopaudit_grep == "changed what the agent sees or what grades it: oracle"
    assert graph["classes"]["trace-session-spawn-emit"] == "removed"
    assert graph["classes"]["callers-run-deterministic-containers"] == "added"


def test_a_tool_surface_move_spares_the_grep_only_arm(surface_moved: Path) -> None:
    records = _records(surface_moved, "v2", "v3")
    graph, grep = records["graph-tools"], records["grep-only"]
    landed = ["callers-run-deterministic-containers", "impact-tool-context-struct-literals",
              "locate-loopaudit-variants", "trace-tool-call-event-construct-sites"]  # fmt: skip
    assert set(graph["classes"].values()) == {"unchanged"}
    assert graph["comparable"] == [] and set(graph["excluded"]) == set(landed)
    assert all(reason.startswith("moved for arm graph-tools: surface, code") for reason in graph["excluded"].values())
    assert grep["comparable"] == landed and grep["excluded"] == {}
    assert re.fullmatch(r"[0-9a-f]{64}", grep["subset_sha256"])
    # Across two steps the moves accumulate: v1 → v3 keeps v2's reasons.
    far = _records(surface_moved, "v1", "v3")
    assert {"indexer", "descriptions", "surface"} <= set(far["graph-tools"]["moved"])
    text = run_inprocess("compare", "v2", "v3", "--suite", "graph", cwd=surface_moved)
    assert "comparable: 4 fixture(s)" in text.out and "✗ locate-loopaudit-variants: moved for arm" in text.out


def test_compare_refuses_an_unknown_arm_and_the_same_version(demo_root: Path) -> None:
    assert_clean_failure(
        run_inprocess("compare", "v1", "v2", "--suite", "graph", "--arm", "nope", cwd=demo_root), code=2
    )
    assert_clean_failure(run_inprocess("compare", "v2", "v2", "--suite", "graph", cwd=demo_root), code=2)


def test_python_api_comparable_and_fixture_digest(surface_moved: Path) -> None:
    import freezer

    subset = freezer.comparable("graph_v2", "graph_v3", arm="grep-only", registry=surface_moved)
    assert len(subset.fixtures) == 4 and subset.classes["locate-loopaudit-variants"] == "unchanged"
    v2 = freezer.load("graph_v2", registry=surface_moved)
    v3 = freezer.load("graph_v3", registry=surface_moved)
    assert v2.fixture_digest("locate-loopaudit-variants") == v3.fixture_digest("locate-loopaudit-variants")
    with pytest.raises(freezer.FreezerError):
        freezer.comparable("graph_v2", "graph_v3", registry=surface_moved)  # two arms: say which


# Digests: stable under formatting, and each field moves exactly its group's digest.
GROUPS_OF_GRAPH = builtin_groups("graph")
BASE = yaml.safe_load(SEED_FIXTURE.read_text())


def test_digests_ignore_key_order_formatting_and_comments() -> None:
    digests = fixture_digests(BASE, GROUPS_OF_GRAPH, {})
    reordered = dict(reversed(list(BASE.items())))
    assert fixture_digests(reordered, GROUPS_OF_GRAPH, {}) == digests
    reformatted = "# a comment\n" + yaml.safe_dump(BASE, default_flow_style=True, width=40, sort_keys=True)
    assert fixture_digests(yaml.safe_load(reformatted), GROUPS_OF_GRAPH, {}) == digests


def test_every_schema_property_says_its_group() -> None:
    for name in ("fixture", "generic"):
        schema = json.loads((REPO / f"schemas/{name}.schema.json").read_text())
        groups = {prop: spec.get("x-freezer-group") for prop, spec in schema["properties"].items()}
        assert all(group in (*GROUPS, "identity") for group in groups.values()), groups


FIELDS = sorted(field for field, group in GROUPS_OF_GRAPH.items() if group != "identity")


@settings(max_examples=200, deadline=None)
@given(
    field=st.sampled_from(FIELDS), value=st.one_of(st.text(max_size=20), st.integers(), st.lists(st.text(max_size=5)))
)
def test_editing_a_field_changes_exactly_its_groups_digest(field: str, value: Any) -> None:
    edited = copy.deepcopy(BASE)
    if edited.get(field) == value:
        return
    edited[field] = value
    before = fixture_digests(BASE, GROUPS_OF_GRAPH, {})
    after = fixture_digests(edited, GROUPS_OF_GRAPH, {})
    group = GROUPS_OF_GRAPH[field]
    assert [g for g in GROUPS if before[g] != after[g]] == [group]
    assert fixture_class(before, after) == ("cosmetic" if group == "cosmetic" else "changed")


def test_an_asset_change_changes_the_input_digest() -> None:
    generic = yaml.safe_load((EXAMPLES / "generic/v1/fixtures/add-timeout-flag.yaml").read_text())
    groups = builtin_groups("generic")
    [asset, *_] = generic["assets"]
    one = fixture_digests(generic, groups, {asset: "a" * 64})
    two = fixture_digests(generic, groups, {asset: "b" * 64})
    assert one["input"] != two["input"] and one["grading"] == two["grading"]


def test_an_unplaced_field_counts_as_input() -> None:
    groups = {"task_id": "identity", "notes": "cosmetic"}
    base = {"task_id": "t", "notes": "n", "surprise": 1}
    before, after = fixture_digests(base, groups, {}), fixture_digests({**base, "surprise": 2}, groups, {})
    assert before["input"] != after["input"] and before["cosmetic"] == after["cosmetic"]


# freezer results check.
def _manifest_hash(root: Path, name: str) -> str:
    import hashlib

    return hashlib.sha256((root / "versions" / name / "manifest.json").read_bytes()).hexdigest()


def _write_results(path: Path, root: Path, version: str, arm: str, scores: dict[str, float]) -> None:
    rows = [
        {"manifest_sha256": _manifest_hash(root, version), "task_id": task, "arm": arm, "score": score, "run": "m1"}
        for task, score in scores.items()
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def test_results_check_refuses_pooling_v1_with_v2(demo_root: Path, tmp_path: Path) -> None:
    v1_landed = [
        "impact-default-timeout-users",
        "locate-agent-runtime-struct",
        "locate-loopaudit-variants",
        "locate-register-tools",
        "trace-run-deterministic-callers",
        "trace-session-spawn-emit",
    ]
    v1 = dict.fromkeys(v1_landed, 1.0)
    v2 = {"locate-loopaudit-variants": 1.0, "callers-run-deterministic-containers": 0.0}
    _write_results(tmp_path / "v1.jsonl", demo_root, "graph_v1", "graph-tools", v1)
    _write_results(tmp_path / "v2.jsonl", demo_root, "graph_v2", "graph-tools", v2)
    result = run_inprocess("results", "check", str(tmp_path / "v1.jsonl"), str(tmp_path / "v2.jsonl"), cwd=demo_root)
    assert_clean_failure(result)
    assert "✗ arm graph-tools: pooling graph_v1, graph_v2 would mix incomparable fixtures" in result.out
    assert "locate-loopaudit-variants: graph_v1 → graph_v2: moved for arm graph-tools" in result.out
    assert "arm graph-tools: common comparable subset of 0 fixture(s)" in result.out


def test_results_check_reaggregates_on_the_common_subset(surface_moved: Path, tmp_path: Path) -> None:
    v2 = {
        "locate-loopaudit-variants": 1.0,
        "callers-run-deterministic-containers": 0.0,
        "impact-tool-context-struct-literals": 1.0,
    }
    v3 = {
        "locate-loopaudit-variants": 1.0,
        "callers-run-deterministic-containers": 1.0,
        "trace-tool-call-event-construct-sites": 1.0,
    }
    _write_results(tmp_path / "v2.jsonl", surface_moved, "graph_v2", "grep-only", v2)
    _write_results(tmp_path / "v3.jsonl", surface_moved, "graph_v3", "grep-only", v3)
    result = run_inprocess(
        "results",
        "check",
        str(tmp_path / "v2.jsonl"),
        str(tmp_path / "v3.jsonl"),
        "--format",
        "json",
        cwd=surface_moved,
    )
    assert result.code == 0, result.text
    report = json.loads(result.out)["result"]
    assert report["common"]["grep-only"] == sorted(set(v2) | set(v3))
    runs = {run["version"]: run for run in report["runs"]}
    assert (runs["graph_v2"]["passed"], runs["graph_v2"]["fixtures"]) == (2, 3)
    assert (runs["graph_v3"]["passed"], runs["graph_v3"]["fixtures"]) == (3, 3)
    # The same rows for the graph-tools arm: the surface moved, so nothing may be pooled.
    _write_results(tmp_path / "g2.jsonl", surface_moved, "graph_v2", "graph-tools", v2)
    _write_results(tmp_path / "g3.jsonl", surface_moved, "graph_v3", "graph-tools", v3)
    refused = run_inprocess(
        "results", "check", str(tmp_path / "g2.jsonl"), str(tmp_path / "g3.jsonl"), cwd=surface_moved
    )
    assert_clean_failure(refused)


def test_results_check_refuses_unknown_versions_and_wrong_digests(demo_root: Path, tmp_path: Path) -> None:
    import freezer

    v2 = freezer.load("graph_v2", registry=demo_root)
    rows = [
        {"manifest_sha256": "0" * 64, "task_id": "x", "arm": "grep-only", "score": 1},
        {"manifest_sha256": v2.manifest_sha256, "task_id": "locate-loopaudit-variants", "arm": "grep-only",
         "score": True, "fixture_digest": "f" * 64},
        {"manifest_sha256": v2.manifest_sha256, "task_id": "locate-loopaudit-variants", "arm": "grep-only",
         "score": True, "fixture_digest": v2.fixture_digest("locate-loopaudit-variants")},
        {"manifest_sha256": v2.manifest_sha256, "task_id": "nope", "arm": "grep-only", "score": 0.5},
        {"manifest_sha256": v2.manifest_sha256, "task_id": "locate-loopaudit-variants", "arm": "x", "score": 2},
    ]  # fmt: skip
    results = tmp_path / "r.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in rows) + "{broken\n")
    result = run_inprocess("results", "check", str(results), cwd=demo_root)
    assert_clean_failure(result)
    out = result.out
    # Issue 23 added the column to every location (file:line:col).
    assert "r.jsonl:1:21: $.manifest_sha256: names no frozen version of this registry" in out
    assert "r.jsonl:2:182: $.fixture_digest: does not match graph_v2's fixture" in out
    assert "r.jsonl:3:" not in out
    assert "r.jsonl:4:100: $.task_id: 'nope' is not a landed fixture of graph_v2" in out
    assert "r.jsonl:5:150: $.score:" in out
    assert "r.jsonl:6:2: $: not JSON" in out


# The record every version carries.
def test_each_version_records_its_comparability_against_every_earlier_one(surface_moved: Path) -> None:
    import freezer

    v3 = surface_moved / "versions/graph_v3"
    manifest = json.loads((v3 / "manifest.json").read_text())
    assert manifest["manifest_format"] == 3
    entry = manifest["comparability"]
    assert entry["arms"] == {"graph-tools": ["indexer", "descriptions", "surface", "binary", "code", "run"],
                             "grep-only": ["code_sites"]}  # fmt: skip
    assert entry["groups"]["oracle"] == "grading" and entry["groups"]["notes"] == "cosmetic"
    loaded = freezer.load("graph_v3", registry=surface_moved)
    for task, digests in entry["fixtures"].items():
        assert digests["score"] == loaded.fixture_digest(task)
    record = json.loads((v3 / "comparability.json").read_text())
    assert [other["version"] for other in record["against"]] == ["graph_v2", "graph_v1"]
    grep_vs_v2 = next(a for a in record["against"][0]["arms"] if a["arm"] == "grep-only")
    assert grep_vs_v2 == _records(surface_moved, "v2", "v3")["grep-only"]  # the same engine as compare
    method = (v3 / "METHOD.md").read_text()
    assert "## Comparability" in method
    assert "| graph_v2 | grep-only | code_sites | nothing | 4 | 0 |" in method


def test_audit_recomputes_the_comparability_record(surface_moved: Path, tmp_path: Path) -> None:
    import hashlib

    root = tmp_path / "copy"
    shutil.copytree(surface_moved, root, symlinks=True)
    v3 = root / "versions/graph_v3"
    for path in v3.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    record_file = v3 / "comparability.json"
    record = json.loads(record_file.read_text())
    grep = next(a for a in record["against"][0]["arms"] if a["arm"] == "grep-only")
    grep["comparable"], grep["excluded"] = [], {t: "hand-edited" for t in grep["comparable"]}
    record_file.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    # Rewrite the hashes too, so only the recomputation can tell.
    digest = hashlib.sha256(record_file.read_bytes()).hexdigest()
    manifest_file = v3 / "manifest.json"
    manifest = json.loads(manifest_file.read_text())
    manifest["files"]["comparability.json"] = digest
    manifest_file.write_text(json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    manifest_digest = hashlib.sha256(manifest_file.read_bytes()).hexdigest()
    sums = v3 / "SHA256SUMS"
    text = re.sub(r"(?m)^[0-9a-f]{64}(  comparability\.json)$", digest + r"\1", sums.read_text())
    sums.write_text(re.sub(r"(?m)^[0-9a-f]{64}(  manifest\.json)$", manifest_digest + r"\1", text))
    result = run_inprocess("audit", "--no-code", "graph_v3", cwd=root)
    assert_clean_failure(result)
    assert "comparability.json: does not match the comparability recomputed from the chain" in result.out


def test_grader_files_count_as_grading_and_must_exist(demo_root: Path, tmp_path: Path) -> None:
    generic = yaml.safe_load((EXAMPLES / "generic/v1/fixtures/add-timeout-flag.yaml").read_text())
    groups = builtin_groups("generic")
    graded = {**generic, "graders": ["tests/grade.sh"]}
    one = fixture_digests(graded, groups, {"tests/grade.sh": "a" * 64})
    two = fixture_digests(graded, groups, {"tests/grade.sh": "b" * 64})
    assert one["grading"] != two["grading"] and one["input"] == two["input"]
    root = tmp_path / "demo"
    shutil.copytree(demo_root, root, symlinks=True)
    fixture = root / "drafts/api/fixtures/add-timeout-flag.yaml"
    fixture.write_text(fixture.read_text() + "graders: [tests/missing.sh]\n")
    result = run_inprocess("validate", "--suite", "api", cwd=root)
    assert_clean_failure(result)
    assert "$.graders[0]: no file 'tests/missing.sh' in the drafts" in result.out


def test_the_environment_digest_follows_the_pin_binary_and_surface(surface_moved: Path) -> None:
    def environment(name: str) -> str:
        manifest = json.loads((surface_moved / "versions" / name / "manifest.json").read_text())
        return str(manifest["comparability"]["environment"])

    assert environment("graph_v2") != environment("graph_v3")
    assert re.fullmatch(r"[0-9a-f]{64}", environment("graph_v1"))


def test_a_hostile_results_file_is_a_problem_not_a_crash(demo_root: Path, tmp_path: Path) -> None:
    results = tmp_path / "deep.jsonl"
    results.write_text("[" * 100_000 + "]" * 100_000 + "\n" + '"a string"\n[1]\n')
    result = run_inprocess("results", "check", str(results), cwd=demo_root)
    assert_clean_failure(result)
    assert "deep.jsonl:1:101: $: nested more than 100 levels deep" in result.out  # issue 23: located
    assert "deep.jsonl:2:" in result.out and "deep.jsonl:3:" in result.out
