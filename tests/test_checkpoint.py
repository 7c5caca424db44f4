"""Issue 16: a signed checkpoint of the chain heads catches rollback, replay included."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

import pytest

from conftest import assert_clean_failure, run_inprocess
from registry_helpers import commit_all, public_line, ssh_key

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")


@pytest.fixture(scope="module")
def demo_root(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> Path:
    root = tmp_path_factory.mktemp("checkpoint") / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    return root


@pytest.fixture
def reg(demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.setenv("FREEZER_STATE_DIR", str(tmp_path / "state"))
    root = tmp_path / "demo"
    shutil.copytree(demo_root, root, symlinks=True)
    key = ssh_key(tmp_path / "alice")
    (root / "allowed_signers").write_text(f"alice@example.org {public_line(key)}\n")
    commit_all(root, "allowed signers")
    return root, key


def _drop_latest(root: Path) -> None:
    shutil.rmtree(root / "versions/graph_v2")


def test_deleting_the_latest_version_is_a_rollback(reg: tuple[Path, Path]) -> None:
    root, key = reg
    made = run_inprocess("checkpoint", "--key", str(key), cwd=root)
    assert made.code == 0, made.text
    assert "✓ graph: 2 version(s) up to graph_v2" in made.out
    assert run_inprocess("audit", "--no-code", cwd=root).code == 0
    commit_all(root, "checkpoint")
    _drop_latest(root)
    audited = run_inprocess("audit", "--no-code", cwd=root)
    assert_clean_failure(audited)
    assert "rollback: the checkpoint says suite graph has 2 version(s) up to graph_v2, but the registry has 1" in (
        audited.out
    )
    # Without the base branch, check still sees it from the checkpoint alone.
    checked = run_inprocess("check", "--base", "HEAD", cwd=root)
    assert_clean_failure(checked)
    assert "rollback" in checked.out


@pytest.mark.parametrize("how", ["edited back", "flipped", "truncated", "deleted", "replayed", "key not allowed"])
def test_tampering_with_the_checkpoint_is_caught(reg: tuple[Path, Path], tmp_path: Path, how: str) -> None:
    root, key = reg
    config = root / "freezer.yaml"
    # An older checkpoint, signed when graph had one version: cut in a registry without graph_v2.
    older = tmp_path / "older"
    shutil.copytree(root, older, symlinks=True)
    _drop_latest(older)
    assert run_inprocess("checkpoint", "--key", str(key), cwd=older).code == 0
    assert run_inprocess("checkpoint", "--key", str(key), cwd=root).code == 0
    assert run_inprocess("audit", "--no-code", cwd=root).code == 0  # this machine now saw 2 versions
    commit_all(root, "checkpoint")
    path = root / "checkpoint.json"
    document = json.loads(path.read_text())
    if how == "edited back":
        _drop_latest(root)
        payload = json.loads(base64.b64decode(document["payload"]))
        payload["suites"]["graph"].update(versions=1, latest="graph_v1")
        document["payload"] = base64.b64encode(json.dumps(payload).encode()).decode()
        path.write_text(json.dumps(document))
    elif how == "flipped":
        document["signature"]["sig"] = document["signature"]["sig"][:-8] + "AAAAAAA="
        path.write_text(json.dumps(document))
    elif how == "truncated":
        path.write_text(path.read_text()[:50])
    elif how == "deleted":
        path.unlink()
    elif how == "replayed":
        _drop_latest(root)
        shutil.copy(older / "checkpoint.json", path)
    else:
        mallory = ssh_key(tmp_path / "mallory")
        (root / "allowed_signers").write_text((root / "allowed_signers").read_text())
        shutil.copy(root / "allowed_signers", tmp_path / "allowed")
        (root / "allowed_signers").write_text(f"mallory@example.org {public_line(mallory)}\n")
        assert run_inprocess("checkpoint", "--key", str(mallory), cwd=root).code == 0
        shutil.copy(tmp_path / "allowed", root / "allowed_signers")
    checked = run_inprocess("check", "--base", "HEAD", cwd=root)
    assert_clean_failure(checked)
    assert "checkpoint.json" in checked.out
    if how != "deleted":
        assert_clean_failure(run_inprocess("audit", "--no-code", cwd=root))
    assert config.exists()


def test_a_checkpoint_never_goes_back(reg: tuple[Path, Path]) -> None:
    root, key = reg
    assert run_inprocess("checkpoint", "--key", str(key), cwd=root).code == 0
    _drop_latest(root)
    refused = run_inprocess("checkpoint", "--key", str(key), cwd=root)
    assert_clean_failure(refused, code=2)
    assert "it may only grow" in refused.err
