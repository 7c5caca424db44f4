"""Issue 27, first week item 5: the README's allowed_signers line lets the key do everything freezer
signs (deprecate included), and a line whose namespaces leave one out says so, not "add a key"."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from freezer.trust import allowed_signers, checkpoint, lifecycle, signing

from conftest import assert_clean_failure, run_inprocess
from doc_pages import page
from registry_helpers import commit_all, public_line, ssh_key

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")


def test_the_namespaces_freezer_signs_in_are_the_ones_the_readme_lists() -> None:
    assert set(allowed_signers.FREEZER_NAMESPACES) == {signing.NAMESPACE, lifecycle.NAMESPACE, checkpoint.NAMESPACE}
    readme = page("docs/signing.md")
    listed = re.search(r'principals \[namespaces="([^"]+)"\]', readme)
    assert listed and set(listed.group(1).split(",")) == set(allowed_signers.FREEZER_NAMESPACES)


@pytest.fixture(scope="module")
def demo_root(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> Path:
    root = tmp_path_factory.mktemp("signers") / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    return root


def _registry(demo_root: Path, tmp_path: Path, options: str) -> tuple[Path, Path]:
    root = tmp_path / "demo"
    shutil.copytree(demo_root, root, symlinks=True)
    key = ssh_key(tmp_path / "alice")
    (root / "allowed_signers").write_text(f"alice@example.org {options}{public_line(key)}\n")
    commit_all(root, "allowed signers")
    return root, key


def test_the_readme_s_namespaces_let_the_key_deprecate_and_yank(demo_root: Path, tmp_path: Path) -> None:
    root, key = _registry(demo_root, tmp_path, 'namespaces="freezer,freezer-status,freezer-checkpoint" ')
    done = run_inprocess("deprecate", "graph_v1", "--superseded-by", "graph_v2", "--key", str(key), cwd=root)
    assert done.code == 0, done.text
    assert run_inprocess("yank", "api_v1", "--reason", "leaks", "--key", str(key), cwd=root).code == 0


@pytest.mark.parametrize("namespaces", ["freezer", "freezer,freezer-checkpoint"])
def test_namespaces_that_leave_out_status_say_so(demo_root: Path, tmp_path: Path, namespaces: str) -> None:
    root, key = _registry(demo_root, tmp_path, f'namespaces="{namespaces}" ')
    refused = run_inprocess("deprecate", "graph_v1", "--superseded-by", "graph_v2", "--key", str(key), cwd=root)
    assert_clean_failure(refused, code=2)
    assert "may not change a version's status" in refused.err
    # ssh-keygen's own reason, at the line it read, and the namespaces that would allow it.
    assert 'allowed_signers:1: key is not permitted for use in signature namespace "freezer-status"' in refused.err
    assert 'namespaces="freezer,freezer-status,freezer-checkpoint"' in refused.err
    assert "is not in allowed_signers" not in refused.err and "add a line for it" not in refused.err
    assert not (root / "status.jsonl").exists()


def test_a_key_in_no_line_is_told_to_add_one(demo_root: Path, tmp_path: Path) -> None:
    root, _ = _registry(demo_root, tmp_path, "")
    other = ssh_key(tmp_path / "mallory")
    refused = run_inprocess("yank", "graph_v1", "--reason", "x", "--key", str(other), cwd=root)
    assert_clean_failure(refused, code=2)
    assert "the key is not in allowed_signers: add a line for it" in refused.err
    assert 'namespaces="freezer,freezer-status,freezer-checkpoint"' in refused.err
