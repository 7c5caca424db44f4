"""Issue 16: provenance statements, SSH signatures (both ways with real ssh-keygen), allowed signers."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest

from conftest import REPO, assert_clean_failure, run_forked, run_inprocess
from doc_pages import section
from registry_helpers import public_line, ssh_key

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")


@pytest.fixture(scope="module")
def demo_root(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> Path:
    root = tmp_path_factory.mktemp("signing") / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    return root


@pytest.fixture
def reg(demo_root: Path, tmp_path: Path) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(demo_root, root, symlinks=True)
    return root


def allow(root: Path, *entries: tuple[str, Path, str]) -> None:
    lines = []
    for principal, key, options in entries:
        lines.append(f"{principal} {options} {public_line(key)}".replace("  ", " "))
    (root / "allowed_signers").write_text("\n".join(lines) + "\n")


def test_the_statement_validates_and_names_every_frozen_file(demo_root: Path) -> None:
    schema = json.loads((REPO / "schemas/provenance.schema.json").read_text())
    version = demo_root / "versions/graph_v2"
    statement = json.loads((version / "provenance.json").read_text())
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(statement)) == []
    manifest_bytes = (version / "manifest.json").read_bytes()
    manifest = json.loads(manifest_bytes)
    subjects = {s["name"]: s["digest"]["sha256"] for s in statement["subject"]}
    expected = {f"graph_v2/{rel}": digest for rel, digest in manifest["files"].items()}
    expected["graph_v2/manifest.json"] = hashlib.sha256(manifest_bytes).hexdigest()
    expected["graph_v2/METHOD.md"] = hashlib.sha256((version / "METHOD.md").read_bytes()).hexdigest()
    assert subjects == expected
    dependencies = statement["predicate"]["buildDefinition"]["resolvedDependencies"]
    commits = [d["digest"]["gitCommit"] for d in dependencies if "gitCommit" in d.get("digest", {})]
    assert commits[0] == manifest["pinned_sha"]["full"]
    assert {c["sha"] for c in manifest["tool_surface"]["commits"]} <= set(commits)
    assert dependencies[-1] == {
        "name": "graph_v1/manifest.json",
        "digest": {"sha256": manifest["previous"]["manifest_sha256"]},
    }
    assert statement["predicate"]["runDetails"]["builder"]["version"] == {"freezer": manifest["freezer_version"]}
    printed = run_inprocess("attest", "graph_v2", cwd=demo_root)
    assert printed.out.encode() == (version / "provenance.json").read_bytes()


def _readme_recipe() -> str:
    return section("docs/signing.md", "# Who signed what").split("```sh\n", 1)[1].split("```", 1)[0]


def test_freezer_signs_and_ssh_keygen_verifies_with_the_readme_recipe(reg: Path, tmp_path: Path) -> None:
    alice = ssh_key(tmp_path / "alice")
    allow(reg, ("alice@example.org", alice, 'namespaces="freezer"'))
    signed = run_inprocess("sign", "graph_v2", "--key", str(alice), cwd=reg)
    assert signed.code == 0, signed.text
    assert "verified: signed by alice@example.org" in signed.out
    assert not (reg / "versions/graph_v2/signatures").exists()  # the frozen folder is untouched
    ran = subprocess.run(["bash", "-e", "-c", _readme_recipe()], cwd=reg, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert 'Good "freezer" signature for alice@example.org' in ran.stdout + ran.stderr


def test_ssh_keygen_signs_and_freezer_verifies(reg: Path, tmp_path: Path) -> None:
    bob = ssh_key(tmp_path / "bob", passphrase="secret words")
    allow(reg, ("bob@example.org", bob, ""))
    refused = run_inprocess("sign", "graph_v1", "--key", str(bob), cwd=reg)
    assert_clean_failure(refused, code=2)
    assert "the key has a passphrase" in refused.err
    message = tmp_path / "graph_v1.pae"
    message.write_bytes(run_forked("attest", "graph_v1", "--pae", cwd=reg).out_bytes)
    subprocess.run(
        ["ssh-keygen", "-Y", "sign", "-f", str(bob), "-n", "freezer", "-P", "secret words", str(message)],
        check=True,
        capture_output=True,
    )
    added = run_inprocess("sign", "graph_v1", "--signature", str(message) + ".sig", cwd=reg)
    assert added.code == 0, added.text
    verified = run_inprocess("verify", "graph_v1", cwd=reg)
    assert verified.code == 0 and "✓ graph_v1: signed by bob@example.org" in verified.out
    # A signature over another version's statement is refused as it is added.
    other = run_inprocess("sign", "graph_v2", "--signature", str(message) + ".sig", cwd=reg)
    assert_clean_failure(other)


def test_k_of_n_and_the_limits_of_allowed_signers(reg: Path, tmp_path: Path) -> None:
    alice, bob, carol = (ssh_key(tmp_path / name) for name in ("alice", "bob", "carol"))
    allow(
        reg,
        ("alice@example.org", alice, ""),
        ("bob@example.org", bob, 'valid-before="20200101"'),
        ("carol@example.org", carol, 'namespaces="git"'),
    )
    config = reg / "freezer.yaml"
    config.write_text(config.read_text().replace("  graph:\n", "  graph:\n    signatures_required: 2\n", 1))
    for key in (alice, bob, carol):
        assert run_inprocess("sign", "graph_v2", "--key", str(key), cwd=reg).code == 0
    verified = run_inprocess("verify", "graph_v2", "--format", "json", cwd=reg)
    assert verified.code == 1
    [status] = json.loads(verified.out)["result"]["versions"]
    assert status["status"] == "insufficient" and status["signers"] == ["alice@example.org"]
    # ssh-keygen's own reasons, each at the line of allowed_signers it read.
    assert any("allowed_signers:2: key has expired" in p for p in status["problems"]), status
    assert any(
        'allowed_signers:3: key is not permitted for use in signature namespace "freezer"' in p
        for p in status["problems"]
    ), status
    allow(reg, ("alice@example.org", alice, ""), ("bob@example.org", bob, ""))
    assert (
        "signed by alice@example.org, bob@example.org (2 of 2 required)"
        in run_inprocess("verify", "graph_v2", cwd=reg).out
    )


def _flip_payload(envelope: dict[str, object]) -> None:
    payload = bytearray(base64.b64decode(str(envelope["payload"])))
    payload[40] ^= 1
    envelope["payload"] = base64.b64encode(bytes(payload)).decode()


def _flip_signature(envelope: dict[str, object]) -> None:
    signatures = envelope["signatures"]
    assert isinstance(signatures, list)
    entry: dict[str, str] = signatures[0]
    blob = bytearray(base64.b64decode(entry["sig"]))
    blob[-5] ^= 1
    entry["sig"] = base64.b64encode(bytes(blob)).decode()


TAMPERING: dict[str, Callable[[dict[str, object]], None]] = {
    "payload flipped": _flip_payload,
    "signature flipped": _flip_signature,
    "signature truncated": lambda e: e["signatures"][0].update(sig=e["signatures"][0]["sig"][:40]),  # type: ignore[index]
    "payload type changed": lambda e: e.update(payloadType="text/plain"),
}


@pytest.mark.parametrize("how", [*TAMPERING, "envelope truncated", "envelope deleted", "replayed from graph_v1",
                                 "key not allowed", "provenance.json flipped", "provenance.json truncated",
                                 "provenance.json deleted"])  # fmt: skip
def test_tampering_with_signatures_is_caught(reg: Path, tmp_path: Path, how: str) -> None:
    alice, mallory = ssh_key(tmp_path / "alice"), ssh_key(tmp_path / "mallory")
    allow(reg, ("alice@example.org", alice, ""))
    for version in ("graph_v1", "graph_v2"):
        assert run_inprocess("sign", version, "--key", str(alice), cwd=reg).code == 0
    path = reg / "signatures/graph_v2.dsse.json"
    if how in TAMPERING:
        envelope = json.loads(path.read_text())
        TAMPERING[how](envelope)
        path.write_text(json.dumps(envelope))
    elif how == "envelope truncated":
        path.write_bytes(path.read_bytes()[:100])
    elif how == "envelope deleted":
        path.unlink()
    elif how == "replayed from graph_v1":
        shutil.copy(reg / "signatures/graph_v1.dsse.json", path)
    elif how == "key not allowed":
        path.unlink()
        assert run_inprocess("sign", "graph_v2", "--key", str(mallory), cwd=reg).code == 0
    else:
        statement = reg / "versions/graph_v2/provenance.json"
        statement.chmod(0o644)
        if how.endswith("flipped"):
            statement.write_text(statement.read_text().replace("graph_v2", "graph_v9", 1))
        elif how.endswith("truncated"):
            statement.write_bytes(statement.read_bytes()[:200])
        else:
            statement.unlink()
    verified = run_inprocess("verify", "graph_v2", cwd=reg)
    assert_clean_failure(verified)
    audited = run_inprocess("audit", "--no-code", "--require-signature", "graph_v2", cwd=reg)
    assert_clean_failure(audited)
    assert run_inprocess("verify", "graph_v1", cwd=reg).code == 0  # the other version is unaffected


def test_audit_reports_signatures_and_requires_them_on_demand(reg: Path, tmp_path: Path) -> None:
    plain = run_inprocess("audit", "--no-code", cwd=reg)
    assert plain.code == 0 and "signature: unsigned" in plain.out
    required = run_inprocess("audit", "--no-code", "--require-signature", cwd=reg)
    assert_clean_failure(required)
    frozen = sum(1 for path in (reg / "versions").iterdir() if (path / "manifest.json").is_file())
    assert frozen >= 7  # graph v1/v2, api, tb, swe, bbh v1/v2
    assert required.out.splitlines()[-1] == f"✗ audited {frozen} version(s): {frozen} not signed"


@pytest.mark.parametrize("how", ["deleted", "signature removed", "payload swapped"])
def test_check_keeps_committed_signatures(reg: Path, tmp_path: Path, how: str) -> None:
    from registry_helpers import commit_all

    alice, bob = ssh_key(tmp_path / "alice"), ssh_key(tmp_path / "bob")
    allow(reg, ("alice@example.org", alice, ""), ("bob@example.org", bob, ""))
    for key in (alice, bob):
        assert run_inprocess("sign", "graph_v2", "--key", str(key), cwd=reg).code == 0
    assert run_inprocess("sign", "graph_v1", "--key", str(alice), cwd=reg).code == 0
    commit_all(reg, "signatures")
    path = reg / "signatures/graph_v2.dsse.json"
    if how == "deleted":
        path.unlink()
    elif how == "signature removed":
        envelope = json.loads(path.read_text())
        envelope["signatures"] = envelope["signatures"][1:]
        path.write_text(json.dumps(envelope))
    else:
        shutil.copy(reg / "signatures/graph_v1.dsse.json", path)
    checked = run_inprocess("check", "--base", "HEAD", cwd=reg)
    assert_clean_failure(checked)
    assert "signatures/graph_v2.dsse.json" in checked.out
    # Adding a signature is what the guard allows.
    subprocess.run(["git", "checkout", "-q", "--", "signatures"], cwd=reg, check=True)
    carol = ssh_key(tmp_path / "carol")
    allow(reg, ("alice@example.org", alice, ""), ("bob@example.org", bob, ""), ("carol@example.org", carol, ""))
    assert run_inprocess("sign", "graph_v2", "--key", str(carol), cwd=reg).code == 0
    assert run_inprocess("check", "--base", "HEAD", cwd=reg).code == 0


DEEP = "[" * 100_000 + "]" * 100_000
HOSTILE = {
    "allowed_signers": ["x", "a@b ssh-ed25519 !!!", 'a@b valid-after="2020" ssh-ed25519 AAAA', "\x00\xff" * 50],
    "signatures/graph_v2.dsse.json": [DEEP, "[]", '{"payload": 1, "signatures": {}}',
                                      '{"payload": "", "signatures": [1, {"sig": []}]}'],
    "status.jsonl": [DEEP, "[]\n{}\n", '{"event": "yank", "sig": "!!", "version": []}\n', "\xff\xfe"],
    "checkpoint.json": [DEEP, '{"payload": "e30=", "signature": []}', '{"payload": "W10=", "signature": {"sig": 5}}'],
}  # fmt: skip
CASES = [(name, index) for name, texts in HOSTILE.items() for index in range(len(texts))]


@pytest.mark.parametrize(("name", "index"), CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_hostile_signing_files_never_crash(reg: Path, tmp_path: Path, name: str, index: int) -> None:
    alice = ssh_key(tmp_path / "alice")
    allow(reg, ("alice@example.org", alice, ""))
    target = reg / name
    target.parent.mkdir(exist_ok=True)
    target.write_text(HOSTILE[name][index], encoding="utf-8", errors="surrogateescape")
    for args in (["verify"], ["audit", "--no-code"], ["check"], ["list"], ["sign", "graph_v1", "--key", str(alice)]):
        result = run_inprocess(*args, cwd=reg)
        assert "internal error" not in result.err and "Traceback" not in result.err, (args, result.err)
        assert result.code in (0, 1, 2)


@pytest.mark.parametrize(
    "name", ["signatures/graph_v2.dsse.json", "status.jsonl", "checkpoint.json", "allowed_signers"]
)
@pytest.mark.parametrize("kind", ["fifo", "link to /dev/zero", "link outside"])
def test_special_files_are_refused_not_read(reg: Path, tmp_path: Path, name: str, kind: str) -> None:
    import os

    from registry_helpers import commit_all

    alice = ssh_key(tmp_path / "alice")
    allow(reg, ("alice@example.org", alice, ""))
    assert run_inprocess("sign", "graph_v2", "--key", str(alice), cwd=reg).code == 0
    commit_all(reg, "signed")
    target = reg / name
    target.unlink(missing_ok=True)
    target.parent.mkdir(exist_ok=True)
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "link to /dev/zero":
        target.symlink_to("/dev/zero")
    else:
        outside = tmp_path / "outside.json"
        outside.write_text("{}")
        target.symlink_to(outside)
    for args in (["check", "--base", "HEAD"], ["verify"], ["audit", "--no-code"]):
        result = run_inprocess(*args, cwd=reg, timeout=60)
        assert "internal error" not in result.err and "Traceback" not in result.err, (args, result.err)
        assert result.code in (0, 1, 2), (args, result.text)
    # check guards the envelopes, the log and the checkpoint; who may sign is verify's to read.
    guard = ["verify"] if name == "allowed_signers" else ["check", "--base", "HEAD"]
    refused = run_inprocess(*guard, cwd=reg, timeout=60)
    assert refused.code != 0, refused.text
