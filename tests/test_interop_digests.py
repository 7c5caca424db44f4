"""Issue 28, item 5: `show --format json` gives each fixture's digests, and for a folders suite each
task's Harbor content digest, so a frozen task is `name@sha256:…` to a Harbor user.

The Harbor digest is checked against an independent computation: a few lines of shell over the
frozen task folder with sha256sum, following Harbor's recipe (the files Harbor publishes, sorted by
path, each as `path NUL sha256 LF`, the sha256 of it all). Verified once by hand against Harbor
0.26.0's own packager on the demo's tasks (the same three digests); Harbor needs Python 3.12, so
the tests cannot import it here.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from test_kind_folders import _task, _tb, _version_yaml

import freezer
from freezer.domain.harbordigest import content_digest, covered, harbor_digest

from conftest import REPO, run_inprocess
from registry_helpers import commit_all

OUTPUT_SCHEMA = json.loads((REPO / "schemas" / "output.schema.json").read_text(encoding="utf-8"))

# Harbor's recipe in shell, written from its documentation of the packager (no freezer code):
# the top files and the four folders, git's default ignores left out, C-locale order.
HARBOR_SH = r"""
cd "$1"
find task.toml instruction.md README.md trajectory.json environment tests solution steps -type f \
  ! -name '*.pyc' ! -name '.DS_Store' ! -name '*.swp' ! -name '*.swo' ! -name '*~' \
  ! -path '*/__pycache__/*' 2>/dev/null |
  LC_ALL=C sort |
  while IFS= read -r f; do printf '%s\0%s\n' "$f" "$(sha256sum "$f" | cut -d' ' -f1)"; done |
  sha256sum | cut -d' ' -f1
"""


def _shell_digest(folder: Path) -> str:
    done = subprocess.run(["bash", "-c", HARBOR_SH, "harbor", str(folder)], capture_output=True, text=True, check=True)
    return "sha256:" + done.stdout.strip()


def _show(reg: Path, version: str) -> dict[str, Any]:
    shown = run_inprocess("show", version, "--format", "json", cwd=reg)
    assert shown.code == 0, shown.text
    document = json.loads(shown.out)
    jsonschema.Draft202012Validator(OUTPUT_SCHEMA).validate(document)
    result: dict[str, Any] = document["result"]
    return result


def _digests(reg: Path, version: str) -> dict[str, Any]:
    found: dict[str, Any] = _show(reg, version)["fixture_digests"]
    return found


@pytest.fixture
def demo(tmp_path: Path, demo_build: Path) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    return root


def test_the_demo_tasks_carry_harbors_digest_equal_to_the_shell_recipe(demo: Path) -> None:
    result = _show(demo, "tb_v1")
    digests = result["fixture_digests"]
    assert isinstance(digests, dict)
    manifest = result["manifest"]
    assert isinstance(manifest, dict)
    assert sorted(digests) == ["count-words", "fix-csv-header", "rotate-logs"]
    seen = set()
    for task, record in digests.items():
        harbor = record["harbor"]
        folder = demo / "versions/tb_v1/tasks" / task
        assert harbor["digest"] == _shell_digest(folder), task
        assert harbor["reference"] == f"{task}@{harbor['digest']}"
        assert harbor["files"] == ["environment/Dockerfile", "instruction.md", "task.toml", "tests/test.sh"]
        assert harbor["reason"] is None
        # freezer's own digests are the ones the manifest recorded, given directly
        assert {k: v for k, v in record.items() if k != "harbor"} == manifest["comparability"]["fixtures"][task]
        seen.add(harbor["digest"])
    assert len(seen) == 3  # three different tasks, three digests
    text = run_inprocess("show", "tb_v1", cwd=demo)
    assert text.code == 0, text.text
    for record in digests.values():
        assert f"harbor {record['harbor']['digest'][:23]}…" in text.out


@pytest.mark.parametrize("version", ["graph_v1", "swe_v1", "bbh_v1"])
def test_other_kinds_give_their_digests_without_a_harbor_one(demo: Path, version: str) -> None:
    result = _show(demo, version)
    digests = result["fixture_digests"]
    manifest = result["manifest"]
    assert isinstance(digests, dict) and isinstance(manifest, dict)
    landed = sorted(f["task_id"] for f in result["fixtures"] if f["status"] == "landed")
    assert sorted(digests) == landed and landed
    assert digests == manifest["comparability"]["fixtures"]
    assert all("harbor" not in record for record in digests.values())
    text = run_inprocess("show", version, cwd=demo)
    assert "harbor" not in text.out


def _own_tasks(reg: Path) -> Path:
    """A folders suite with tasks shaped as Harbor users write them."""
    drafts = _tb(reg, tasks=("alpha", "beta"))
    nested = drafts / "tasks/nested"
    _task(drafts, "nested")
    (nested / "task.toml").write_text(
        (nested / "task.toml").read_text() + '\n[task]\nname = "acme/nested"\n', encoding="utf-8"
    )
    (nested / "environment/files/data").mkdir(parents=True)
    (nested / "environment/files/data/input.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    (nested / "solution").mkdir()
    solve = nested / "solution/solve.sh"
    solve.write_text("#!/bin/sh\ntouch /app/nested.done\n", encoding="utf-8")
    solve.chmod(0o755)
    (nested / "tests/__pycache__").mkdir()
    (nested / "tests/__pycache__/helper.cpython-311.pyc").write_bytes(b"\x00compiled\x00")
    (nested / "notes.md").write_text("Why this task exists: not for the agent.\n", encoding="utf-8")
    ignoring = drafts / "tasks/ignoring"
    _task(drafts, "ignoring")
    (ignoring / ".gitignore").write_text("*.log\n", encoding="utf-8")
    commit_all(reg, "own tasks")
    return drafts


def test_own_tasks_nested_executable_and_ignored_files(reg: Path) -> None:
    _own_tasks(reg)
    cut = run_inprocess("cut", "tb_v1", cwd=reg)
    assert cut.code == 0, cut.text
    digests = _digests(reg, "tb_v1")
    assert sorted(digests) == ["alpha", "beta", "ignoring", "nested"]
    nested = digests["nested"]["harbor"]
    assert nested["name"] == "acme/nested"  # task.toml's [task] name, as Harbor names the task
    assert nested["reference"] == f"acme/nested@{nested['digest']}"
    assert nested["files"] == [
        "environment/Dockerfile",
        "environment/files/data/input.csv",
        "instruction.md",
        "solution/solve.sh",
        "task.toml",
        "tests/test.sh",
    ]  # notes.md is not Harbor's, the .pyc is ignored by Harbor's defaults
    frozen = reg / "versions/tb_v1/tasks"
    for task in ("alpha", "beta", "nested"):
        assert digests[task]["harbor"]["digest"] == _shell_digest(frozen / task), task
    assert digests["alpha"]["harbor"]["name"] == "alpha"
    assert digests["alpha"]["harbor"]["digest"] != digests["beta"]["harbor"]["digest"]
    ignoring = digests["ignoring"]["harbor"]
    assert ignoring["digest"] is None and ignoring["reference"] is None
    assert ".gitignore" in ignoring["reason"]
    text = run_inprocess("show", "tb_v1", cwd=reg)
    assert "harbor: no digest" in text.out and "harbor sha256:" in text.out

    audit = run_inprocess("audit", "tb_v1", cwd=reg)
    assert audit.code == 0, audit.text
    assert _digests(reg, "tb_v1") == digests  # stable across cut and audit
    loaded = freezer.load("tb_v1", registry=reg)
    assert loaded.harbor_digest("nested").reference == nested["reference"]
    assert loaded.harbor_digest("ignoring").digest is None
    for task, record in digests.items():
        assert loaded.fixture_digests(task).to_json() == {k: v for k, v in record.items() if k != "harbor"}
        assert loaded.fixture_digest(task) == record["score"]
    with pytest.raises(KeyError):
        loaded.harbor_digest("no-such-task")


def test_one_files_bytes_move_that_tasks_digest_and_a_mode_moves_none(reg: Path) -> None:
    drafts = _own_tasks(reg)
    assert run_inprocess("cut", "tb_v1", cwd=reg).code == 0
    commit_all(reg, "tb_v1")
    before = _digests(reg, "tb_v1")
    (drafts / "version.yaml").write_text(_version_yaml(2), encoding="utf-8")
    data = drafts / "tasks/nested/environment/files/data/input.csv"
    data.write_text("a,b\n1,3\n", encoding="utf-8")  # one byte of one file in a subfolder
    (drafts / "tasks/beta/instruction.md").chmod(0o755)  # a mode alone: Harbor hashes content only
    commit_all(reg, "tb v2 drafts")
    cut = run_inprocess("cut", "tb_v2", cwd=reg)
    assert cut.code == 0, cut.text
    after = _digests(reg, "tb_v2")
    assert after["nested"]["harbor"]["digest"] != before["nested"]["harbor"]["digest"]
    assert after["nested"]["harbor"]["digest"] == _shell_digest(reg / "versions/tb_v2/tasks/nested")
    assert after["nested"]["input"] != before["nested"]["input"]
    assert after["alpha"] == before["alpha"]
    # the executable bit moves freezer's digest (files count by content and mode), not Harbor's
    assert after["beta"]["harbor"] == before["beta"]["harbor"]
    assert after["beta"]["input"] != before["beta"]["input"]
    assert _digests(reg, "tb_v1") == before  # the earlier version keeps its digests


def test_the_recipe_bytes() -> None:
    hashes = {"tests/test.sh": "b" * 64, "task.toml": "a" * 64}
    expected = (
        "sha256:"
        + __import__("hashlib").sha256(f"task.toml\0{'a' * 64}\ntests/test.sh\0{'b' * 64}\n".encode()).hexdigest()
    )
    assert content_digest(hashes) == expected
    assert content_digest({"task.toml": "a" * 64}) != expected
    assert covered(("README.md", "steps/one/instruction.md", "data/x", "x.md", "tests/a~", "tests/.DS_Store")) == (
        "README.md",
        "steps/one/instruction.md",
    )
    refused = harbor_digest("t", {"task.toml": "a" * 64, "tests/.harborignore": "c" * 64})
    assert refused.digest is None and refused.reason is not None and "tests/.harborignore" in refused.reason
