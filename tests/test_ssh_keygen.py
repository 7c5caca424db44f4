"""Who signed is decided by the real ssh-keygen, run as freezer runs git: by absolute path, once per key.

A real registry, real keys and signatures, and a real ``freezer`` process (forked) whose
``PATH`` is chosen: without ssh-keygen it says what to install; a program named
``ssh-keygen`` in the current folder never runs; and a logging front for the real
ssh-keygen counts how often a signature is checked.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import Run, run_forked, run_inprocess
from registry_helpers import public_line

SSH_KEYGEN = shutil.which("ssh-keygen")
pytestmark = pytest.mark.skipif(SSH_KEYGEN is None, reason="ssh-keygen is not installed")
GIT = shutil.which("git")


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> Path:
    """A registry whose graph_v2 alice signed, and alice's key beside it."""
    where = tmp_path_factory.mktemp("ssh-keygen")
    root = where / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    key = where / "alice"
    subprocess.run([SSH_KEYGEN or "", "-q", "-t", "ed25519", "-N", "", "-C", "alice", "-f", str(key)], check=True)
    (root / "allowed_signers").write_text(f"alice@example.org {public_line(key)}\n")
    assert run_inprocess("sign", "graph_v2", "--key", str(key), cwd=root).code == 0
    return root


@pytest.fixture
def reg(signed: Path, tmp_path: Path) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(signed, root, symlinks=True)
    return root


def _freezer(root: Path, path: str, *args: str) -> Run:
    """freezer in a process of its own whose ``PATH`` is ``path``."""
    return run_forked(*args, cwd=root, env={"PATH": path}, timeout=300)


def _bin_with(tmp_path: Path, **programs: str) -> Path:
    """A folder holding git and the given scripts, by name."""
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "git").symlink_to(GIT or "")
    for name, text in programs.items():
        (folder / name.replace("_", "-")).write_text(text)
        (folder / name.replace("_", "-")).chmod(0o755)
    return folder


def test_without_ssh_keygen_verify_says_what_to_install(reg: Path, tmp_path: Path) -> None:
    done = _freezer(reg, str(_bin_with(tmp_path)), "verify", "graph_v2")
    assert done.code == 2, done.err
    assert "ssh-keygen was not found" in done.err and "openssh-client" in done.err
    assert "Traceback" not in done.err + done.out


def test_a_program_named_ssh_keygen_in_the_current_folder_never_runs(reg: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    (reg / "ssh-keygen").write_text(f"#!/bin/sh\ntouch {marker}\nexit 0\n")
    (reg / "ssh-keygen").chmod(0o755)
    real = os.path.dirname(SSH_KEYGEN or "")
    done = _freezer(reg, os.pathsep.join([".", "", real, os.path.dirname(GIT or "")]), "verify", "graph_v2")
    assert done.code == 0 and "signed by alice@example.org" in done.out, done.out + done.err
    assert not marker.exists()


def test_ssh_keygen_checks_each_key_once_however_often_it_signed(reg: Path, tmp_path: Path) -> None:
    log = tmp_path / "calls"
    front = f'#!/bin/sh\necho "$2" >> {log}\nexec {SSH_KEYGEN} "$@"\n'
    path = reg / "signatures/graph_v2.dsse.json"
    envelope = json.loads(path.read_text())
    envelope["signatures"] *= 200  # the same valid signature, again and again
    path.write_text(json.dumps(envelope))
    done = _freezer(reg, str(_bin_with(tmp_path, ssh_keygen=front)), "verify", "graph_v2")
    assert done.code == 0 and "signed by alice@example.org" in done.out, done.out + done.err
    calls = log.read_text().split()
    # One find-principals and one verify for the key; one find-principals reads every line for those it skips.
    assert calls.count("verify") == 1 and calls.count("find-principals") == 2, calls
