"""Issue 16: yank and deprecate, as signed, hash-chained, append-only events."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import subprocess
import warnings
from pathlib import Path

import pytest

from freezer.domain import canonical
from freezer.registry import config as config_mod
from freezer.site import site as site_mod
from freezer.trust import lifecycle, sshsig

from conftest import assert_clean_failure, run_inprocess
from registry_helpers import commit_all, public_line, ssh_key

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")


@pytest.fixture(scope="module")
def demo_root(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> Path:
    root = tmp_path_factory.mktemp("life") / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    return root


@pytest.fixture
def reg(demo_root: Path, tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "demo"
    shutil.copytree(demo_root, root, symlinks=True)
    key = ssh_key(tmp_path / "alice")
    (root / "allowed_signers").write_text(f"alice@example.org {public_line(key)}\n")
    commit_all(root, "allowed signers")
    return root, key


def test_yank_and_deprecate_are_shown_everywhere(reg: tuple[Path, Path]) -> None:
    import freezer

    root, key = reg
    before = {p: p.read_bytes() for p in (root / "versions/graph_v1").rglob("*") if p.is_file()}
    yanked = run_inprocess("yank", "graph_v2", "--reason", "oracle leaks the answer", "--key", str(key), cwd=root)
    assert yanked.code == 0, yanked.text
    assert run_inprocess("deprecate", "graph_v1", "--superseded-by", "graph_v2", "--key", str(key), cwd=root).code == 0
    assert {p: p.read_bytes() for p in (root / "versions/graph_v1").rglob("*") if p.is_file()} == before
    listed = run_inprocess("list", "--suite", "graph", cwd=root).out.splitlines()
    assert listed[1].endswith("deprecated") and listed[2].endswith("yanked")
    shown = run_inprocess("show", "graph_v2", cwd=root)
    assert "⚠ yanked: oracle leaks the answer" in shown.out
    assert "[yanked]" in run_inprocess("log", "--suite", "graph", cwd=root).out
    from freezer.api import YankedWarning

    with pytest.warns(YankedWarning, match="oracle leaks the answer"):
        loaded = freezer.load("graph_v2", registry=root)
    assert loaded.status.status == "yanked"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        latest = freezer.load("latest", registry=root, suite="graph")
    assert latest.name == "graph_v1" and latest.status.superseded_by == "graph_v2"
    assert run_inprocess("audit", "--no-code", cwd=root).code == 0


def test_deprecate_names_a_later_version_and_only_allowed_keys_change_status(
    reg: tuple[Path, Path], tmp_path: Path
) -> None:
    root, key = reg
    backwards = run_inprocess("deprecate", "graph_v2", "--superseded-by", "graph_v1", "--key", str(key), cwd=root)
    assert_clean_failure(backwards, code=2)
    mallory = ssh_key(tmp_path / "mallory")
    refused = run_inprocess("yank", "graph_v1", "--reason", "x", "--key", str(mallory), cwd=root)
    assert_clean_failure(refused, code=2)
    assert "may not change a version's status" in refused.err
    assert not (root / "status.jsonl").exists()


@pytest.mark.parametrize("how", ["edited", "truncated", "deleted", "reordered", "appended by hand"])
def test_check_and_audit_refuse_anything_but_an_append(reg: tuple[Path, Path], how: str) -> None:
    root, key = reg
    for version in ("graph_v1", "api_v1"):
        assert run_inprocess("yank", version, "--reason", "first reason", "--key", str(key), cwd=root).code == 0
    commit_all(root, "yank two")
    log = root / "status.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    if how == "edited":
        log.write_text(lines[0].replace("first reason", "other reason") + lines[1])
    elif how == "truncated":
        log.write_text(lines[0])
    elif how == "deleted":
        log.unlink()
    elif how == "reordered":
        log.write_text(lines[1] + lines[0])
    else:
        log.write_text("".join(lines) + lines[0].replace("first reason", "replayed"))
    checked = run_inprocess("check", "--base", "HEAD", cwd=root)
    assert_clean_failure(checked)
    assert "status.jsonl" in checked.out
    if how != "deleted" and how != "truncated":
        assert_clean_failure(run_inprocess("audit", "--no-code", cwd=root))
    # A real append passes the guard.
    if how == "truncated":
        return
    (root / "status.jsonl").unlink(missing_ok=True)
    subprocess.run(["git", "checkout", "-q", "--", "status.jsonl"], cwd=root, check=True)
    assert run_inprocess("yank", "graph_v2", "--reason", "second", "--key", str(key), cwd=root).code == 0
    assert run_inprocess("check", "--base", "HEAD", cwd=root).code == 0


def test_signing_and_status_commands_print_the_json_document(reg: tuple[Path, Path]) -> None:
    from test_json_output import _document

    root, key = reg
    signed = run_inprocess("sign", "graph_v1", "--key", str(key), "--format", "json", cwd=root)
    assert _document(signed, "sign")["result"]["signature"]["status"] == "signed"
    yanked = run_inprocess("yank", "graph_v1", "--reason", "r", "--key", str(key), "--format", "json", cwd=root)
    assert _document(yanked, "yank")["result"]["event"]["version"] == "graph_v1"
    deprecated = run_inprocess(
        "deprecate", "api_v1", "--superseded-by", "api_v1", "--key", str(key), "--format", "json", cwd=root
    )
    assert _document(deprecated, "deprecate")["error"]["message"]
    checkpoint = run_inprocess("checkpoint", "--key", str(key), "--format", "json", cwd=root)
    assert _document(checkpoint, "checkpoint")["result"]["checkpoint"]["suites"]["graph"]["versions"] == 2


def test_a_second_yank_is_recorded_beside_the_first_and_never_replaces_it(reg: tuple[Path, Path]) -> None:
    """Issue 27 item 7: yanking twice buried the first reason; now both are kept and shown."""
    root, key = reg
    for version, reason in (("graph_v1", "oracle leaks the answer"), ("api_v1", "prompt names the file")):
        assert run_inprocess("yank", version, "--reason", reason, "--key", str(key), cwd=root).code == 0
        again = run_inprocess("yank", version, "--reason", "another reason", "--key", str(key), cwd=root)
        assert again.code == 0, again.text
        shown = run_inprocess("show", version, cwd=root)
        assert f"  ⚠ yanked: {reason}\n" in shown.out
        assert re.search(r"  ⚠ yanked again at 20\d\d-\d\d-\d\dT[\d:]+Z: another reason\n", shown.out), shown.out
        as_json = json.loads(run_inprocess("show", version, "--format", "json", cwd=root).out)
        assert as_json["result"]["status"] == {"status": "yanked", "reason": reason, "superseded_by": None}
        status = lifecycle.statuses(root)[version]
        assert [why for _, why in status.yanks] == [reason, "another reason"]
    assert len((root / "status.jsonl").read_text().splitlines()) == 4
    site_index = site_mod.build(config_mod.load(root))["index.json"].decode()
    assert "oracle leaks the answer" in site_index and "prompt names the file" in site_index


def test_a_log_holding_two_yanks_keeps_the_first_reason(reg: tuple[Path, Path], tmp_path: Path) -> None:
    """A second yank signed outside freezer (by hand, another tool) still cannot replace the first."""
    root, key = reg
    assert run_inprocess("yank", "graph_v2", "--reason", "first reason", "--key", str(key), cwd=root).code == 0
    log = root / "status.jsonl"
    last = log.read_bytes().splitlines()[-1]
    event = {
        "event": "yank",
        "suite": "graph",
        "version": "graph_v2",
        "reason": "second reason",
        "at": "2030-01-01T00:00:00Z",
        "prev": hashlib.sha256(last).hexdigest(),
    }
    blob = sshsig.sign(canonical.compact(event), sshsig.load_private_key(key), lifecycle.NAMESPACE)
    event["sig"] = base64.b64encode(blob).decode()
    log.write_bytes(log.read_bytes() + canonical.log_line(event) + b"\n")
    assert not lifecycle.verify_log(root)
    assert lifecycle.statuses(root)["graph_v2"].reason == "first reason"
    assert "⚠ yanked: first reason" in run_inprocess("show", "graph_v2", cwd=root).out
    shown = json.loads(run_inprocess("show", "graph_v2", "--format", "json", cwd=root).out)
    assert shown["result"]["status"]["reason"] == "first reason"
    site_index = site_mod.build(config_mod.load(root))["index.json"].decode()
    assert "first reason" in site_index and "second reason" not in site_index
