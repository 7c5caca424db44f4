"""Issue 25, class 6: ``check`` runs on a new version the code checks that ``audit`` runs.

A new version whose files are consistent (integrity passes) can still be rejected by the audit's
code checks: a tool-surface commit its record does not declare, a pinned SHA the code repository
does not hold. check must reject it too, naming the file; and when it cannot reach the code
repository it must say so, in text and in JSON, never pass in silence.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import assert_clean_failure, run_inprocess
from registry_helpers import code_commit, set_build_sha

SURFACE_FILE = "crates/orbit-graph/src/tools/search.rs"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _draft_v3(reg: Path) -> Path:
    version = reg / "drafts/graph/version.yaml"
    _edit(version, "version: 2\n", "version: 3\n")
    text = version.read_text(encoding="utf-8")
    version.write_text(re.sub(r"tool_surface_commits:\n(?:  .*\n)+", "tool_surface_commits: []\n", text), "utf-8")
    return version


def _forge_v3(reg: Path, hidden: str, dropped_glob: str) -> None:
    """A v3 whose files agree with each other but whose scan skipped ``hidden``: what a cut under
    narrowed globs wrote before the scan kept the previous version's globs (or a hand-made record)."""
    from freezer.domain.manifest import Scan
    from freezer.domain.manifestparts import CodeRepoIdentity
    from freezer.freeze import assemble as assemble_mod
    from freezer.freeze.snapshot import write_version
    from freezer.parse.yamlload import load_file
    from freezer.registry import config as config_mod
    from freezer.registry.model import Suite
    from freezer.registry.record import read_version_files, side
    from freezer.resolve.provenance import ResolvedProvenance

    version = _draft_v3(reg)
    set_build_sha(version, hidden)
    config = reg / "freezer.yaml"
    original = config.read_text(encoding="utf-8")
    _edit(config, f"      - '{dropped_glob}'\n", "")
    cfg = config_mod.load(reg)
    suite = cfg.suite(None)
    v2 = Suite.of(suite).versions()[-1]
    before = v2.manifest_model()
    resolved = ResolvedProvenance(
        before.pinned_sha, hidden, [], Scan(before.scan_tips, (hidden,), suite.tool_surface, True)
    )
    resolved.repo_identity = CodeRepoIdentity.from_data(v2.manifest()["code_repo"])
    resolved.grep = v2.manifest()["checks"]["grep"]
    doc = load_file(version, "version.yaml").document
    assert doc is not None
    drafts = {p.relative_to(suite.drafts).as_posix(): p.read_bytes() for p in suite.drafts.rglob("*.yaml")}
    frozen_v2 = {rel: (v2.path / rel).read_bytes() for rel in v2.manifest()["files"]}
    previous = side(before, *read_version_files(frozen_v2))
    template = (v2.path / "METHOD.md.j2").read_bytes()
    record = assemble_mod.record(suite, 3, doc.data, resolved, v2, template)
    files = assemble_mod.assemble(record, drafts, template, previous, suite.dimensions, read_version_files(drafts))
    write_version(cfg.root, suite.versions / "graph_v3", files)
    config.write_text(original, encoding="utf-8")


@pytest.mark.parametrize(
    ("files", "glob"),
    [
        ({".orbitignore": "target/\nvendor/\n"}, ".orbitignore"),
        ({SURFACE_FILE: "// ranking rewritten\n"}, "crates/orbit-graph/src/tools/**"),
    ],
)
def test_a_new_version_with_an_undeclared_surface_commit_fails_check(
    v2_frozen: Path, files: dict[str, str], glob: str
) -> None:
    hidden = code_commit(v2_frozen, files, "an undeclared surface change")
    config = (v2_frozen / "freezer.yaml").read_text(encoding="utf-8")
    assert f"      - '{glob}'\n" in config, glob
    _forge_v3(v2_frozen, hidden, glob)
    integrity = run_inprocess("check", "--base", "HEAD", "--no-code", cwd=v2_frozen)
    assert "undeclared" not in integrity.text  # the files alone cannot tell
    assert "graph_v3: code: not checked (--no-code)" in integrity.out
    audit = run_inprocess("audit", "v3", cwd=v2_frozen)
    assert_clean_failure(audit)
    result = run_inprocess("check", "--base", "HEAD", cwd=v2_frozen)
    assert_clean_failure(result)
    expected = (
        f"versions/graph_v3/manifest.json: $: new version graph_v3: undeclared tool-surface commit {hidden[:12]} "
        '"an undeclared surface change" in the recorded range'
    )
    assert expected in result.out, result.out
    assert "✗ graph_v3: code: failed" in result.out
    report = json.loads(run_inprocess("check", "--base", "HEAD", "-f", "json", cwd=v2_frozen).out)["result"]
    assert report["code"] == [{"name": "graph_v3", "status": "failed", "detail": "failed"}]
    located = [p for p in report["problems"] if "undeclared tool-surface commit" in p["message"]]
    assert [p["file"] for p in located] == ["versions/graph_v3/manifest.json"]


def test_a_new_version_whose_pin_the_code_repository_lacks_fails_check(v2_frozen: Path, tmp_path: Path) -> None:
    # The code repository is re-cloned without the commits after v1's pin: same repository, v2's pin gone.
    code = v2_frozen / "sample-code"
    v1_pin = json.loads((v2_frozen / "versions/graph_v1/manifest.json").read_text())["pinned_sha"]["full"]
    v2_pin = json.loads((v2_frozen / "versions/graph_v2/manifest.json").read_text())["pinned_sha"]["full"]
    assert v1_pin != v2_pin
    shallow = tmp_path / "older-code"
    subprocess.run(["git", "init", "-q", str(shallow)], check=True)
    subprocess.run(["git", "fetch", "-q", str(code), v1_pin], cwd=shallow, check=True)
    subprocess.run(["git", "checkout", "-q", "FETCH_HEAD"], cwd=shallow, check=True)
    shutil.rmtree(code)
    shallow.rename(code)
    result = run_inprocess("check", "--base", "HEAD~1", cwd=v2_frozen)
    assert_clean_failure(result)
    assert "new version graph_v2:" in result.out and v2_pin[:8] in result.out
    assert "✗ graph_v2: code: failed" in result.out
    assert "✓ graph_v1: code: verified at" in result.out  # v1's pin is there, and verifies


def test_a_valid_new_version_is_verified_against_the_code(v2_frozen: Path) -> None:
    result = run_inprocess("check", "--base", "HEAD~1", cwd=v2_frozen)
    assert result.code == 0, result.text
    pins = [
        json.loads((v2_frozen / f"versions/{n}/manifest.json").read_text())["pinned_sha"]["short"]
        for n in ("graph_v1", "graph_v2")
    ]
    assert f"✓ graph_v1: code: verified at {pins[0]}" in result.out
    assert f"✓ graph_v2: code: verified at {pins[1]}" in result.out
    report = json.loads(run_inprocess("check", "--base", "HEAD~1", "-f", "json", cwd=v2_frozen).out)["result"]
    assert [(c["name"], c["status"]) for c in report["code"]] == [("graph_v1", "verified"), ("graph_v2", "verified")]
    untouched = run_inprocess("check", "--base", "HEAD", cwd=v2_frozen)  # nothing new: nothing to say
    assert untouched.code == 0 and "code:" not in untouched.out


@pytest.mark.parametrize("how", ["missing", "another repository"])
def test_an_unreachable_code_repository_is_said_and_fails_only_under_strict(v2_frozen: Path, how: str) -> None:
    code = v2_frozen / "sample-code"
    shutil.rmtree(code)
    if how == "another repository":
        code.mkdir()
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=code, check=True)
        (code / "README").write_text("not the code under test\n")
        subprocess.run(["git", "add", "-A"], cwd=code, check=True)
        subprocess.run(
            ["git", "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-q", "-m", "other"], cwd=code, check=True
        )
    result = run_inprocess("check", "--base", "HEAD~1", cwd=v2_frozen)
    assert result.code == 0, result.text  # as audit without --strict
    for name in ("graph_v1", "graph_v2"):
        assert f"! {name}: code: unreachable: " in result.out
    if how == "another repository":
        assert "a different repository (root commits differ)" in result.out
    report = json.loads(run_inprocess("check", "--base", "HEAD~1", "-f", "json", cwd=v2_frozen).out)["result"]
    assert {c["status"] for c in report["code"]} == {"unreachable"}
    assert all(c["detail"].startswith("unreachable: ") for c in report["code"])
    strict = run_inprocess("check", "--base", "HEAD~1", "--strict", cwd=v2_frozen)
    assert_clean_failure(strict)
    assert "new version graph_v2: --strict: its code could not be checked (unreachable:" in strict.out
    skipped = run_inprocess("check", "--base", "HEAD~1", "--no-code", "--strict", cwd=v2_frozen)
    assert skipped.code == 0, skipped.text  # --no-code says not to reach it: nothing to fail
    assert "! graph_v2: code: not checked (--no-code)" in skipped.out
