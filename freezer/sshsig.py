"""SSH signatures (OpenSSH's SSHSIG format) with Ed25519 keys, and git's allowed_signers file.

The format is OpenSSH's PROTOCOL.sshsig, so a signature made here verifies with
``ssh-keygen -Y verify`` and one made by ``ssh-keygen -Y sign`` verifies here:
the key developers already use for git signs benchmark versions, offline.
Only Ed25519 is accepted; it is what ``ssh-keygen -t ed25519`` makes and what
git's SSH signing recommends.
"""

from __future__ import annotations

import base64
import hashlib
import re
import struct
import time
from dataclasses import dataclass
from pathlib import Path

from freezer.errors import InvalidInput, UsageError
from freezer.problems import Problem, display_path
from freezer.reading import read_whole

MAGIC = b"SSHSIG"
HASH = "sha512"
KEY_TYPE = "ssh-ed25519"
ARMOR_BEGIN = "-----BEGIN SSH SIGNATURE-----"
ARMOR_END = "-----END SSH SIGNATURE-----"


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
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import load_ssh_private_key

    shown = display_path(path)
    try:
        data = read_whole(path)
    except OSError as exc:
        raise UsageError(f"{shown}: cannot read the key: {exc.strerror or exc}") from None
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
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

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


def verify(message: bytes, blob: bytes, namespace: str) -> bytes:
    """Check ``blob`` over ``message`` in ``namespace``; returns the signer's public key blob."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

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
    if signed_namespace.decode(errors="replace") != namespace:
        raise SignatureError(f"signed for namespace {signed_namespace.decode(errors='replace')!r}, not {namespace!r}")
    if hash_name not in (b"sha512", b"sha256"):
        raise SignatureError("unknown hash in the signature")
    key_type, inner = _read_string(public, 0)
    key_bytes, _ = _read_string(public, inner)
    sig_type, sig_offset = _read_string(signature, 0)
    raw, _ = _read_string(signature, sig_offset)
    if key_type != KEY_TYPE.encode() or sig_type != KEY_TYPE.encode() or len(key_bytes) != 32:
        raise SignatureError(f"only {KEY_TYPE} signatures are accepted")
    try:
        Ed25519PublicKey.from_public_bytes(key_bytes).verify(raw, _signed_data(namespace, message, hash_name.decode()))
    except InvalidSignature:
        raise SignatureError("the signature does not match the signed data") from None
    return public


@dataclass(frozen=True)
class AllowedSigner:
    principals: tuple[str, ...]
    key: bytes  # public key blob
    namespaces: tuple[str, ...] | None  # None: any
    valid_after: float | None
    valid_before: float | None
    line: int

    def allows(self, namespace: str, when: float) -> str | None:
        """Why this entry does not allow a signature in ``namespace`` at ``when`` (None: it does)."""
        if self.namespaces is not None and not any(_glob(p, namespace) for p in self.namespaces):
            return f"allowed_signers line {self.line} limits the key to namespaces {', '.join(self.namespaces)}"
        if self.valid_after is not None and when < self.valid_after:
            return f"allowed_signers line {self.line}: the key is not valid yet (valid-after)"
        if self.valid_before is not None and when >= self.valid_before:
            return f"allowed_signers line {self.line}: the key expired (valid-before)"
        return None


def _glob(pattern: str, text: str) -> bool:
    import fnmatch

    return fnmatch.fnmatchcase(text, pattern)


_OPTION = re.compile(r'([A-Za-z-]+)(?:="([^"]*)"|=([^\s,]*))?')


def _timestamp(value: str) -> float | None:
    """git/ssh-keygen's YYYYMMDD[HHMM[SS]] (local time, or UTC with a trailing Z)."""
    utc = value.endswith("Z")
    digits = value[:-1] if utc else value
    formats = {8: "%Y%m%d", 12: "%Y%m%d%H%M", 14: "%Y%m%d%H%M%S"}
    if not digits.isdigit() or len(digits) not in formats:
        return None
    import calendar

    parsed = time.strptime(digits, formats[len(digits)])
    return float(calendar.timegm(parsed) if utc else time.mktime(parsed))


ALLOWED_SIGNERS = "allowed_signers"


def registry_signers(root: Path) -> list[AllowedSigner]:
    """The registry's ``allowed_signers`` (none when it has no such file)."""
    path = root / ALLOWED_SIGNERS
    if not path.exists() and not path.is_symlink():
        return []
    return parse_allowed_signers(path)


def permits(signers: list[AllowedSigner], public: bytes, namespace: str, when: float | None = None) -> bool:
    """Whether some entry allows key ``public`` to sign in ``namespace`` at ``when`` (default: now)."""
    moment = time.time() if when is None else when
    return any(entry.key == public and entry.allows(namespace, moment) is None for entry in signers)


def parse_allowed_signers(path: Path) -> list[AllowedSigner]:
    """git's allowed_signers format: ``principals [options] keytype base64 [comment]``."""
    shown = display_path(path)
    try:
        text = read_whole(path).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{shown}: cannot read the allowed signers: {exc}") from None
    signers, problems = [], []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        principals, _, rest = line.partition(" ")
        rest = rest.strip()
        options: dict[str, str | None] = {}
        if rest and not rest.startswith(("ssh-", "ecdsa-", "sk-")):
            option_text, _, rest = rest.partition(" ")
            for match in _OPTION.finditer(option_text):
                options[match.group(1).lower()] = match.group(2) if match.group(2) is not None else match.group(3)
        try:
            key = public_blob(rest.strip())
        except SignatureError as exc:
            problems.append(Problem(shown, number, None, (), f"{exc} (only {KEY_TYPE} keys are used)", "signers"))
            continue
        times = {}
        for name in ("valid-after", "valid-before"):
            value = options.get(name)
            if value is not None:
                times[name] = _timestamp(value)
                if times[name] is None:
                    problems.append(
                        Problem(shown, number, None, (), f"{name}={value!r} is not YYYYMMDD[HHMM[SS]]", "signers")
                    )
        namespaces = options.get("namespaces")
        signers.append(
            AllowedSigner(
                tuple(principals.split(",")),
                key,
                tuple(namespaces.split(",")) if namespaces else None,
                times.get("valid-after"),
                times.get("valid-before"),
                number,
            )
        )
    if problems:
        raise InvalidInput(f"{shown}: the allowed signers file is invalid", problems)
    return signers
