"""Kind records: SWE-bench-like instances, one fixture a record, keyed by instance_id.

The suite still names the sample code repository (code_repo is required until another change makes
it optional); nothing of it is used by these fixtures.
"""

from __future__ import annotations

import json
from pathlib import Path

from freezer.demo.samplecode import TOOL_SURFACE
from freezer.registry.config import load_config
from freezer.validate.validate import validate_suite

from conftest import EXAMPLES, assert_clean_failure, run_inprocess
from registry_helpers import commit_all, snapshot

SWE_SUITE = """\
  swe:
    kind: records
    drafts: drafts/swe
    fixtures: "{glob}"
    task_id: instance_id
{extra}    versions: versions
    code_repo: sample-code
    tool_surface:
{globs}
"""
GLOBS = "\n".join(f"      - {glob!r}" for glob in TOOL_SURFACE)


def _record(instance: str, repo: str = "orbit/orbit", note: str = "") -> dict[str, object]:
    return {
        "instance_id": instance,
        "repo": repo,
        "base_commit": "7df885dbe3b4ac5017f1bbfb08604e60dabb1f25",
        "problem_statement": f"The CLI crashes on {instance}.{note}\nSteps:\n1. run it\n",
        "patch": "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-old\n+new\n",
        "FAIL_TO_PASS": [f"tests::{instance.replace('-', '_')}"],
        "PASS_TO_PASS": ["tests::smoke"],
    }


IDS = ("orbit__orbit-101", "orbit__orbit-102", "orbit__orbit-103", "orbit__orbit-104", "orbit__orbit-105")


def _version_yaml(number: int) -> str:
    text = (EXAMPLES / "generic/v1/version.yaml").read_text(encoding="utf-8")
    text = text.replace("suite: api\n", "suite: swe\n").replace("version: 1\n", f"version: {number}\n")
    return text.replace("reference: examples/generic/README.md", "reference: the tests")


def _jsonl(records: list[dict[str, object]]) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def _swe(reg: Path, glob: str = "instances/*.jsonl", extra: str = "") -> Path:
    config = reg / "freezer.yaml"
    config.write_text(config.read_text() + SWE_SUITE.format(glob=glob, extra=extra, globs=GLOBS))
    drafts = reg / "drafts" / "swe"
    (drafts / "instances").mkdir(parents=True)
    (drafts / "version.yaml").write_text(_version_yaml(1))
    (drafts / "instances" / "part1.jsonl").write_text(_jsonl([_record(i) for i in IDS[:3]]))
    (drafts / "instances" / "part2.jsonl").write_text(_jsonl([_record(i) for i in IDS[3:]]))
    (drafts / "README.md").write_text("Instances written for freezer's tests.\n")
    commit_all(reg, "swe drafts")
    return drafts


def _problems(reg: Path) -> list[str]:
    return [str(p) for p in validate_suite(load_config(reg / "freezer.yaml").suites["swe"]).problems]


def test_records_are_frozen_as_they_are_and_one_edited_record_is_the_only_change(reg: Path) -> None:
    drafts = _swe(reg)
    checked = run_inprocess("validate", "--suite", "swe", "--format", "json", cwd=reg)
    assert checked.code == 0, checked.text
    assert json.loads(checked.out)["result"]["sets"][0]["fixtures"] == list(IDS)
    assert run_inprocess("cut", "swe_v1", cwd=reg).code == 0
    version = reg / "versions/swe_v1"
    frozen = snapshot(version)
    for rel, data in snapshot(drafts).items():
        assert frozen[rel] == data, rel
    manifest = json.loads((version / "manifest.json").read_text())
    assert manifest["fixture_kind"] == {"kind": "records", "fixtures": "instances/*.jsonl", "task_id": "instance_id"}
    assert manifest["contents"] == {
        "fixtures": ["instances/part1.jsonl", "instances/part2.jsonl"],
        "assets": ["README.md"],
    }
    assert run_inprocess("audit", "swe_v1", cwd=reg).code == 0
    commit_all(reg, "freeze swe_v1")

    (drafts / "version.yaml").write_text(_version_yaml(2))
    records = [_record(i) for i in IDS[:3]]
    records[1] = _record(IDS[1], note=" Only on Windows.")
    (drafts / "instances" / "part1.jsonl").write_text(_jsonl(records))
    cut = run_inprocess("cut", "swe_v2", cwd=reg)
    assert cut.code == 0, cut.text
    delta = json.loads((reg / "versions/swe_v2/delta.json").read_text())["fixtures"]
    assert [f["task_id"] for f in delta["changed"]] == [IDS[1]]
    assert [c["path"] for c in delta["changed"][0]["fields"]] == ["$.problem_statement"]
    assert delta["unchanged"] == [IDS[0], IDS[2], IDS[3], IDS[4]]
    assert delta["added"] == [] and delta["removed"] == [] and delta.get("changed_through_files", []) == []
    compared = run_inprocess("compare", "swe_v1", "swe_v2", "--format", "json", cwd=reg)
    assert compared.code == 0, compared.text
    [arm] = json.loads(compared.out)["result"]["arms"]
    assert list(arm["excluded"]) == [IDS[1]] and "problem_statement" in arm["excluded"][IDS[1]]
    assert arm["comparable"] == [IDS[0], IDS[2], IDS[3], IDS[4]]
    for name in ("swe_v1", "swe_v2"):
        audit = run_inprocess("audit", name, cwd=reg)
        assert audit.code == 0, audit.text


def test_a_json_array_and_a_yaml_list_hold_records_too(reg: Path) -> None:
    drafts = _swe(reg, glob="instances/*")
    (drafts / "instances" / "part2.jsonl").unlink()
    (drafts / "instances" / "more.json").write_text(json.dumps([_record(IDS[3])], indent=2))
    (drafts / "instances" / "extra.yaml").write_text(
        f"- instance_id: {IDS[4]}\n  repo: orbit/orbit\n  FAIL_TO_PASS: [tests::x]\n"
    )
    assert _problems(reg) == []
    assert run_inprocess("cut", "swe_v1", cwd=reg).code == 0
    shown = run_inprocess("show", "swe_v1", "--format", "json", cwd=reg)
    assert shown.code == 0 and IDS[4] in shown.out and IDS[3] in shown.out, shown.text
    assert run_inprocess("audit", "swe_v1", cwd=reg).code == 0


def test_duplicate_records_are_refused_located(reg: Path) -> None:
    drafts = _swe(reg)
    with (drafts / "instances" / "part2.jsonl").open("a") as handle:
        handle.write("\n" + json.dumps(_record(IDS[0])) + "\n")
    problems = _problems(reg)
    [problem] = problems
    assert problem.startswith(f"{drafts}/instances/part2.jsonl:4:"), problem
    assert f"already used by {drafts}/instances/part1.jsonl:1" in problem
    assert_clean_failure(run_inprocess("cut", "swe_v1", cwd=reg))


def test_broken_lines_and_records_without_an_id_are_located(reg: Path) -> None:
    drafts = _swe(reg)
    lines = (drafts / "instances" / "part1.jsonl").read_text().splitlines()
    lines[1] = lines[1][:40]  # cut off mid-record
    lines.append(json.dumps({"repo": "orbit/orbit"}))
    # Spaces inside are a benchmark's own id now (issue 26, identity); a trailing one is not.
    lines.append(json.dumps({"instance_id": "Has Spaces "}))
    lines.append("[1, 2]")
    (drafts / "instances" / "part1.jsonl").write_text("\n".join(lines) + "\n")
    problems = sorted(_problems(reg))
    shown = f"{drafts}/instances/part1.jsonl"
    assert len(problems) == 4, problems
    assert problems[0].startswith(f"{shown}:2:"), problems
    assert problems[1].startswith(f"{shown}:4:") and "'instance_id'" in problems[1], problems
    assert problems[2].startswith(f"{shown}:5:") and "'Has Spaces '" in problems[2], problems
    assert problems[3].startswith(f"{shown}:6:") and "not a mapping" in problems[3], problems


def test_dropped_by_status_field_and_config_rules(reg: Path) -> None:
    drafts = _swe(reg, extra="    status_field: state\n")
    records = [_record(i) for i in IDS[:3]]
    records[2]["state"] = "dropped"
    records[0]["state"] = "landed"
    (drafts / "instances" / "part1.jsonl").write_text(_jsonl(records))
    assert _problems(reg) == []
    assert run_inprocess("cut", "swe_v1", cwd=reg).code == 0
    digests = json.loads((reg / "versions/swe_v1/manifest.json").read_text())["comparability"]["fixtures"]
    assert sorted(digests) == [IDS[0], IDS[1], IDS[3], IDS[4]]
    method = (reg / "versions/swe_v1/METHOD.md").read_text()
    assert "4 landed" in method and "1 dropped" in method, method
    assert run_inprocess("audit", "swe_v1", cwd=reg).code == 0

    config = reg / "freezer.yaml"
    config.write_text(config.read_text().replace("    task_id: instance_id\n", ""))
    result = run_inprocess("validate", "--suite", "swe", cwd=reg)
    assert_clean_failure(result)
    assert "kind records needs task_id" in result.text
