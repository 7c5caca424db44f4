"""Kind folders: Harbor-like task folders frozen byte for byte, each folder one fixture with every file in it.

The suite still names the sample code repository (code_repo is required until another change makes
it optional); nothing of it is used by these fixtures.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

from freezer.demo.samplecode import TOOL_SURFACE
from freezer.registry.config import load_config
from freezer.validate.validate import validate_suite

from conftest import EXAMPLES, assert_clean_failure, run_inprocess
from registry_helpers import commit_all, snapshot

TB_SUITE = """\
  tb:
    kind: folders
    drafts: drafts/tb
    fixtures: "tasks/*/"
    task_file: task.toml
{extra}    versions: versions
    code_repo: sample-code
    tool_surface:
{globs}
"""

GLOBS = "\n".join(f"      - {glob!r}" for glob in TOOL_SURFACE)
TASKS = ("count-lines", "fix-json", "grep-logs", "hello-world", "make-dir", "sort-csv")


def _version_yaml(number: int) -> str:
    text = (EXAMPLES / "generic/v1/version.yaml").read_text(encoding="utf-8")
    text = text.replace("suite: api\n", "suite: tb\n").replace("version: 1\n", f"version: {number}\n")
    return text.replace("reference: examples/generic/README.md", "reference: the tests")


def _task(root: Path, name: str, difficulty: str = "easy") -> Path:
    folder = root / "tasks" / name
    (folder / "environment").mkdir(parents=True)
    (folder / "tests").mkdir()
    (folder / "task.toml").write_text(
        'version = "1.0"\n\n'
        "[metadata]\n"
        'author_name = "freezer tests"\n'
        f'difficulty = "{difficulty}"\n'
        'category = "shell"\n'
        f'tags = ["{name}", "files"]\n\n'
        "[verifier]\ntimeout_sec = 120.0\n\n"
        "[agent]\ntimeout_sec = 600.0\n\n"
        "[environment]\nbuild_timeout_sec = 600.0\ncpus = 1\nmemory_mb = 2048\n",
        encoding="utf-8",
    )
    (folder / "instruction.md").write_text(f"# {name}\n\nDo the {name} task in /app.\n", encoding="utf-8")
    (folder / "environment" / "Dockerfile").write_text(
        "FROM ubuntu:24.04@sha256:" + "ab" * 32 + "\nWORKDIR /app\n", encoding="utf-8"
    )
    test = folder / "tests" / "test.sh"
    test.write_text(f"#!/bin/bash\nset -euo pipefail\ntest -e /app/{name}.done\n", encoding="utf-8")
    test.chmod(0o755)
    return folder


def _tb(reg: Path, extra: str = "", tasks: tuple[str, ...] = TASKS) -> Path:
    config = reg / "freezer.yaml"
    config.write_text(config.read_text(encoding="utf-8") + TB_SUITE.format(extra=extra, globs=GLOBS), encoding="utf-8")
    drafts = reg / "drafts" / "tb"
    drafts.mkdir(parents=True)
    (drafts / "version.yaml").write_text(_version_yaml(1), encoding="utf-8")
    for name in tasks:
        _task(drafts, name)
    commit_all(reg, "tb drafts")
    return drafts


def _problems(reg: Path) -> list[str]:
    report = validate_suite(load_config(reg / "freezer.yaml").suites["tb"])
    return [str(problem) for problem in report.problems]


def test_a_folders_suite_is_frozen_byte_for_byte_and_audits(reg: Path) -> None:
    drafts = _tb(reg)
    checked = run_inprocess("validate", "--suite", "tb", "--format", "json", cwd=reg)
    assert checked.code == 0, checked.text
    [found] = json.loads(checked.out)["result"]["sets"]
    assert found["fixtures"] == sorted(TASKS)
    cut = run_inprocess("cut", "tb_v1", cwd=reg)
    assert cut.code == 0, cut.text
    version = reg / "versions/tb_v1"
    frozen, source = snapshot(version), snapshot(drafts)
    for rel, data in source.items():
        assert frozen[rel] == data, rel  # no rewriting: every draft file is in the version as it was
    manifest = json.loads((version / "manifest.json").read_text())
    assert manifest["fixture_kind"] == {"kind": "folders", "fixtures": "tasks/*/", "task_file": "task.toml"}
    assert manifest["checks"]["fixture_schema"]["kind"] == "folders"
    assert "tasks/hello-world/tests/test.sh" in manifest["contents"]["fixtures"]
    assert manifest["contents"]["assets"] == []
    assert sorted(manifest["comparability"]["fixtures"]) == sorted(TASKS)
    sums = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=version, capture_output=True, text=True)
    assert sums.returncode == 0 and "tasks/fix-json/environment/Dockerfile: OK" in sums.stdout, sums.stdout
    audit = run_inprocess("audit", "tb_v1", cwd=reg)
    assert audit.code == 0, audit.text
    shown = run_inprocess("show", "tb_v1", "--format", "json", cwd=reg)
    assert shown.code == 0, shown.text
    assert "hello-world" in (version / "METHOD.md").read_text()


def _v2(reg: Path, drafts: Path) -> None:
    (drafts / "version.yaml").write_text(_version_yaml(2), encoding="utf-8")
    hello = drafts / "tasks/hello-world/instruction.md"
    hello.write_text(hello.read_text() + "\nPrint the greeting twice.\n")
    toml = drafts / "tasks/fix-json/task.toml"
    toml.write_text(toml.read_text().replace('difficulty = "easy"', 'difficulty = "hard"'))
    test = drafts / "tasks/count-lines/tests/test.sh"
    test.write_text(test.read_text() + "test $(wc -l < /app/out) -eq 3\n")
    shutil.rmtree(drafts / "tasks/sort-csv")
    _task(drafts, "new-task")


def test_a_v2_names_exactly_the_five_changes_and_compare_keeps_the_rest(reg: Path) -> None:
    drafts = _tb(reg)
    assert run_inprocess("cut", "tb_v1", cwd=reg).code == 0
    commit_all(reg, "freeze tb_v1")
    _v2(reg, drafts)
    cut = run_inprocess("cut", "tb_v2", cwd=reg)
    assert cut.code == 0, cut.text
    delta = json.loads((reg / "versions/tb_v2/delta.json").read_text())["fixtures"]
    assert [f["task_id"] for f in delta["added"]] == ["new-task"]
    assert [f["task_id"] for f in delta["removed"]] == ["sort-csv"]
    assert [f["task_id"] for f in delta["changed"]] == ["fix-json"]
    [fields] = [f["fields"] for f in delta["changed"]]
    assert [c["path"] for c in fields] == ["$.metadata.difficulty"], fields
    through = {f["task_id"]: f["files"] for f in delta["changed_through_files"]}
    # The task file counts by its fields (named above), every other file by its content.
    assert through == {
        "count-lines": ["tasks/count-lines/tests/test.sh"],
        "hello-world": ["tasks/hello-world/instruction.md"],
    }
    # Delta format 5: a task changed through its files is changed, never also listed as unchanged.
    assert delta["unchanged"] == ["grep-logs", "make-dir"]
    named = {*through, *(f["task_id"] for f in delta["added"] + delta["removed"] + delta["changed"])}
    assert named == {"count-lines", "fix-json", "hello-world", "new-task", "sort-csv"}

    compared = run_inprocess("compare", "tb_v1", "tb_v2", "--format", "json", cwd=reg)
    assert compared.code == 0, compared.text
    [arm] = json.loads(compared.out)["result"]["arms"]
    assert arm["comparable"] == ["grep-logs", "make-dir"]
    excluded = arm["excluded"]
    assert sorted(excluded) == ["count-lines", "fix-json", "hello-world", "new-task", "sort-csv"]
    assert "its file tasks/hello-world/instruction.md changed" in excluded["hello-world"]
    assert "its file tasks/count-lines/tests/test.sh changed" in excluded["count-lines"]
    assert excluded["fix-json"] == "changed what the agent sees or what grades it: metadata"

    v1 = json.loads((reg / "versions/tb_v1/manifest.json").read_text())["comparability"]["fixtures"]
    v2 = json.loads((reg / "versions/tb_v2/manifest.json").read_text())["comparability"]["fixtures"]
    moved = sorted(task for task in set(v1) & set(v2) if v1[task] != v2[task])
    assert moved == ["count-lines", "fix-json", "hello-world"]  # the digests moved with the files
    method = (reg / "versions/tb_v2/METHOD.md").read_text()
    assert "tasks/count-lines/tests/test.sh" in method
    for name in ("tb_v1", "tb_v2"):
        audit = run_inprocess("audit", name, cwd=reg)
        assert audit.code == 0, audit.text
    diff = run_inprocess("diff", "tb_v1", "tb_v2", cwd=reg)
    assert diff.code == 0 and "$.metadata.difficulty: easy → hard" in diff.out, diff.text

    site = run_inprocess("site", str(reg.parent / "site"), cwd=reg)
    assert site.code == 0, site.text
    assert (reg.parent / "site").is_dir()
    kept = ["grep-logs", "make-dir"]
    _results(reg.parent / "all.jsonl", reg, {"tb_v1": [*kept, "hello-world"], "tb_v2": [*kept, "hello-world"]})
    pooled = run_inprocess("results", "check", str(reg.parent / "all.jsonl"), cwd=reg)
    assert_clean_failure(pooled)
    assert "hello-world: tb_v1 → tb_v2: changed what the agent sees" in pooled.out, pooled.out
    _results(reg.parent / "kept.jsonl", reg, {"tb_v1": kept, "tb_v2": kept})
    checked = run_inprocess("results", "check", str(reg.parent / "kept.jsonl"), cwd=reg)
    assert checked.code == 0, checked.text


def _results(path: Path, reg: Path, tasks: dict[str, list[str]]) -> None:
    rows = []
    for version, names in tasks.items():
        manifest = hashlib.sha256((reg / "versions" / version / "manifest.json").read_bytes()).hexdigest()
        rows += [{"manifest_sha256": manifest, "task_id": t, "arm": "all", "score": 1.0, "run": "r1"} for t in names]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def test_a_later_config_does_not_change_how_a_frozen_version_is_read(reg: Path) -> None:
    _tb(reg)
    assert run_inprocess("cut", "tb_v1", cwd=reg).code == 0
    config = reg / "freezer.yaml"
    text = config.read_text().replace('fixtures: "tasks/*/"', 'fixtures: "other/*/"')
    config.write_text(text.replace("task_file: task.toml", "task_file: meta.yaml"))
    audit = run_inprocess("audit", "tb_v1", cwd=reg)
    assert audit.code == 0, audit.text
    shown = run_inprocess("show", "tb_v1", "--format", "json", cwd=reg)
    assert shown.code == 0 and "hello-world" in shown.out, shown.text


def test_a_folder_without_its_task_file_is_refused_located(reg: Path) -> None:
    drafts = _tb(reg)
    (drafts / "tasks/hello-world/task.toml").unlink()
    (drafts / "tasks/make-dir/task.toml").rename(drafts / "tasks/make-dir/task.yaml")
    problems = _problems(reg)
    for name in ("hello-world", "make-dir"):
        assert any(f"drafts/tb/tasks/{name}: " in p and "without its task file task.toml" in p for p in problems)
    assert len(problems) == 2, problems
    assert_clean_failure(run_inprocess("cut", "tb_v1", cwd=reg))


def test_duplicate_task_ids_from_the_task_file_are_refused_located(reg: Path) -> None:
    drafts = _tb(reg, extra="    task_id: name\n")
    for name in TASKS:
        toml = drafts / "tasks" / name / "task.toml"
        shown = "same" if name in ("fix-json", "sort-csv") else name
        toml.write_text(f'name = "{shown}"\n' + toml.read_text())
    problems = _problems(reg)
    [duplicate] = [p for p in problems if "already used" in p]
    # The id is the task file's name field, not the folder's name (which differ for both tasks).
    assert "task_id 'same' is already used" in duplicate, duplicate
    assert duplicate.startswith(str(drafts / "tasks/sort-csv/task.toml:1:")), duplicate
    assert "drafts/tb/tasks/fix-json/task.toml:1" in duplicate
    assert len(problems) == 1, problems


def test_a_broken_task_file_and_a_bad_task_id_are_located(reg: Path) -> None:
    drafts = _tb(reg)
    (drafts / "tasks/fix-json/task.toml").write_text('version = "1.0"\n[metadata\n')
    # Upper case is a benchmark's own id now (issue 26, identity); a tab still cannot be one.
    (drafts / "tasks/Bad\tName").mkdir()
    (drafts / "tasks/Bad\tName/task.toml").write_text('version = "1.0"\n')
    problems = _problems(reg)
    assert any(p.startswith(str(drafts / "tasks/fix-json/task.toml:2:")) for p in problems), problems
    assert any(p.startswith(str(drafts / "tasks/Bad\tName/task.toml")) and "'Bad\\tName'" in p for p in problems)


def test_dropped_tasks_by_list_and_status_field(reg: Path) -> None:
    drafts = _tb(reg, extra="    dropped: [sort-csv, nowhere]\n")
    problems = _problems(reg)
    assert len(problems) == 1 and "'nowhere'" in problems[0] and problems[0].startswith(f"{reg}/freezer.yaml:"), (
        problems
    )
    config = reg / "freezer.yaml"
    config.write_text(config.read_text().replace("    dropped: [sort-csv, nowhere]\n", "    dropped: [sort-csv]\n"))
    assert _problems(reg) == []
    assert run_inprocess("cut", "tb_v1", cwd=reg).code == 0
    manifest = json.loads((reg / "versions/tb_v1/manifest.json").read_text())
    assert manifest["fixture_kind"]["dropped"] == ["sort-csv"]
    assert (
        "sort-csv" not in manifest["comparability"]["fixtures"] and "make-dir" in manifest["comparability"]["fixtures"]
    )
    assert run_inprocess("audit", "tb_v1", cwd=reg).code == 0
    config.write_text(config.read_text().replace("    dropped: [sort-csv]\n", "    status_field: state\n"))
    toml = drafts / "tasks/grep-logs/task.toml"
    toml.write_text('state = "retired"\n' + toml.read_text())
    [problem] = _problems(reg)
    assert problem.startswith(str(drafts / "tasks/grep-logs/task.toml:1:")) and "'retired'" in problem, problem


def test_config_keys_of_the_kinds_are_checked(reg: Path) -> None:
    config = reg / "freezer.yaml"
    base = config.read_text()
    bad = TB_SUITE.format(extra="", globs=GLOBS).replace('fixtures: "tasks/*/"', 'fixtures: "tasks/*"')
    config.write_text(base + bad)
    result = run_inprocess("validate", "--suite", "tb", cwd=reg)
    assert_clean_failure(result)
    assert "end the glob in '/'" in result.text
    config.write_text(base + TB_SUITE.format(extra="", globs=GLOBS).replace("    task_file: task.toml\n", ""))
    result = run_inprocess("validate", "--suite", "tb", cwd=reg)
    assert_clean_failure(result)
    assert "needs task_file" in result.text
    config.write_text(base.replace("  graph:\n", "  graph:\n    task_file: task.toml\n", 1))
    result = run_inprocess("validate", cwd=reg)
    assert_clean_failure(result)
    assert "task_file is for kinds folders and records" in result.text


OWN_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["metadata"],
    "properties": {
        "metadata": {
            "description": "Who wrote the task and how hard it is: not seen by the agent.",
            "x-freezer-group": "cosmetic",
            "type": "object",
            "properties": {"difficulty": {"enum": ["easy", "medium", "hard"]}},
        },
    },
}


def test_a_suite_schema_applies_to_the_task_fields_and_places_them(reg: Path) -> None:
    (reg / "tb.schema.json").write_text(json.dumps(OWN_SCHEMA, indent=2))
    drafts = _tb(reg, extra="    schema: tb.schema.json\n")
    toml = drafts / "tasks/make-dir/task.toml"
    toml.write_text(toml.read_text().replace('difficulty = "easy"', 'difficulty = "extreme"'))
    (drafts / "tasks/grep-logs/task.toml").write_text('version = "1.0"\n')
    problems = _problems(reg)
    assert len(problems) == 2, problems
    assert any(p.startswith(str(drafts / "tasks/make-dir/task.toml:5:")) and "extreme" in p for p in problems)
    assert any(p.startswith(str(drafts / "tasks/grep-logs/task.toml:1:")) and "metadata" in p for p in problems)
    toml.write_text(toml.read_text().replace('difficulty = "extreme"', 'difficulty = "easy"'))
    shutil.rmtree(drafts / "tasks/grep-logs")
    _task(drafts, "grep-logs")
    assert _problems(reg) == []
    assert run_inprocess("cut", "tb_v1", cwd=reg).code == 0
    manifest = json.loads((reg / "versions/tb_v1/manifest.json").read_text())
    assert manifest["checks"]["fixture_schema"]["kind"] == "custom"
    assert manifest["comparability"]["groups"]["metadata"] == "cosmetic"
    commit_all(reg, "freeze tb_v1")
    _v2(reg, drafts)
    assert run_inprocess("cut", "tb_v2", cwd=reg).code == 0
    compared = run_inprocess("compare", "tb_v1", "tb_v2", "--format", "json", cwd=reg)
    [arm] = json.loads(compared.out)["result"]["arms"]
    assert arm["classes"]["fix-json"] == "cosmetic" and "fix-json" in arm["comparable"], arm
    assert arm["classes"]["hello-world"] == "changed" and "hello-world" in arm["excluded"], arm
    assert run_inprocess("audit", "tb_v2", cwd=reg).code == 0


def test_the_canary_is_required_in_each_task_file_and_audited(reg: Path) -> None:
    drafts = _tb(reg, extra="    canary: 'freezer-canary 1f6d'\n")
    for name in TASKS[:-1]:
        toml = drafts / "tasks" / name / "task.toml"
        toml.write_text("# freezer-canary 1f6d\n" + toml.read_text())
    [problem] = _problems(reg)
    assert problem.startswith(str(drafts / "tasks/sort-csv/task.toml:1:")) and "canary" in problem, problem
    toml = drafts / "tasks/sort-csv/task.toml"
    toml.write_text("# freezer-canary 1f6d\n" + toml.read_text())
    assert run_inprocess("cut", "tb_v1", cwd=reg).code == 0
    assert run_inprocess("audit", "tb_v1", cwd=reg).code == 0


def test_validating_one_file_of_a_task_folder_validates_its_suite(reg: Path) -> None:
    drafts = _tb(reg)
    (drafts / "tasks/make-dir/task.toml").unlink()
    result = run_inprocess("validate", "drafts/tb/tasks/hello-world/instruction.md", cwd=reg)
    assert_clean_failure(result)
    assert "drafts/tb/tasks/make-dir" in result.text and "without its task file" in result.text, result.text
    assert "instruction.md" not in result.text, result.text  # not read as a YAML fixture


def test_next_starts_the_drafts_from_a_frozen_folders_version(reg: Path) -> None:
    drafts = _tb(reg)
    assert run_inprocess("cut", "tb_v1", cwd=reg).code == 0
    source = snapshot(drafts)
    shutil.rmtree(drafts)
    commit_all(reg, "freeze tb_v1")
    started = run_inprocess("next", "--suite", "tb", cwd=reg)
    assert started.code == 0, started.text
    again = snapshot(drafts)
    assert {rel: data for rel, data in again.items() if rel != "version.yaml"} == {
        rel: data for rel, data in source.items() if rel != "version.yaml"
    }
    assert (drafts / "tasks/hello-world/tests/test.sh").exists()


def test_links_and_fifos_in_a_task_folder_are_refused(reg: Path) -> None:
    drafts = _tb(reg)
    (drafts / "tasks/hello-world/data.txt").symlink_to("/etc/passwd")
    os.mkfifo(drafts / "tasks/make-dir/tests/pipe")
    problems = _problems(reg)
    assert len(problems) == 2, problems
    assert any(p.startswith(str(drafts / "tasks/hello-world/data.txt")) and "symbolic link" in p for p in problems)
    assert any(p.startswith(str(drafts / "tasks/make-dir/tests/pipe")) and "FIFO" in p for p in problems)
