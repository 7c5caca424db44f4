"""allowed_signers by the real ssh-keygen: a differential test over a corpus of lines.

Issue 23, class 7. freezer said "signed" where ``ssh-keygen -Y verify`` (the
README's own consumer check) refuses: a ``cert-authority`` line, a line with
``command="…"``; and ``valid-after="20261399"`` crashed it. Every case of
``tests/hostile/allowed_signers_files.py`` is one allowed_signers file; for each probe
(principal, namespace, verify time) the test asks ``ssh-keygen -Y verify -I
PRINCIPAL -n NAMESPACE -O verify-time=TIME`` over a real signature and
freezer's reading of the same file, and requires the same answer; the lines
ssh-keygen calls malformed must be exactly the lines freezer reports, each as
``allowed_signers:LINE: …``. freezer's own verdict (no principal given) must
name only principals for which ssh-keygen accepts. The run is in a time zone
other than UTC, so local and ``Z`` times differ.
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import struct
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from hostile.allowed_signers_files import CASES, NAMESPACES, PRINCIPALS, TIMES, SignersCase, generated

from freezer.trust import allowed_signers, sshsig
from freezer.trust.sshgrammar import absolute_time

# Slow (about 1,200 ssh-keygen runs): CI runs it; `pytest -m slow` runs it here.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed"),
]
MALFORMED = re.compile(r":(\d+): (invalid line|invalid options|missing key|invalid key|bad options)")


@dataclass(frozen=True)
class Material:
    folder: Path
    message: Path
    signatures: dict[str, Path]
    public: bytes  # the signer's key blob
    replacements: dict[bytes, bytes]


def _string(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data


def _key_variants(public: bytes) -> dict[bytes, bytes]:
    """The signer's key blob, spoiled or disguised in the ways the corpus names."""
    raw = public[-32:]
    a64 = base64.b64encode(public)
    return {
        b"<A64:truncated>": a64[:-8],
        b"<A64:formfeed>": a64[:20] + b"\f" + a64[20:],
        b"<A64:cr>": a64[:30] + b"\r" + a64[30:],
        b"<A64:shortname>": base64.b64encode(_string(b"ED25519") + _string(raw)),
        b"<A64:nul>": base64.b64encode(_string(b"ssh-ed25519\x00") + _string(raw)),
        b"<A64:extra>": base64.b64encode(public + b"\x00"),
        b"<A64:short-key>": base64.b64encode(_string(b"ssh-ed25519") + _string(raw[:31])),
        b"<A64>": a64,
    }


def _keygen(folder: Path, name: str, kind: str = "ed25519", bits: str = "") -> bytes:
    args = ["ssh-keygen", "-q", "-t", kind, *(["-b", bits] if bits else []), "-N", "", "-C", name]
    subprocess.run([*args, "-f", str(folder / name)], check=True)
    return b" ".join((folder / f"{name}.pub").read_bytes().split()[:2])


@pytest.fixture(scope="module", autouse=True)
def new_york() -> Iterator[None]:
    """A time zone with an offset, for ssh-keygen (inherited) and for freezer (this process)."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = "America/New_York"
    time.tzset()
    yield
    if before is None:
        os.environ.pop("TZ", None)
    else:
        os.environ["TZ"] = before
    time.tzset()


@pytest.fixture(scope="module")
def material(tmp_path_factory: pytest.TempPathFactory) -> Material:
    folder = tmp_path_factory.mktemp("signers")
    alice = _keygen(folder, "alice")
    replacements = {
        b"<A>": alice,
        b"<B>": _keygen(folder, "bob"),
        b"<RSA>": _keygen(folder, "rsa", "rsa", "2048"),
        b"<ECDSA>": _keygen(folder, "ecdsa", "ecdsa", "256"),
    }
    message = folder / "message"
    message.write_bytes(b"DSSEv1 a message to sign\n")
    signatures = {}
    for namespace in NAMESPACES:
        signed = folder / f"message.{namespace}"
        shutil.copy(message, signed)
        subprocess.run(["ssh-keygen", "-q", "-Y", "sign", "-f", str(folder / "alice"), "-n", namespace, str(signed)])
        signatures[namespace] = folder / f"message.{namespace}.sig"
    public = sshsig.public_blob(alice.decode())
    return Material(folder, message, signatures, public, {**_key_variants(public), **replacements})


def _text(case: SignersCase, material: Material) -> bytes:
    text = case.text
    for token, value in material.replacements.items():
        text = text.replace(token, value)
    return text


def _ssh_keygen(material: Material, path: Path, principal: str, namespace: str, when: str) -> tuple[bool, str]:
    with material.message.open("rb") as message:
        ran = subprocess.run(
            [
                *("ssh-keygen", "-Y", "verify", "-f", str(path), "-I", principal, "-n", namespace),
                *("-s", str(material.signatures[namespace]), "-O", f"verify-time={when}"),
            ],
            stdin=message,
            capture_output=True,
            timeout=60,
        )
    return ran.returncode == 0, ran.stderr.decode("utf-8", errors="replace")


def _moment(when: str) -> int:
    moment = absolute_time(when.encode())
    assert moment is not None
    return moment


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_freezer_reads_allowed_signers_as_ssh_keygen_does(
    case: SignersCase, material: Material, tmp_path: Path
) -> None:
    text = _text(case, material)
    path = tmp_path / "allowed_signers"
    path.write_bytes(text)
    probes = [(p, n, t) for p in PRINCIPALS for n in NAMESPACES for t in TIMES] + list(case.probes)
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = list(pool.map(lambda probe: _ssh_keygen(material, path, *probe), probes))
    parsed = allowed_signers.parse(text)
    for (principal, namespace, when), (keygen, _) in zip(probes, answers, strict=True):
        mine = parsed.allows(material.public, namespace, _moment(when), principal)
        if case.stricter:
            assert not mine, (principal, namespace, when)
        else:
            assert mine == keygen, f"-I {principal!r} -n {namespace} at {when}: ssh-keygen {keygen}, freezer {mine}"
    # The lines ssh-keygen calls malformed are the lines freezer reports, located.
    theirs = {int(m.group(1)) for _, err in answers for m in MALFORMED.finditer(err)}
    located = {p.line for p in parsed.problems}
    assert all(p.location() == f"allowed_signers:{p.line}" and p.message for p in parsed.problems)
    assert theirs <= located, (theirs, [str(p) for p in parsed.problems])
    if case.stricter:
        assert located, "a line freezer refuses on purpose is still reported"
    else:
        assert located <= theirs, [str(p) for p in parsed.problems]
    # freezer's own verdict names only principals that ssh-keygen accepts.
    for namespace in NAMESPACES:
        for when in TIMES:
            named = {p for e in parsed.usable(material.public, namespace, _moment(when)) for p in e.principals}
            for principal in sorted(named)[:3]:
                assert _ssh_keygen(material, path, principal, namespace, when)[0], (principal, namespace, when)
            accepted = any(
                ok for (p, n, t), (ok, _) in zip(probes, answers, strict=True) if (n, t) == (namespace, when)
            )
            if accepted and not case.stricter:
                assert named, f"ssh-keygen accepts a principal in {namespace} at {when}; freezer names none"


def test_generated_lines_agree_with_ssh_keygen(material: Material, tmp_path: Path) -> None:
    """400 lines from the grammar's parts, spoiled at random (seeded), one file each."""
    lines = generated(material.replacements[b"<A>"], 400, seed=23)
    when = "20260601000000Z"

    def both(index: int) -> tuple[bytes, bool, bool]:
        path = tmp_path / f"allowed_signers.{index}"
        path.write_bytes(lines[index])
        theirs = _ssh_keygen(material, path, PRINCIPALS[0], "freezer", when)[0]
        mine = allowed_signers.parse(lines[index]).allows(material.public, "freezer", _moment(when), PRINCIPALS[0])
        return lines[index], theirs, mine

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(both, range(len(lines))))
    # A carriage return before the principals is the one spoiling where OpenSSH 9 and 10 differ.
    differ = [r for r in results if r[1] != r[2] and not (r[0].lstrip(b" \t").startswith(b"\r") and not r[2])]
    assert differ == []
    assert sum(theirs for _, theirs, _ in results) >= 20  # the corpus does reach allowed lines


def test_the_corpus_is_large_and_varied() -> None:
    assert len(CASES) >= 60
    assert len({c.id for c in CASES}) == len(CASES)
    joined = b"\n".join(c.text for c in CASES)
    for needle in (b"cert-authority", b"command=", b"valid-after", b"valid-before", b"namespaces", b"!", b"*", b"\r\n"):
        assert needle in joined
