"""``freezer check`` holds a version new in the change to today's §Delta rule.

A version cut before freezer read the rendered METHOD.md as a viewer does records
``checks.delta_block: 1``; audit keeps such a version as frozen and says once that it hides
§Delta. A hand-written manifest could claim that record for a version it adds, so the version
new in the change is refused, while one frozen in the base keeps auditing as it did.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

from test_delta_block import _resum
from test_delta_shown import _cut, _refreeze_hiding

from freezer.compare.delta import compute
from freezer.domain.canonical import frozen_file
from freezer.registry.record import dimensions_of, load_frozen_drafts, side
from freezer.registry.registry import FrozenVersion
from freezer.render.attest import statement_bytes
from freezer.render.method import method_from_files

from conftest import assert_clean_failure, run_inprocess
from registry_helpers import commit_all, set_drafts


def _hand_write_hiding(reg: Path, number: int) -> None:
    """graph_v<number> rewritten by hand as a freezer before the rule would have cut it: its
    template hides §Delta in a comment, its manifest records checks.delta_block 1, and its
    delta.json (which records the template's change), METHOD.md, statement and SHA256SUMS agree."""
    versions = reg / "versions"
    version = versions / f"graph_v{number}"
    _refreeze_hiding(version, recorded=1)
    manifest = json.loads((version / "manifest.json").read_bytes())
    before, now = (FrozenVersion("graph", n, versions / f"graph_v{n}") for n in (number - 1, number))
    chain = [side(v.manifest_model(), *load_frozen_drafts(v, v.manifest_model())) for v in (before, now)]
    delta = frozen_file(compute(chain, dimensions_of(chain[1].manifest)).to_json())
    (version / "delta.json").write_bytes(delta)
    manifest["files"]["delta.json"] = hashlib.sha256(delta).hexdigest()
    manifest_bytes = frozen_file(manifest)
    (version / "manifest.json").write_bytes(manifest_bytes)
    data = {rel: (version / rel).read_bytes() for rel in manifest["files"]}
    method = method_from_files(data, manifest_bytes, unshown=[]).encode()
    (version / "METHOD.md").write_bytes(method)
    if (version / "provenance.json").exists():
        (version / "provenance.json").write_bytes(statement_bytes(manifest_bytes, method))
    _resum(version)


def _delta_line(version: Path) -> int:
    return (version / "METHOD.md").read_text().split("\n").index("## Delta vs v1") + 1


def test_check_refuses_a_new_version_recorded_before_the_rule_that_hides_delta(reg: Path) -> None:
    _cut(reg, "v1")
    commit_all(reg, "graph_v1")
    set_drafts(reg, "v2")
    _cut(reg, "v2")
    version = reg / "versions/graph_v2"
    _hand_write_hiding(reg, 2)
    subprocess.run(["git", "add", "-A"], cwd=reg, check=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=reg, check=True, capture_output=True, text=True).stdout
    # audit alone lets it stand, as it must for a version frozen before the rule
    assert run_inprocess("audit", "--no-code", "graph_v2", cwd=reg).code == 0
    result = run_inprocess("check", "--base", "HEAD", "--no-code", cwd=reg)
    assert_clean_failure(result)
    problem = [line for line in result.out.splitlines() if "new version graph_v2" in line and "§Delta" in line]
    assert len(problem) == 1, result.text
    assert f"versions/graph_v2/METHOD.md:{_delta_line(version)}" in problem[0], problem[0]
    assert "inside an HTML comment" in problem[0] and "checks.delta_block" in problem[0], problem[0]
    after = subprocess.run(["git", "rev-parse", "HEAD"], cwd=reg, check=True, capture_output=True, text=True).stdout
    assert after == head


def test_check_passes_a_change_over_a_version_the_base_froze_before_the_rule(reg: Path) -> None:
    _cut(reg, "v1")
    _refreeze_hiding(reg / "versions/graph_v1", recorded=1)
    commit_all(reg, "graph_v1, cut before the rule")
    set_drafts(reg, "v2")
    _cut(reg, "v2")
    commit_all(reg, "graph_v2")
    result = run_inprocess("check", "--base", "HEAD~1", "--no-code", cwd=reg)
    assert result.code == 0, result.text
    assert "new: graph_v2" in result.out
    audit = run_inprocess("audit", "--no-code", cwd=reg)
    assert audit.code == 0, audit.text
    assert len([x for x in audit.text.splitlines() if "does not show §Delta" in x]) == 1, audit.text
