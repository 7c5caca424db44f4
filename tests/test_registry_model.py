"""What was frozen rules the past (issue 24): one registry model, and frozen versions that answer
from their own record.

Editing ``arms:``, a field's group, the dimensions or the template in freezer.yaml after a
version is frozen changes nothing that ``compare``, ``results check``, ``audit`` or the Python
API say about it; ``check`` refuses the edit (naming the freezer.yaml line and the version), and
the next cut records it as moved. Real registries, real git, the CLI in-process.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import freezer
from freezer.domain.errors import IntegrityError
from freezer.registry import config as config_mod
from freezer.registry.model import Registry, Suite
from freezer.runtime import resources

from conftest import REPO, Run, run_inprocess
from registry_helpers import commit_all

ARMS = "    arms:\n      agent: [surface, binary]\n      grader: [code_sites]\n"


def _add_to_suite(root: Path, lines: str) -> None:
    config = root / "freezer.yaml"
    text = config.read_text()
    anchor = "    kind: generic\n"
    assert anchor in text
    config.write_text(text.replace(anchor, anchor + lines, 1))


def _ok(result: Run) -> Run:
    assert result.code == 0, result.text
    return result


def _next_version(root: Path, number: int, fixture_text: Callable[[str], str] | None = None) -> None:
    version = root / "drafts/api/version.yaml"
    version.write_text(version.read_text().replace(f"version: {number - 1}\n", f"version: {number}\n", 1))
    prompt = root / "drafts/api/fixtures/add-timeout-flag.yaml"
    text = prompt.read_text()
    prompt.write_text(
        fixture_text(text) if fixture_text else text.replace("minutes_for_a_person: 10", "minutes_for_a_person: 11")
    )


@pytest.fixture
def frozen(api: Path) -> Path:
    """The api suite with two arms, v1 and v2 frozen and committed."""
    _add_to_suite(api, ARMS)
    _ok(run_inprocess("cut", "v1", "--suite", "api", cwd=api))
    _next_version(api, 2)
    _ok(run_inprocess("cut", "v2", "--suite", "api", cwd=api))
    commit_all(api, "api v1 and v2")
    return api


def _results_file(root: Path) -> Path:
    rows = []
    for name in ("api_v1", "api_v2"):
        loaded = freezer.load(name, registry=root)
        for fixture in loaded.landed:
            for arm in ("agent", "grader"):
                rows.append(
                    {"manifest_sha256": loaded.manifest_sha256, "task_id": fixture["task_id"], "arm": arm, "score": 1}
                )
    path = root.parent / "runs.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _what_the_past_says(root: Path, runs: Path) -> dict[str, Any]:
    compared = json.loads(_ok(run_inprocess("compare", "api_v1", "api_v2", "--format", "json", cwd=root)).out)
    results = run_inprocess("results", "check", str(runs), "--format", "json", cwd=root)
    audited = json.loads(run_inprocess("audit", "--no-code", "--suite", "api", "--format", "json", cwd=root).out)[
        "result"
    ]
    loaded = freezer.load("api_v2", registry=root)
    return {
        "compare": compared,
        "results": (results.code, json.loads(results.out)),
        "audit": [(v["name"], v["ok"], [f["message"] for f in v["failures"]]) for v in audited["versions"]],
        "load": (loaded.manifest_sha256, loaded.digests),
        "comparable": {
            arm: freezer.comparable("api_v1", "api_v2", arm=arm, registry=root) for arm in ("agent", "grader")
        },
    }


def _custom_schema(root: Path, moves: dict[str, str]) -> None:
    schema = json.loads(resources.schema_text("generic"))
    for name, group in moves.items():
        schema["properties"][name]["x-freezer-group"] = group
    (root / "api.schema.json").write_text(json.dumps(schema, indent=2))
    _add_to_suite(root, "    schema: api.schema.json\n")


def _edit_arms(root: Path) -> str:
    config = root / "freezer.yaml"
    config.write_text(
        config.read_text().replace(
            ARMS, "    arms:\n      agent: [binary]\n      grader: [code_sites]\n      newer: [code]\n"
        )
    )
    return "arms"


def _edit_group(root: Path) -> str:
    _custom_schema(root, {"oracle": "cosmetic", "metadata": "grading"})
    return "schema"


def _edit_dimensions(root: Path) -> str:
    _add_to_suite(root, "    dimensions:\n      surface: what the tools do, and how their output looks\n")
    return "dimensions"


def _edit_template(root: Path) -> str:
    template = (REPO / "templates/METHOD.md.j2").read_text()
    (root / "METHOD.custom.j2").write_text(template + "\nA line this registry's template adds.\n")
    _add_to_suite(root, "    template: METHOD.custom.j2\n")
    return "template"


EDITS = {"arms": _edit_arms, "field group": _edit_group, "dimensions": _edit_dimensions, "template": _edit_template}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_a_config_edit_after_the_cut_changes_nothing_the_past_says(frozen: Path, edit: str) -> None:
    runs = _results_file(frozen)
    before = _what_the_past_says(frozen, runs)
    assert before["audit"] == [("api_v1", True, []), ("api_v2", True, [])]
    _ok(run_inprocess("check", "--base", "HEAD", cwd=frozen))  # the config still says what api_v2 froze

    key = EDITS[edit](frozen)
    assert _what_the_past_says(frozen, runs) == before

    checked = run_inprocess("check", "--base", "HEAD", cwd=frozen)
    assert checked.code == 1, checked.text
    line = config_mod.load(frozen).suites["api"].origin(key)
    assert line.startswith("freezer.yaml:") or "freezer.yaml:" in line
    found = [text for text in checked.text.splitlines() if line.rsplit("/", 1)[-1] in text]
    assert found, checked.text
    assert "api_v2" in found[0] and "the next cut records this as moved" in checked.text


def test_the_next_cut_records_the_edit_as_moved_and_check_accepts_it(frozen: Path) -> None:
    _edit_arms(frozen)
    _edit_group(frozen)
    _next_version(frozen, 3)
    _ok(run_inprocess("cut", "v3", "--suite", "api", cwd=frozen))
    delta = json.loads((frozen / "versions/api_v3/delta.json").read_text())
    assert "checks" in delta["moved"]
    paths = [change["path"] for change in delta["checks"]]
    assert "arm agent" in paths and "arm newer" in paths, paths
    assert "field group oracle" in paths and "field group metadata" in paths, paths
    assert "arm agent" in (frozen / "versions/api_v3/METHOD.md").read_text()
    _ok(run_inprocess("audit", "--no-code", "--suite", "api", cwd=frozen))
    commit_all(frozen, "api v3")
    _ok(run_inprocess("check", "--base", "HEAD~1", cwd=frozen))


def test_the_stricter_reading_wins_when_two_versions_disagree(api: Path) -> None:
    """v2's schema calls ``oracle`` cosmetic, v1's graded it: a change to it is read as grading for both."""
    _add_to_suite(api, ARMS)
    _ok(run_inprocess("cut", "v1", "--suite", "api", cwd=api))
    _custom_schema(api, {"oracle": "cosmetic"})
    _next_version(
        api, 2, lambda text: text.replace("must_include: [timeout_ms]", "must_include: [timeout_ms, ToolContext]")
    )
    _ok(run_inprocess("cut", "v2", "--suite", "api", cwd=api))
    compared = json.loads(_ok(run_inprocess("compare", "api_v1", "api_v2", "--format", "json", cwd=api)).out)
    for record in compared["result"]["arms"]:
        assert record["classes"]["add-timeout-flag"] == "changed", record
        assert "add-timeout-flag" not in record["comparable"]
    frozen_record = json.loads((api / "versions/api_v2/comparability.json").read_text())
    [against] = frozen_record["against"]
    for arm in against["arms"]:
        assert arm["classes"]["add-timeout-flag"] == "changed", arm
    _ok(run_inprocess("audit", "--no-code", "--suite", "api", cwd=api))


def test_audit_fails_when_the_listing_and_the_recorded_previous_disagree(frozen: Path) -> None:
    _next_version(frozen, 3)
    _ok(run_inprocess("cut", "v3", "--suite", "api", cwd=frozen))
    shutil.rmtree(frozen / "versions/api_v2")  # api_v3 records api_v2 as its previous; the folder now lists api_v1
    audited = run_inprocess("audit", "--no-code", "--suite", "api", cwd=frozen)
    assert audited.code == 1, audited.text
    assert "chain broken: follows api_v2, but the registry has api_v1" in audited.text
    assert "Traceback" not in audited.text


def test_the_predecessor_is_the_recorded_one_checked_against_the_listing(frozen: Path) -> None:
    suite = Registry(config_mod.load(frozen)).suite("api")
    v1, v2 = suite.versions()
    assert suite.predecessor(v2) == v1 and suite.predecessor(v1) is None
    assert suite.next_number() == 3 and suite.next_name() == "api_v3"
    manifest = v2.manifest()
    manifest["previous"] = None
    with pytest.raises(IntegrityError, match="claims to be the first"):
        suite.predecessor(v2, manifest["previous"])


def test_a_command_lists_the_versions_folder_once(frozen: Path) -> None:
    cfg = config_mod.load(frozen)
    suite = Suite.of(cfg.suites["api"])
    assert Suite.of(cfg.suites["api"]) is suite
    names = [v.name for v in suite.versions()]
    (frozen / "versions/api_v9").mkdir()  # appears after the listing: the command goes on with what it listed
    assert [v.name for v in suite.versions()] == names
    suite.forget()
    assert [v.name for v in suite.versions()][-1] == "api_v9"
