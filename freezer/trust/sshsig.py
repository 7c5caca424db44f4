"""SSH signatures (OpenSSH's SSHSIG format) with Ed25519 keys, checked against git's allowed_signers.

The format is OpenSSH's PROTOCOL.sshsig, so a signature made here verifies with
``ssh-keygen -Y verify`` and one made by ``ssh-keygen -Y sign`` verifies here:
the key developers already use for git signs benchmark versions, offline.
Only Ed25519 is accepted; it is what ``ssh-keygen -t ed25519`` makes and what
git's SSH signing recommends. Who may sign is decided by ``ssh-keygen`` itself
(:mod:`freezer.trust.allowed_signers`); the cryptography here makes signatures and
refuses forged ones before ssh-keygen is asked about them.
"""

from __future__ import annotations

import base64
import hashlib
import struct
from dataclasses import dataclass
from pathlib import Path

from freezer.domain.errors import UsageError
from freezer.domain.problems import display_path
from freezer.runtime.reading import ReadRefused, read_bounded

MAGIC = b"SSHSIG"
HASH = "sha512"
KEY_TYPE = "ssh-ed25519"
ARMOR_BEGIN = "-----BEGIN SSH SIGNATURE-----"
ARMOR_END = "-----END SSH SIGNATURE-----"
# An OpenSSH Ed25519 private key is about 400 bytes; anything near this is not one.
MAX_KEY_BYTES = 64 << 10


class SignatureError(Exception):
    """A signature that does not verify, with the reason."""


def _string(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data


def _read_string(blob: bytes, offset: int) -> tuple[bytes, int]:
    if offset + 4 > len(blob):
        raise SignatureError("truncated signature")
    (length,) = struct.unpack(">I", blob[offset : offset + 4])
    end = offset + 4 + length
    if end > len(blob):
        raise SignatureError("truncated signature")
    return blob[offset + 4 : end], end


def public_blob(public_line: str) -> bytes:
    """The wire form of an ``ssh-ed25519 AAAA...`` public key."""
    parts = public_line.split()
    if len(parts) < 2 or parts[0] != KEY_TYPE:
        raise SignatureError(f"not an {KEY_TYPE} public key")
    try:
        blob = base64.b64decode(parts[1], validate=True)
    except ValueError:
        raise SignatureError("the public key is not base64") from None
    key_type, offset = _read_string(blob, 0)
    key, offset = _read_string(blob, offset)
    if key_type != KEY_TYPE.encode() or len(key) != 32 or offset != len(blob):
        raise SignatureError(f"not an {KEY_TYPE} public key")
    return blob


def fingerprint(blob: bytes) -> str:
    """``SHA256:...`` as ssh-keygen -l prints it."""
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")


def _signed_data(namespace: str, message: bytes, hash_name: str = HASH) -> bytes:
    """What the key signs: the message's hash, bound to the namespace (PROTOCOL.sshsig)."""
    digest = hashlib.new(hash_name, message).digest()
    return MAGIC + _string(namespace.encode()) + _string(b"") + _string(hash_name.encode()) + _string(digest)


def load_private_key(path: Path) -> object:
    """An unencrypted OpenSSH Ed25519 private key (an agent or a passphrase is for ssh-keygen -Y sign)."""
    # cryptography costs ~20 ms at start-up: only the commands that sign or verify import it.
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import load_ssh_private_key  # (the same)

    shown = display_path(path)
    try:
        data = read_bounded(path, MAX_KEY_BYTES)
    except ReadRefused as exc:
        raise UsageError(f"{shown}: cannot read the key: {exc}") from None
    try:
        key = load_ssh_private_key(data, password=None)
    except TypeError:
        raise UsageError(
            f"{shown}: the key has a passphrase",
            hint="sign with ssh-keygen -Y sign and add the signature with freezer sign --signature FILE",
        ) from None
    except (ValueError, Exception):  # noqa: BLE001 - cryptography raises several types for bad keys
        raise UsageError(f"{shown}: not an OpenSSH private key") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise UsageError(f"{shown}: freezer signs with Ed25519 keys only (ssh-keygen -t ed25519)")
    return key


def sign(message: bytes, key: object, namespace: str) -> bytes:
    """The binary SSHSIG blob over ``message``."""
    # cryptography costs ~20 ms at start-up: only the commands that sign or verify import it.
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat  # (the same)

    assert isinstance(key, Ed25519PrivateKey)
    public = key.public_key().public_bytes(Encoding.OpenSSH, PublicFormat.OpenSSH).decode()
    raw = key.sign(_signed_data(namespace, message))
    signature = _string(KEY_TYPE.encode()) + _string(raw)
    return (
        MAGIC
        + struct.pack(">I", 1)
        + _string(public_blob(public))
        + _string(namespace.encode())
        + _string(b"")
        + _string(HASH.encode())
        + _string(signature)
    )


def armor(blob: bytes) -> str:
    text = base64.b64encode(blob).decode()
    lines = [text[i : i + 70] for i in range(0, len(text), 70)]
    return "\n".join([ARMOR_BEGIN, *lines, ARMOR_END]) + "\n"


def unarmor(text: str) -> bytes:
    body = text.strip()
    if not body.startswith(ARMOR_BEGIN) or not body.endswith(ARMOR_END):
        raise SignatureError("not an armored SSH signature")
    inner = "".join(body[len(ARMOR_BEGIN) : -len(ARMOR_END)].split())
    try:
        return base64.b64decode(inner, validate=True)
    except ValueError:
        raise SignatureError("the signature is not base64") from None


@dataclass(frozen=True)
class Signature:
    """An SSHSIG blob's parts, read but not yet checked."""

    public: bytes  # the signer's public key blob
    namespace: bytes
    hash_name: bytes
    raw: bytes  # the Ed25519 signature


def parse(blob: bytes) -> Signature:
    """The parts of an Ed25519 SSHSIG blob, without any cryptography (so who signed can be checked
    against the allowed signers first); :class:`SignatureError` when it is not one."""
    if not blob.startswith(MAGIC):
        raise SignatureError("not an SSH signature")
    offset = len(MAGIC)
    if offset + 4 > len(blob) or struct.unpack(">I", blob[offset : offset + 4])[0] != 1:
        raise SignatureError("unknown SSH signature version")
    offset += 4
    public, offset = _read_string(blob, offset)
    signed_namespace, offset = _read_string(blob, offset)
    _reserved, offset = _read_string(blob, offset)
    hash_name, offset = _read_string(blob, offset)
    signature, offset = _read_string(blob, offset)
    if offset != len(blob):
        raise SignatureError("trailing bytes after the signature")
    if hash_name not in (b"sha512", b"sha256"):
        raise SignatureError("unknown hash in the signature")
    key_type, inner = _read_string(public, 0)
    key_bytes, inner = _read_string(public, inner)
    sig_type, sig_offset = _read_string(signature, 0)
    raw, sig_offset = _read_string(signature, sig_offset)
    if key_type != KEY_TYPE.encode() or sig_type != KEY_TYPE.encode() or len(key_bytes) != 32 or len(raw) != 64:
        raise SignatureError(f"only {KEY_TYPE} signatures are accepted")
    if inner != len(public) or sig_offset != len(signature):
        raise SignatureError("trailing bytes after the signature")
    return Signature(public, signed_namespace, hash_name, raw)


def verify(message: bytes, blob: bytes, namespace: str) -> bytes:
    """Check ``blob`` over ``message`` in ``namespace``; returns the signer's public key blob."""
    return check(message, parse(blob), namespace)


def check(message: bytes, signature: Signature, namespace: str) -> bytes:
    """The cryptography of :func:`verify`, for a signature already parsed."""
    # cryptography costs ~20 ms at start-up: only the commands that sign or verify import it.
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey  # (the same)

    if signature.namespace.decode(errors="replace") != namespace:
        shown = signature.namespace.decode(errors="replace")
        raise SignatureError(f"signed for namespace {shown!r}, not {namespace!r}")
    key_bytes = _read_string(signature.public, _read_string(signature.public, 0)[1])[0]
    signed = _signed_data(namespace, message, signature.hash_name.decode())
    try:
        Ed25519PublicKey.from_public_bytes(key_bytes).verify(signature.raw, signed)
    except InvalidSignature:
        raise SignatureError("the signature does not match the signed data") from None
    return signature.public
