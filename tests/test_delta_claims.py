"""Delta format 5: a fixture changed through its files is changed, in every place a reader looks.

For each kind, real registries in tmp_path: §Delta's text in METHOD.md, delta.json's classes,
``freezer diff`` and ``compare`` name the same fixtures as changed, none of them is also listed as
unchanged, and the ``assets`` dimension moves (in §Delta and for compare's arms alike) only for a
changed file that no fixture claims. Older formats stay as frozen: tests/cases/format-4-registry
audits byte for byte and warns about the fixtures its format-4 deltas list both ways.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import test_kind_folders as folders
import test_kind_lmeval as lmeval
import test_kind_records as records

from freezer.compare.delta import DELTA_FORMAT

from conftest import EXAMPLES, run_inprocess
from registry_helpers import commit_all

FORMAT_4 = Path(__file__).resolve().parent / "cases" / "format-4-registry"


def _ok(reg: Path, *args: str) -> str:
    result = run_inprocess(*args, cwd=reg)
    assert result.code == 0, result.text
    assert "Traceback" not in result.text
    return result.out


def _method_fixtures(method: str) -> tuple[set[str], set[str]]:
    """(changed, unchanged) as §Delta's Fixture set section of METHOD.md says them."""
    section = method[method.index("### Fixture set") :]
    section = section[: section.index("Landed classes:")]
    changed: set[str] = set()
    for block in re.split(r"\n(?=Changed|Unchanged|Fixture files|No fixture)", section):
        if block.startswith("Changed"):
            changed |= set(re.findall(r"^- `([^`]+)`", block, re.M))
    found = re.search(r"^Unchanged: (.*)\.$", section, re.M)
    # The cell filter escapes Markdown (a task id's ``_`` reads ``\_``): read it back as text.
    # Each id is its own code span from delta format 5's template on (an id may hold ", ").
    unchanged = {re.sub(r"\\(.)", r"\1", t.strip("`")) for t in found.group(1).split(", ")} if found else set()
    return changed, unchanged


def _agree(reg: Path, suite: str, old: int = 1, new: int = 2) -> tuple[set[str], dict[str, Any]]:
    """Cut ``<suite>_v<new>`` and check that every reader agrees on which fixtures changed; the
    changed fixtures and delta.json."""
    names = f"{suite}_v{old}", f"{suite}_v{new}"
    _ok(reg, "cut", names[1])
    commit_all(reg, f"freeze {names[1]}")
    version = reg / "versions" / names[1]
    delta = json.loads((version / "delta.json").read_text())
    assert delta["delta_format"] == DELTA_FORMAT
    fx = delta["fixtures"]
    changed = {c["task_id"] for c in fx["changed"]} | {c["task_id"] for c in fx["changed_through_files"]}
    assert not changed & set(fx["unchanged"]), fx
    assert ("fixture set" in delta["moved"]) == bool(
        changed or fx["added"] or fx["removed"] or fx["files_changed_in_bytes"]
    )

    said, unsaid = _method_fixtures((version / "METHOD.md").read_text())
    assert said == changed and unsaid == set(fx["unchanged"]), (said, unsaid, fx)

    diff = _ok(reg, "diff", *names)
    shown = set(re.findall(r"^  ~ (?!fixture file )(\S+)", diff, re.M))
    assert shown == changed, diff
    moved_line = next(line for line in diff.splitlines() if line.startswith("  moved: "))
    assert ("assets" in moved_line.split(": ", 1)[1].split(", ")) == ("assets" in delta["moved"]), diff

    arms = json.loads(_ok(reg, "compare", *names, "--format", "json"))["result"]["arms"]
    for arm in arms:
        classes = arm["classes"]
        assert {t for t, k in classes.items() if k in ("changed", "cosmetic")} == changed & set(classes), arm
        if "assets" in arm["depends_on"]:
            assert ("assets" in arm["moved"]) == ("assets" in delta["moved"]), (arm, delta["moved"])
    for name in names:
        _ok(reg, "audit", name)
    return changed, delta


def _default_arm(reg: Path) -> None:
    """Drop the lm-eval suite's own arm: the default arm ``all`` depends on ``assets`` too."""
    config = reg / "freezer.yaml"
    config.write_text(config.read_text().replace("    arms:\n      model: [binary, code, record]\n", ""))


# --- lm-eval ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("edit", "expected", "fields"),
    [
        # The module a !function names: the two tasks that name it, through utils.py alone.
        ({"tasks/utils.py": lmeval.UTILS.replace('!= ""', '.strip() != ""')}, lmeval.USES_UTILS, False),
        # The included template: the three includers, by their merged fields and through the file.
        (
            {"tasks/_template.yaml": lmeval.TEMPLATE.replace("do_sample: false", "do_sample: false\n  top_k: 1")},
            lmeval.USES_TEMPLATE,
            True,
        ),
    ],
)
def test_lm_eval_a_changed_dependency_is_a_change_of_its_tasks_everywhere(
    reg: Path, edit: dict[str, str], expected: list[str], fields: bool
) -> None:
    _default_arm(reg)
    drafts = lmeval._bbh(reg)
    _ok(reg, "cut", "bbh_v1")
    commit_all(reg, "freeze bbh_v1")
    (drafts / "version.yaml").write_text(lmeval._version_yaml(2))
    for rel, text in edit.items():
        (drafts / rel).write_text(text)
    changed, delta = _agree(reg, "bbh")
    assert changed == set(expected)
    fx = delta["fixtures"]
    assert {c["task_id"] for c in fx["changed_through_files"]} == set(expected)
    assert bool(fx["changed"]) == fields
    assert "assets" not in delta["moved"] and "fixture set" in delta["moved"], delta["moved"]
    [rel] = edit
    assert delta["assets"]["claimed"] == {rel: sorted(expected)}
    method = (reg / "versions/bbh_v2/METHOD.md").read_text()
    assert "these dimensions moved: **fixture set**." in method
    assert f"- changed `{rel}` (new sha256 in the manifest): a file of `{sorted(expected)[0]}`" in method


def test_lm_eval_only_an_unclaimed_file_moves_the_assets_dimension(reg: Path) -> None:
    _default_arm(reg)
    drafts = lmeval._bbh(reg)
    (drafts / "NOTES.md").write_text("how the sweep runs\n")
    commit_all(reg, "notes")
    _ok(reg, "cut", "bbh_v1")
    commit_all(reg, "freeze bbh_v1")
    (drafts / "version.yaml").write_text(lmeval._version_yaml(2))
    (drafts / "tasks/utils.py").write_text(lmeval.UTILS + "\n")
    (drafts / "NOTES.md").write_text("how the sweep runs, revised\n")
    changed, delta = _agree(reg, "bbh")
    assert changed == set(lmeval.USES_UTILS)
    assert "assets" in delta["moved"], delta["moved"]
    assert delta["assets"]["claimed"] == {"tasks/utils.py": lmeval.USES_UTILS}
    diff = _ok(reg, "diff", "bbh_v1", "bbh_v2")
    assert "  asset changed: NOTES.md\n" in diff
    assert "  asset changed: tasks/utils.py, a file of arith-add, arith-sub, not a suite asset\n" in diff


# --- folders ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("edits", "chmod"),
    [
        ({"hello-world/instruction.md": "\nPrint it twice.\n", "count-lines/tests/test.sh": "exit 0\n"}, None),
        ({"make-dir/instruction.md": "\nUse mkdir -p.\n", "sort-csv/instruction.md": "\nSort by y.\n"}, None),
        ({}, "grep-logs/tests/test.sh"),
    ],
)
def test_folders_an_edited_instruction_or_test_script_is_a_change_of_its_task(
    reg: Path, edits: dict[str, str], chmod: str | None
) -> None:
    drafts = folders._tb(reg)
    if chmod:
        (drafts / "tasks" / chmod).chmod(0o644)
        commit_all(reg, "not executable yet")
    _ok(reg, "cut", "tb_v1")
    commit_all(reg, "freeze tb_v1")
    (drafts / "version.yaml").write_text(folders._version_yaml(2))
    for rel, more in edits.items():
        path = drafts / "tasks" / rel
        path.write_text(path.read_text() + more)
    if chmod:
        (drafts / "tasks" / chmod).chmod(0o755)
    changed, delta = _agree(reg, "tb")
    touched = {rel.split("/")[0] for rel in (*edits, *([chmod] if chmod else []))}
    assert changed == touched
    fx = delta["fixtures"]
    assert set(fx["unchanged"]) == set(folders.TASKS) - touched
    # A file named through its task is not also "only its bytes changed".
    assert fx["files_changed_in_bytes"] == []


# --- records ----------------------------------------------------------------------------------------


def test_records_a_suite_asset_no_record_claims_moves_every_record_not_one(reg: Path) -> None:
    drafts = records._swe(reg)
    _ok(reg, "cut", "swe_v1")
    commit_all(reg, "freeze swe_v1")
    (drafts / "version.yaml").write_text(records._version_yaml(2))
    (drafts / "README.md").write_text("Instances written for freezer's tests, revised.\n")
    changed, delta = _agree(reg, "swe")
    assert changed == set()
    assert "assets" in delta["moved"] and "fixture set" not in delta["moved"], delta["moved"]
    assert "claimed" not in delta["assets"]
    [arm] = json.loads(_ok(reg, "compare", "swe_v1", "swe_v2", "--format", "json"))["result"]["arms"]
    assert arm["comparable"] == [] and "assets" in arm["moved"], arm


def test_records_an_edited_record_is_the_only_change(reg: Path) -> None:
    drafts = records._swe(reg)
    _ok(reg, "cut", "swe_v1")
    commit_all(reg, "freeze swe_v1")
    (drafts / "version.yaml").write_text(records._version_yaml(2))
    edited = [records._record(i, note=" Again." if i == records.IDS[4] else "") for i in records.IDS[3:]]
    (drafts / "instances/part2.jsonl").write_text(records._jsonl(edited))
    changed, delta = _agree(reg, "swe")
    assert changed == {records.IDS[4]}
    assert "assets" not in delta["moved"] and "fixture set" in delta["moved"], delta["moved"]


# --- graph and generic fixtures with assets ---------------------------------------------------------

GRAPH_TASK = "impact-default-timeout-users"


def test_graph_a_fixture_asset_moves_its_fixture_and_an_unclaimed_file_the_suite(reg: Path) -> None:
    drafts = reg / "drafts/graph"
    (drafts / "assets").mkdir()
    (drafts / "assets/hint.md").write_text("Start at the config loader.\n")
    fixture = drafts / "fixtures" / f"{GRAPH_TASK}.yaml"
    fixture.write_text(fixture.read_text() + "assets:\n  - assets/hint.md\n")
    commit_all(reg, "graph asset")
    _ok(reg, "cut", "graph_v1")
    commit_all(reg, "freeze graph_v1")
    version_yaml = drafts / "version.yaml"
    version_yaml.write_text(version_yaml.read_text().replace("version: 1\n", "version: 2\n", 1))
    (drafts / "assets/hint.md").write_text("Start at the config loader, then the CLI.\n")
    changed, delta = _agree(reg, "graph")
    assert changed == {GRAPH_TASK}
    assert "assets" not in delta["moved"], delta["moved"]
    assert delta["assets"]["claimed"] == {"assets/hint.md": [GRAPH_TASK]}


@pytest.mark.parametrize("unclaimed", [False, True])
def test_generic_a_fixture_asset_and_a_readme(api: Path, unclaimed: bool) -> None:
    drafts = api / "drafts/api"
    _ok(api, "cut", "api_v1")
    commit_all(api, "freeze api_v1")
    version_yaml = drafts / "version.yaml"
    version_yaml.write_text(version_yaml.read_text().replace("version: 1\n", "version: 2\n", 1))
    patch = drafts / "assets/add-timeout-flag/expected.patch"
    patch.write_text(patch.read_text() + "\n")
    if unclaimed:
        (drafts / "README.md").write_text((drafts / "README.md").read_text() + "\nRevised.\n")
    changed, delta = _agree(api, "api")
    assert changed == {"add-timeout-flag"}
    assert ("assets" in delta["moved"]) == unclaimed, delta["moved"]
    # Where the suite's assets moved, compare's reason names the unclaimed file alone (comparability
    # format 5): the patch moved its own fixture, through its digests.
    arms = json.loads(_ok(api, "compare", "api_v1", "api_v2", "--format", "json"))["result"]["arms"]
    reasons = [reason for arm in arms if "assets" in arm["moved"] for reason in arm["excluded"].values()]
    assert bool(reasons) == unclaimed, arms
    assert all("assets (README.md changed)" in reason for reason in reasons), reasons
    stored = (api / "versions/api_v2/comparability.json").read_text(encoding="utf-8")
    assert "README.md changed" in stored if unclaimed else "README.md" not in stored
    assert "expected.patch changed" not in stored.replace("its file assets/add-timeout-flag/expected.patch", "")


# --- old formats ------------------------------------------------------------------------------------


@pytest.fixture
def format_4(tmp_path: Path) -> Path:
    root = tmp_path / "old"
    shutil.copytree(FORMAT_4, root)
    for suite in ("bbh", "tb"):
        (root / "drafts" / suite).mkdir(parents=True)
    return root


def test_format_4_audits_byte_for_byte_and_warns_of_fixtures_listed_both_ways(format_4: Path) -> None:
    audited = json.loads(_ok(format_4, "audit", "--no-code", "--format", "json"))
    versions = {v["name"]: v for v in audited["result"]["versions"]}
    assert all(v["ok"] for v in versions.values()), versions
    assert versions["bbh_v1"]["warnings"] == [] and versions["tb_v1"]["warnings"] == []
    [bbh] = versions["bbh_v2"]["warnings"]
    assert bbh["file"] == "versions/bbh_v2/delta.json"
    tasks = "bbh_slice_alphabetical_order, bbh_slice_bracket_closing, bbh_slice_item_tally"
    assert bbh["message"].startswith(
        f"lists {tasks} both as unchanged and as changed through their files (tasks/utils.py)"
    )
    [tb] = versions["tb_v2"]["warnings"]
    assert "count-words, rotate-logs both as unchanged" in tb["message"], tb
    assert "tasks/rotate-logs/tests/test.sh" in tb["message"]
    text = _ok(format_4, "audit", "--no-code")
    assert text.count("⚠ versions/") == 2 and "✓ audited 4 version(s)" in text, text
    for name in ("bbh_v2", "tb_v2"):
        frozen = json.loads((format_4 / "versions" / name / "delta.json").read_text())
        assert frozen["delta_format"] == 4


def test_a_new_cut_after_format_4_writes_format_5_and_its_audit_has_no_warning(format_4: Path) -> None:
    shutil.copytree(EXAMPLES / "bbh/v2", format_4 / "drafts/bbh", dirs_exist_ok=True)
    version_yaml = format_4 / "drafts/bbh/version.yaml"
    version_yaml.write_text(version_yaml.read_text().replace("version: 2\n", "version: 3\n", 1))
    utils = format_4 / "drafts/bbh/tasks/utils.py"
    utils.write_text(utils.read_text() + "\n# revised\n")
    # Only utils.py moves: the template as bbh_v2 froze it (the example's has pinned its dataset since).
    template = "tasks/_template_yaml"
    shutil.copyfile(format_4 / "versions/bbh_v2" / template, format_4 / "drafts/bbh" / template)
    from freezer.git.gitrepo import DETERMINISTIC_ENV, run_git

    run_git(["init", "-q", "-b", "main", "."], format_4, DETERMINISTIC_ENV)
    commit_all(format_4, "the old registry")
    changed, delta = _agree(format_4, "bbh", 2, 3)
    assert len(changed) == 3 and "assets" not in delta["moved"]
    audited = json.loads(_ok(format_4, "audit", "--no-code", "bbh_v3", "--format", "json"))
    assert audited["result"]["versions"][0]["warnings"] == []
