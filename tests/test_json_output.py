"""Issue 14, point 9: one documented JSON shape for every command (schemas/output.schema.json)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conftest import REPO, Run, run_inprocess
from results_board import lmeval_results

SCHEMA = json.loads((REPO / "schemas" / "output.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def _document(result: Run, command: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(result.out)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in VALIDATOR.iter_errors(document)]
    assert errors == [], errors
    assert document["command"] == command
    assert document["exit_code"] == result.code
    assert document["ok"] is (result.code == 0)
    return document


@pytest.fixture(scope="module")
def demo_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("json") / "demo"
    result = run_inprocess("demo", str(root), "--format", "json", timeout=300)
    document = _document(result, "demo")
    names = [cut["name"] for cut in document["result"]["cuts"]]
    assert names == ["graph_v1", "graph_v2", "api_v1", "tb_v1", "swe_v1", "bbh_v1", "bbh_v2"]
    assert all(re.fullmatch(r"[0-9a-f]{64}", cut["manifest_sha256"]) for cut in document["result"]["cuts"])
    return root


@pytest.fixture
def demo_copy(demo_root: Path, tmp_path: Path) -> Path:
    target = tmp_path / "demo"
    shutil.copytree(demo_root, target, symlinks=True)
    return target


READ_ONLY = [
    ["list"],
    ["show", "graph_v2"],
    ["diff", "graph_v1", "graph_v2"],
    ["log"],
    ["validate"],
    ["status"],
    ["audit", "--no-code"],
    ["audit", "graph_v1"],
    ["check"],
]


@pytest.mark.parametrize("args", READ_ONLY, ids=[" ".join(a) for a in READ_ONLY])
def test_every_read_only_command_prints_the_documented_shape(demo_root: Path, args: list[str]) -> None:
    result = run_inprocess(*args, "--format", "json", cwd=demo_root)
    document = _document(result, args[0])
    assert document["error"] is None
    assert isinstance(document["result"], dict)


def test_commands_that_write_print_the_documented_shape(demo_copy: Path, tmp_path: Path) -> None:
    started = run_inprocess("next", "--suite", "api", "--format", "json", cwd=demo_copy)
    assert _document(started, "next")["result"]["version"] == 2
    dry = run_inprocess("cut", "v2", "--suite", "graph", "--dry-run", "--format", "json", cwd=demo_copy)
    steps = _document(dry, "cut")["result"]["steps"]
    assert [s["step"] for s in steps][:2] == ["drafts", "pinned_sha"]
    assert steps[-1]["step"] == "existing"
    made = run_inprocess("init", str(tmp_path / "fresh"), "--format", "json", cwd=tmp_path)
    assert "freezer.yaml" in _document(made, "init")["result"]["written"]
    site = run_inprocess("site", str(tmp_path / "site"), "--format", "json", cwd=demo_copy)
    assert _document(site, "site")["result"]["pages"] >= 20


def test_numbers_stay_numbers_and_hashes_stay_whole(demo_root: Path) -> None:
    listed = _document(run_inprocess("list", "--format", "json", cwd=demo_root), "list")
    # The demo's tb, swe and bbh suites have no code under test (issue 26): no pinned SHA, said as null.
    for row in listed["result"]["versions"]:
        if row["version"] in ("tb_v1", "swe_v1", "bbh_v1", "bbh_v2"):
            assert row["pinned_sha"] is None, row
        else:
            assert re.fullmatch(r"[0-9a-f]{40}", row["pinned_sha"]), row
    delta = _document(run_inprocess("diff", "v1", "v2", "--suite", "graph", "--format", "json", cwd=demo_root), "diff")
    record = {change["path"]: change for change in delta["result"]["version_record"]}
    assert record["$.acceptance.min_landed"]["old"] == 6 and record["$.acceptance.min_landed"]["new"] == 4
    changed = [field for fixture in delta["result"]["fixtures"]["changed"] for field in fixture["fields"]]
    numbers = [f["new"] for f in changed if f["path"].endswith(".seed")]
    assert numbers and all(isinstance(n, int) for n in numbers)
    # delta.json (what METHOD.md renders) keeps its frozen, clipped text form.
    frozen = json.loads((demo_root / "versions/graph_v2/delta.json").read_text())
    frozen_record = {change["path"]: change for change in frozen["version_record"]}
    assert frozen_record["$.acceptance.min_landed"]["new"] == "4"


def test_audit_failures_name_whole_hashes(demo_copy: Path) -> None:
    method = demo_copy / "versions/graph_v1/fixtures"
    target = next(method.iterdir())
    target.chmod(0o644)
    target.write_text(target.read_text() + "\n# edited\n")
    result = run_inprocess("audit", "--no-code", "graph_v1", "--format", "json", cwd=demo_copy)
    document = _document(result, "audit")
    assert result.code == 1
    messages = [failure["message"] for failure in document["result"]["versions"][0]["failures"]]
    assert any(re.search(r"sha256 [0-9a-f]{64} != manifest [0-9a-f]{64}", m) for m in messages), messages
    assert not any("…" in m for m in messages)


@pytest.mark.parametrize(
    "args, code",
    [
        (["cut", "--format", "json"], 2),  # a missing argument: click's usage error
        (["show", "graph_v9", "--format=json"], 2),  # not frozen
        (["audit", "--against", "nosuch", "graph_v1", "-f", "json"], 2),  # a ref that names nothing (issue 27)
    ],
)
def test_errors_are_json_too(demo_root: Path, args: list[str], code: int) -> None:
    result = run_inprocess(*args, cwd=demo_root)
    document = _document(result, args[0])
    assert result.code == code
    assert document["result"] is None
    assert document["error"]["message"]
    assert "freezer: error:" in result.err  # people reading a terminal still see it


def test_schema_command_ships_the_output_schema() -> None:
    result = run_inprocess("schema", "output")
    assert result.code == 0, result.text
    assert json.loads(result.out) == SCHEMA


def test_results_import_add_and_table_print_the_documented_shape(demo_copy: Path, tmp_path: Path) -> None:
    source = lmeval_results(tmp_path, model_name="EleutherAI/pythia-160m", lm_eval_version="0.4.8")
    harness = ["--from", "lm-eval", str(source), "--version", "bbh_v2", "--format", "json"]
    imported = _document(run_inprocess("results", "import", *harness, cwd=demo_copy), "results")
    assert imported["result"]["rows"] == 3
    added = _document(run_inprocess("results", "add", *harness, cwd=demo_copy), "results")
    assert added["result"]["stored"].startswith("results/bbh_v2/")
    table = _document(run_inprocess("results", "table", "--suite", "bbh", "--format", "json", cwd=demo_copy), "results")
    [suite] = table["result"]["suites"]
    [v2] = [version for version in suite["versions"] if version["version"] == "bbh_v2"]
    assert added["result"]["stored"] in [run["stored"] for run in v2["runs"]]
