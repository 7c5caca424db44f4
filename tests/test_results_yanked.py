"""`results check` refuses rows of a yanked version unless told otherwise (issue 25, class 7)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import freezer

from conftest import run_inprocess
from registry_helpers import demo_signed_by_alice

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")


def _rows(root: Path, path: Path) -> Path:
    sha = freezer.load("graph_v1", registry=root).manifest_sha256
    task = freezer.load("graph_v1", registry=root).landed[0]["task_id"]
    rows = [{"manifest_sha256": sha, "task_id": task, "arm": "grep-only", "score": s, "run": f"r{s}"} for s in (0, 1)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_rows_of_a_yanked_version_are_refused(demo_build: Path, tmp_path: Path) -> None:
    root, key = demo_signed_by_alice(tmp_path, demo_build)
    rows = _rows(root, tmp_path / "runs.jsonl")
    before = run_inprocess("results", "check", str(rows), cwd=root)
    assert before.code == 0, before.out
    yanked = run_inprocess("yank", "graph_v1", "--reason", "oracle leaks the answer", "--key", str(key), cwd=root)
    assert yanked.code == 0, yanked.out
    refused = run_inprocess("results", "check", str(rows), cwd=root)
    assert refused.code == 1
    assert "graph_v1, which is yanked (oracle leaks the answer)" in refused.out
    assert "--allow-yanked" in refused.out
    as_json = run_inprocess("results", "check", str(rows), "--format", "json", cwd=root)
    assert as_json.code == 1 and json.loads(as_json.out)["ok"] is False
    allowed = run_inprocess("results", "check", str(rows), "--allow-yanked", cwd=root)
    assert allowed.code == 0, allowed.out


def test_a_deprecated_version_still_pools(demo_build: Path, tmp_path: Path) -> None:
    root, key = demo_signed_by_alice(tmp_path, demo_build)
    rows = _rows(root, tmp_path / "runs.jsonl")
    ran = run_inprocess("deprecate", "graph_v1", "--superseded-by", "graph_v2", "--key", str(key), cwd=root)
    assert ran.code == 0, ran.out
    assert run_inprocess("results", "check", str(rows), cwd=root).code == 0
