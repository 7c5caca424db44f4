"""Issue 26: file modes recorded in the manifest and kept in the frozen copy (git's 100755 vs
100644), checked by audit, and a mode-only change listed in §Delta and ``freezer diff``.
Real registries in tmp_path, the CLI run in-process."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from freezer.domain.manifest import Manifest

from conftest import run_inprocess
from registry_helpers import commit_all

SCRIPT = "assets/add-timeout-flag/tests/test.sh"
HELPER = "assets/run.py"
PATCH = "assets/add-timeout-flag/expected.patch"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _cut(reg: Path, label: str) -> None:
    result = run_inprocess("cut", label, "--suite", "api", cwd=reg)
    assert result.code == 0, result.text


def _with_scripts(api: Path) -> Path:
    """The api drafts with two executable scripts, one named by a fixture (graders) and one not."""
    drafts = api / "drafts/api"
    for rel, text in ((SCRIPT, "#!/bin/sh\nexit 0\n"), (HELPER, "#!/usr/bin/env python3\nprint('ok')\n")):
        (drafts / rel).parent.mkdir(parents=True, exist_ok=True)
        (drafts / rel).write_text(text)
        (drafts / rel).chmod(0o755)
    _edit(drafts / "fixtures/add-timeout-flag.yaml", "metadata:\n", f"graders:\n  - {SCRIPT}\nmetadata:\n")
    return drafts


@pytest.mark.parametrize("rel", [SCRIPT, HELPER])
def test_an_executable_stays_executable_and_sha256sum_checks(api: Path, rel: str) -> None:
    _with_scripts(api)
    _cut(api, "v1")
    version = api / "versions/api_v1"
    frozen = (version / rel).stat().st_mode
    assert stat.S_IMODE(frozen) == 0o555, oct(frozen)
    assert stat.S_IMODE((version / PATCH).stat().st_mode) == 0o444  # the rest stays read-only, not executable
    assert (version / rel).read_bytes() == (api / "drafts/api" / rel).read_bytes()
    manifest = json.loads((version / "manifest.json").read_text())
    assert manifest["modes"] == {HELPER: "100755", SCRIPT: "100755"}
    assert rel in manifest["files"]
    checked = subprocess.run(["sha256sum", "-c", "--quiet", "SHA256SUMS"], cwd=version, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert subprocess.run([str(version / rel)], capture_output=True).returncode == 0  # it runs, as frozen
    audit = run_inprocess("audit", cwd=api)
    assert audit.code == 0, audit.text


def test_a_version_without_executables_writes_no_modes(api: Path) -> None:
    _cut(api, "v1")
    manifest = json.loads((api / "versions/api_v1/manifest.json").read_text())
    assert "modes" not in manifest  # the manifest of a cut without executables keeps its earlier shape
    assert Manifest.from_data(manifest).modes == {}
    assert run_inprocess("audit", cwd=api).code == 0


@pytest.mark.parametrize(
    ("rel", "mode", "says"),
    [
        (SCRIPT, 0o444, "mode changed: the file is 100644 (not executable), the manifest records 100755"),
        (PATCH, 0o555, "mode changed: the file is 100755 (executable), the manifest records 100644"),
        ("METHOD.md", 0o755, "mode changed: the file is 100755 (executable), the manifest records 100644"),
    ],
)
def test_a_chmod_of_a_frozen_file_fails_audit(api: Path, rel: str, mode: int, says: str) -> None:
    _with_scripts(api)
    _cut(api, "v1")
    commit_all(api, "freeze api_v1")
    assert run_inprocess("audit", cwd=api).code == 0
    target = api / "versions/api_v1" / rel
    os.chmod(target, mode)
    audit = run_inprocess("audit", cwd=api)
    assert audit.code == 1, audit.text
    assert rel in audit.text and says in audit.text, audit.text
    assert "Traceback" not in audit.text
    # The bytes did not change: sha256sum cannot see it, the mode check does.
    checked = subprocess.run(["sha256sum", "-c", "--quiet", "SHA256SUMS"], cwd=target.parents[len(Path(rel).parts) - 1])
    assert checked.returncode == 0


@pytest.mark.parametrize("bytes_too", [False, True])
def test_a_mode_change_shows_in_delta_and_diff(api: Path, bytes_too: bool) -> None:
    drafts = _with_scripts(api)
    (drafts / SCRIPT).chmod(0o644)
    _cut(api, "v1")
    commit_all(api, "freeze api_v1")
    (drafts / SCRIPT).chmod(0o755)
    if bytes_too:
        (drafts / SCRIPT).write_text("#!/bin/sh\nexit 1\n")
        (drafts / SCRIPT).chmod(0o755)
    _edit(drafts / "version.yaml", "version: 1\n", "version: 2\n")
    _cut(api, "v2")
    commit_all(api, "freeze api_v2")
    version = api / "versions/api_v2"
    delta = json.loads((version / "delta.json").read_text())
    assert delta["assets"]["changed"] == [SCRIPT]
    assert delta["assets"]["modes"] == {SCRIPT: {"old": "100644", "new": "100755", "bytes_changed": bytes_too}}
    # Delta format 5: the script is a fixture's file, so it moves that fixture (and the fixture set),
    # not the suite's assets dimension.
    assert "assets" not in delta["moved"] and "fixture set" in delta["moved"], delta["moved"]
    assert delta["assets"]["claimed"] == {SCRIPT: ["add-timeout-flag"]}
    # The fixture that names the script changed through it; the other landed fixture did not.
    assert delta["fixtures"]["changed_through_files"] == [{"task_id": "add-timeout-flag", "files": [SCRIPT]}]
    assert "add-timeout-flag" not in delta["fixtures"]["unchanged"]
    shown = "mode 100644 → 100755" + (", new sha256 in the manifest" if bytes_too else "")
    method = (version / "METHOD.md").read_text()
    assert f"- changed `{SCRIPT}` ({shown})" in method, method[method.index("### Assets") :][:400]
    diff = run_inprocess("diff", "api_v1", "api_v2", cwd=api)
    assert diff.code == 0, diff.text
    assert f"  asset changed: {SCRIPT} ({shown})" in diff.out, diff.out
    compared = run_inprocess("compare", "api_v1", "api_v2", "--format", "json", cwd=api)
    assert compared.code == 0, compared.text
    [record, *_] = json.loads(compared.out)["result"]["arms"]
    assert record["classes"] == {"add-timeout-flag": "changed", "explain-pipeline": "unchanged"}
    assert run_inprocess("audit", cwd=api).code == 0  # the recomputed delta and digests agree


def test_a_mode_that_moves_back_is_listed_both_ways(api: Path) -> None:
    drafts = _with_scripts(api)
    _cut(api, "v1")
    (drafts / HELPER).chmod(0o644)
    _edit(drafts / "version.yaml", "version: 1\n", "version: 2\n")
    _cut(api, "v2")
    delta = json.loads((api / "versions/api_v2/delta.json").read_text())
    assert delta["assets"]["modes"] == {HELPER: {"old": "100755", "new": "100644", "bytes_changed": False}}
    manifest = json.loads((api / "versions/api_v2/manifest.json").read_text())
    assert manifest["modes"] == {SCRIPT: "100755"}
    assert stat.S_IMODE((api / "versions/api_v2" / HELPER).stat().st_mode) == 0o444
