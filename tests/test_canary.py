"""Issue 16: a suite's contamination canary is in every fixture file, drafted and frozen."""

from __future__ import annotations

import json
from pathlib import Path

from test_audit import _rewrite_consistently

from conftest import assert_clean_failure, run_inprocess

CANARY = "canary GUID 1c0d-freezer-test-5e7a"


def test_validate_cut_and_audit_keep_the_canary(reg: Path) -> None:
    config = reg / "freezer.yaml"
    config.write_text(config.read_text().replace("  graph:\n", f"  graph:\n    canary: {CANARY}\n", 1))
    missing = run_inprocess("validate", cwd=reg)
    assert_clean_failure(missing)
    assert "does not carry the suite's canary string" in missing.out
    for fixture in (reg / "drafts/graph/fixtures").glob("*.yaml"):
        fixture.write_text(f"# {CANARY}\n" + fixture.read_text())
    assert run_inprocess("validate", cwd=reg).code == 0
    assert run_inprocess("cut", "v1", cwd=reg).code == 0
    manifest = json.loads((reg / "versions/graph_v1/manifest.json").read_text())
    assert manifest["canary"] == CANARY
    assert run_inprocess("audit", "--no-code", cwd=reg).code == 0
    version = reg / "versions/graph_v1"
    for path in version.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    _rewrite_consistently(version, "fixtures/locate-register-tools.yaml", f"# {CANARY}\n", "")
    audited = run_inprocess("audit", "--no-code", cwd=reg)
    assert_clean_failure(audited)
    assert "fixtures/locate-register-tools.yaml: does not carry the canary string" in audited.out
