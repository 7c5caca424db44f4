"""Issue 23, classes 5 and 7 for signing: allowed_signers, envelopes that lead outside, floods, races.

Each case runs the real CLI on a real demo registry with real keys, and where
the README's consumer check applies, ssh-keygen checks the same thing.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import stat
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from freezer.trust import sshsig
from freezer.trust.signing import MAX_SIGNATURES, envelope_path

from conftest import Run, assert_clean_failure, run_forked, run_forked_together, run_inprocess, sampled_corpus
from registry_helpers import public_line, ssh_key

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")
ALICE = "alice@example.org"


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


def pae_of(root: Path, version: str, where: Path) -> Path:
    path = where / f"{version}.pae"
    ran = run_forked("attest", version, "--pae", cwd=root)
    assert ran.code == 0, ran.err
    path.write_bytes(ran.out_bytes)
    return path


def keygen_accepts(root: Path, entry: dict[str, str], principal: str, pae: Path, where: Path) -> bool:
    """The README's consumer check, for one signature of an envelope."""
    signature = where / "one.sig"
    signature.write_text(sshsig.armor(base64.b64decode(entry["sig"])))
    with pae.open("rb") as message:
        ran = subprocess.run(
            [
                *("ssh-keygen", "-Y", "verify", "-f", str(root / "allowed_signers")),
                *("-I", principal, "-n", "freezer", "-s", str(signature)),
            ],
            stdin=message,
            capture_output=True,
        )
    return ran.returncode == 0


def signed_by(reg: Path, tmp_path: Path) -> Path:
    """graph_v2 signed by alice, who is allowed with a plain line."""
    alice = ssh_key(tmp_path / "alice")
    (reg / "allowed_signers").write_text(f"{ALICE} {public_line(alice)}\n")
    assert run_inprocess("sign", "graph_v2", "--key", str(alice), cwd=reg).code == 0
    assert run_inprocess("verify", "graph_v2", cwd=reg).code == 0
    return alice


# The lines of the issue (and their neighbours): ssh-keygen refuses each, so freezer must.
# Each reason is ssh-keygen's own (OpenSSH 9.2), which freezer now shows as it says it.
REFUSED_LINES = {
    "valid-after month 13": ('valid-after="20261399"', 'invalid "valid-after" time'),
    "valid-after zeros": ('valid-after="00000000"', 'invalid "valid-after" time'),
    "valid-after unquoted": ("valid-after=20261399", "missing start quote"),
    "valid-before day 32": ('valid-before="20260132"', 'invalid "valid-before" time'),
    "command option": ('command="/bin/sh -c id"', "unknown key option"),
    "restrict option": ("restrict", "unknown key option"),
}


@pytest.mark.parametrize("name", sampled_corpus(list(REFUSED_LINES)))
def test_a_line_ssh_keygen_skips_is_reported_and_never_allows(reg: Path, tmp_path: Path, name: str) -> None:
    alice = signed_by(reg, tmp_path)
    options, reason = REFUSED_LINES[name]
    (reg / "allowed_signers").write_text(f"# who may sign\n{ALICE} {options} {public_line(alice)}\n")
    verified = run_inprocess("verify", "graph_v2", cwd=reg)
    assert_clean_failure(verified)
    assert "✗ graph_v2: insufficient" in verified.out or "✗ graph_v2: invalid" in verified.out, verified.out
    assert f"allowed_signers:2: bad options: {reason}" in verified.out, verified.out
    envelope = json.loads((reg / "signatures/graph_v2.dsse.json").read_text())
    pae = pae_of(reg, "graph_v2", tmp_path)
    assert not keygen_accepts(reg, envelope["signatures"][0], ALICE, pae, tmp_path)
    # The same line without the bad option allows the signature, for both.
    (reg / "allowed_signers").write_text(f"{ALICE} {public_line(alice)}\n")
    assert keygen_accepts(reg, envelope["signatures"][0], ALICE, pae, tmp_path)
    assert run_inprocess("verify", "graph_v2", cwd=reg).code == 0


@pytest.mark.parametrize(
    "line", sampled_corpus(["cert-authority", 'cert-authority,namespaces="freezer"', "CERT-AUTHORITY"])
)
def test_a_cert_authority_line_never_allows_a_plain_key(reg: Path, tmp_path: Path, line: str) -> None:
    alice = signed_by(reg, tmp_path)
    (reg / "allowed_signers").write_text(f"{ALICE} {line} {public_line(alice)}\n")
    verified = run_inprocess("verify", "graph_v2", "--format", "json", cwd=reg)
    assert verified.code == 1, verified.text
    [status] = json.loads(verified.out)["result"]["versions"]
    assert status["status"] == "insufficient" and status["signers"] == []
    assert any("ssh-keygen -Y find-principals finds no line" in problem for problem in status["problems"]), status
    envelope = json.loads((reg / "signatures/graph_v2.dsse.json").read_text())
    assert not keygen_accepts(reg, envelope["signatures"][0], ALICE, pae_of(reg, "graph_v2", tmp_path), tmp_path)
    # Nor may the key change a version's status or sign a checkpoint.
    yanked = run_inprocess("yank", "graph_v1", "--reason", "test", "--key", str(alice), cwd=reg)
    assert_clean_failure(yanked, code=2)
    assert not (reg / "status.jsonl").exists()


def test_a_skipped_line_does_not_hide_a_good_one(reg: Path, tmp_path: Path) -> None:
    """As ssh-keygen does, a malformed line is skipped and the next line still counts."""
    alice = signed_by(reg, tmp_path)
    (reg / "allowed_signers").write_text(
        f'{ALICE} command="x" {public_line(alice)}\n{ALICE} valid-after="20200101" {public_line(alice)}\n'
    )
    verified = run_inprocess("verify", "graph_v2", cwd=reg)
    assert verified.code == 0 and "✓ graph_v2: signed by alice@example.org" in verified.out, verified.text
    assert "⚠ allowed_signers:1: bad options: unknown key option" in verified.out, verified.out


def test_principals_are_reported_as_ssh_keygen_matches_them(reg: Path, tmp_path: Path) -> None:
    alice = signed_by(reg, tmp_path)
    (reg / "allowed_signers").write_text(f"!{ALICE},*@example.org {public_line(alice)}\n")
    verified = run_inprocess("verify", "graph_v2", cwd=reg)
    assert verified.code == 0 and "signed by *@example.org" in verified.out, verified.text
    envelope = json.loads((reg / "signatures/graph_v2.dsse.json").read_text())
    pae = pae_of(reg, "graph_v2", tmp_path)
    assert keygen_accepts(reg, envelope["signatures"][0], "*@example.org", pae, tmp_path)
    assert not keygen_accepts(reg, envelope["signatures"][0], ALICE, pae, tmp_path)
    (reg / "allowed_signers").write_text(f"!*,{ALICE} {public_line(alice)}\n")
    refused = run_inprocess("verify", "graph_v2", cwd=reg)
    assert refused.code == 1 and "-I alice@example.org refuses it" in refused.out, refused.text


@pytest.mark.parametrize(
    "how", sampled_corpus(["signatures folder links outside", "envelope links outside", "signatures is a file"])
)
def test_verify_never_reads_signatures_outside_the_registry(reg: Path, tmp_path: Path, how: str) -> None:
    signed_by(reg, tmp_path)
    outside = tmp_path / "outside"
    shutil.copytree(reg / "signatures", outside)
    shutil.rmtree(reg / "signatures")
    if how == "signatures folder links outside":
        (reg / "signatures").symlink_to(outside)
    elif how == "envelope links outside":
        (reg / "signatures").mkdir()
        (reg / "signatures/graph_v2.dsse.json").symlink_to(outside / "graph_v2.dsse.json")
    else:
        (reg / "signatures").write_text("not a folder\n")
    verified = run_inprocess("verify", "graph_v2", cwd=reg)
    assert_clean_failure(verified)
    assert "✗ graph_v2: invalid" in verified.out, verified.out
    assert "signatures" in verified.out and ("link" in verified.out or "not a folder" in verified.out)
    audited = run_inprocess("audit", "--no-code", "--require-signature", "graph_v2", cwd=reg)
    assert_clean_failure(audited)
    # sign refuses to write there, and what lies outside is untouched.
    before = (outside / "graph_v2.dsse.json").read_bytes()
    bob = ssh_key(tmp_path / "bob")
    refused = run_inprocess("sign", "graph_v2", "--key", str(bob), cwd=reg)
    assert refused.code != 0 and "Traceback" not in refused.text, refused.text
    assert (outside / "graph_v2.dsse.json").read_bytes() == before


def test_envelope_names_never_leave_the_signatures_folder(tmp_path: Path) -> None:
    names = ["graph_v2", "../../outside/pwned", "a/b", "..", "CON", "x\ny", "Graph_V2", "graph_v2 "]
    paths = [envelope_path(tmp_path, name) for name in names]
    assert paths[0] == tmp_path / "signatures" / "graph_v2.dsse.json"
    for path in paths:
        assert path.parent == tmp_path / "signatures" and path.name.endswith(".dsse.json")
        assert "/" not in path.name and not path.name.startswith(".")
    assert len(set(paths)) == len(paths)


def _mallory_entries(reg: Path, tmp_path: Path, count: int, spoil: bool) -> list[dict[str, str]]:
    """Signatures over graph_v2's statement by mallory, who is not allowed (spoiled: the
    signature bytes flipped, which only cryptography would notice)."""
    mallory = ssh_key(tmp_path / "mallory")
    message = pae_of(reg, "graph_v2", tmp_path).read_bytes()
    blob = bytearray(sshsig.sign(message, sshsig.load_private_key(mallory), "freezer"))
    if spoil:
        blob[-3] ^= 0xFF
    entry = {"keyid": "SHA256:mallory", "sig": base64.b64encode(bytes(blob)).decode()}
    return [dict(entry) for _ in range(count)]


def test_signatures_by_keys_nobody_allowed_are_refused_before_any_cryptography(reg: Path, tmp_path: Path) -> None:
    signed_by(reg, tmp_path)
    path = reg / "signatures/graph_v2.dsse.json"
    envelope = json.loads(path.read_text())
    envelope["signatures"] += _mallory_entries(reg, tmp_path, MAX_SIGNATURES - 1, spoil=True)
    path.write_text(json.dumps(envelope))
    verified = run_inprocess("verify", "graph_v2", "--format", "json", cwd=reg)
    [status] = json.loads(verified.out)["result"]["versions"]
    # Spoiled, but never checked: the key alone refuses them, so the envelope is not "invalid".
    assert status["status"] == "signed" and status["signers"] == [ALICE], status
    assert len(status["problems"]) == MAX_SIGNATURES - 1
    assert all("is not in allowed_signers" in p and "does not match" not in p for p in status["problems"])


def test_a_flood_of_signatures_is_refused_by_its_count(reg: Path, tmp_path: Path) -> None:
    signed_by(reg, tmp_path)
    path = reg / "signatures/graph_v2.dsse.json"
    envelope = json.loads(path.read_text())
    envelope["signatures"] += _mallory_entries(reg, tmp_path, 150_000, spoil=False)
    path.write_text(json.dumps(envelope))
    small = dict(envelope, signatures=envelope["signatures"][: MAX_SIGNATURES + 1])
    for text in (json.dumps(envelope), json.dumps(small)):
        path.write_text(text)
        verified = run_inprocess("verify", "graph_v2", cwd=reg)
        assert_clean_failure(verified)
        assert "✗ graph_v2: invalid" in verified.out, verified.out
        assert "limit" in verified.out or f"at most {MAX_SIGNATURES}" in verified.out, verified.out


@pytest.mark.parametrize("entry", sampled_corpus([{"sig": "A" * 5000}, {"sig": 5}, "AAAA", {"keyid": "x"}]))
def test_odd_envelope_entries_make_it_invalid(reg: Path, tmp_path: Path, entry: object) -> None:
    signed_by(reg, tmp_path)
    path = reg / "signatures/graph_v2.dsse.json"
    envelope = json.loads(path.read_text())
    envelope["signatures"].append(entry)
    path.write_text(json.dumps(envelope))
    verified = run_inprocess("verify", "graph_v2", cwd=reg)
    assert_clean_failure(verified)
    assert "✗ graph_v2: invalid" in verified.out and "signature 2:" in verified.out, verified.out


def test_a_signature_in_another_namespace_is_invalid(reg: Path, tmp_path: Path) -> None:
    alice = signed_by(reg, tmp_path)
    path = reg / "signatures/graph_v2.dsse.json"
    envelope = json.loads(path.read_text())
    message = pae_of(reg, "graph_v2", tmp_path).read_bytes()
    blob = sshsig.sign(message, sshsig.load_private_key(alice), "git")
    envelope["signatures"].append({"keyid": "x", "sig": base64.b64encode(blob).decode()})
    path.write_text(json.dumps(envelope))
    verified = run_inprocess("verify", "graph_v2", cwd=reg)
    assert_clean_failure(verified)
    assert "signed for namespace 'git'" in verified.out, verified.out


def _signs(reg: Path, keys: list[Path]) -> list[Run]:
    """One real ``freezer sign graph_v2`` process per key, all forked before any is waited for."""
    return run_forked_together(*[["sign", "graph_v2", "--key", str(key)] for key in keys], cwd=reg)


def _race(reg: Path, keys: list[Path]) -> list[tuple[int, str]]:
    return [(ran.code, ran.text) for ran in _signs(reg, keys)]


def test_parallel_signs_keep_every_signature_and_the_mode(reg: Path, tmp_path: Path) -> None:
    keys = [ssh_key(tmp_path / f"s{i}") for i in range(8)]
    (reg / "allowed_signers").write_text("".join(f"s{i}@example.org {public_line(k)}\n" for i, k in enumerate(keys)))
    path = reg / "signatures/graph_v2.dsse.json"
    umask = os.umask(0)
    os.umask(umask)
    expected_mode = 0o666 & ~umask
    for batch in (keys[:4], keys[4:]):
        results = _race(reg, batch)
        assert [code for code, _ in results] == [0, 0, 0, 0], results
        assert stat.S_IMODE(path.stat().st_mode) == expected_mode
        path.chmod(0o640)
        expected_mode = 0o640
    envelope = json.loads(path.read_text())
    assert len(envelope["signatures"]) == 8
    pae = pae_of(reg, "graph_v2", tmp_path)
    for entry in envelope["signatures"]:
        signer = next(i for i, k in enumerate(keys) if entry["keyid"] == _fingerprint(k))
        assert keygen_accepts(reg, entry, f"s{signer}@example.org", pae, tmp_path)
    verified = run_inprocess("verify", "graph_v2", cwd=reg)
    assert verified.code == 0 and verified.out.count("@example.org") == 8, verified.text
    assert not list((reg / "signatures").glob(".*")), "no temporary file is left behind"


def test_sign_waits_for_the_registry_lock(reg: Path, tmp_path: Path) -> None:
    """While another command holds the registry lock, no sign touches the envelope; once it is
    released, every waiting sign adds its signature to the envelope as it then is."""
    from freezer.runtime.lock import registry_lock

    keys = [ssh_key(tmp_path / f"w{i}") for i in range(4)]
    (reg / "allowed_signers").write_text("".join(f"w{i}@example.org {public_line(k)}\n" for i, k in enumerate(keys)))
    path = reg / "signatures/graph_v2.dsse.json"
    with ThreadPoolExecutor(1) as waiter:  # it waits for the signs' processes while this thread holds the lock
        with registry_lock(reg):
            signs = waiter.submit(_race, reg, keys)
            time.sleep(4)
            assert not path.exists(), "a sign wrote the envelope while the registry lock was held"
            assert not signs.done(), signs.result()
        results = signs.result(timeout=120)
    assert [code for code, _ in results] == [0, 0, 0, 0], results
    assert len(json.loads(path.read_text())["signatures"]) == 4


def _fingerprint(key: Path) -> str:
    return sshsig.fingerprint(sshsig.public_blob(public_line(key)))


def test_check_never_reads_committed_envelopes_through_a_link(reg: Path, tmp_path: Path) -> None:
    signed_by(reg, tmp_path)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(reg)]
    subprocess.run([*git, "add", "-A"], check=True, capture_output=True)
    subprocess.run([*git, "commit", "-q", "-m", "signed", "--no-verify"], check=True, capture_output=True)
    assert run_inprocess("check", "--base", "HEAD", cwd=reg).code == 0
    outside = tmp_path / "outside"
    shutil.copytree(reg / "signatures", outside)
    shutil.rmtree(reg / "signatures")
    (reg / "signatures").symlink_to(outside)
    checked = run_inprocess("check", "--base", "HEAD", cwd=reg)
    assert_clean_failure(checked)
    assert "signatures/graph_v2.dsse.json" in checked.out and "link" in checked.out, checked.text
