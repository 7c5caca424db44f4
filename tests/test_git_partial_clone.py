"""A registry checked out as a partial clone: what git cannot read is an error, never "nothing frozen".

CI may check a pull request out with ``--filter=blob:none`` (actions/checkout's
``filter``) or ``tree:0``. Then the base's own ``freezer.yaml``, when the change
edits it, is an object the clone never fetched; freezer never fetches, and it
once read the missing config as "no registry in the base", so every frozen
version passed as new and only audited, which a careful forgery of the latest
version survives. Now the check stops with a message saying what is missing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_git_policy import marker_program, plain_git

from conftest import assert_clean_failure, run_inprocess
from registry_helpers import commit_all, make_registry


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A registry with graph_v1 frozen, then a change that edits freezer.yaml and a frozen file."""
    root = make_registry(tmp_path_factory.mktemp("server"), tmp_path_factory.mktemp("cache"))
    assert run_inprocess("cut", "v1", cwd=root).code == 0
    commit_all(root, "freeze v1")
    config = root / "freezer.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "# reviewed\n", encoding="utf-8")
    method = root / "versions/graph_v1/METHOD.md"
    method.chmod(0o644)
    method.write_text(method.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    commit_all(root, "a change")
    plain_git("config", "uploadpack.allowFilter", "true", cwd=root, check=True)
    return root


@pytest.mark.parametrize("spec", ["blob:none", "tree:0"])
def test_a_missing_base_object_fails_closed(server: Path, tmp_path: Path, spec: str) -> None:
    clone = tmp_path / "clone"
    plain_git("clone", "-q", f"--filter={spec}", f"file://{server}", str(clone), cwd=tmp_path, check=True)
    shutil.copytree(server / "sample-code", clone / "sample-code", symlinks=True)
    script, marker = marker_program(tmp_path, spec.replace(":", "-"))
    plain_git("config", "remote.origin.uploadpack", str(script), cwd=clone, check=True)
    result = run_inprocess("check", "--base", "HEAD~1", cwd=clone)
    assert_clean_failure(result)
    assert "freezer never fetches" in result.text, result.text
    assert "new: graph_v1" not in result.text
    assert not marker.exists(), "check fetched the missing object"
    # In a full clone of the same commits the change is reported for what it is.
    full = run_inprocess("check", "--base", "HEAD~1", cwd=server)
    assert_clean_failure(full)
    assert "versions/graph_v1/METHOD.md:1: $: frozen file modified" in full.out
