"""Signing frozen versions: DSSE envelopes over the provenance statement, with SSH keys.

A version's envelope lives at ``signatures/<name>.dsse.json`` in the registry,
outside the frozen folder, so signers can be added without changing the
version. Its payload is the version's provenance statement, re-derived from
the frozen, hash-checked files; each signature is an SSHSIG (namespace
``freezer``) over DSSE's pre-authentication encoding, so ``ssh-keygen -Y
verify`` checks it too. Who may sign is git's ``allowed_signers`` file at the
registry root; a suite may require several distinct signers
(``signatures_required`` in freezer.yaml).
"""

from __future__ import annotations

import base64
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from freezer import attest, audit, registry, sshsig
from freezer.attest import SIGNATURES
from freezer.config import RegistryConfig, SuiteConfig
from freezer.errors import IntegrityError, UsageError
from freezer.paths import replace_file, require_safe
from freezer.problems import display_path
from freezer.reading import read_whole

NAMESPACE = "freezer"
ALLOWED_SIGNERS = sshsig.ALLOWED_SIGNERS


def envelope_path(root: Path, name: str) -> Path:
    return root / SIGNATURES / f"{name}.dsse.json"


def statement_of(suite: SuiteConfig, frozen: registry.FrozenVersion) -> bytes:
    """The statement of a version whose files match their hashes (refused otherwise)."""
    check, _ = audit.integrity(suite, frozen, deep=False)
    if check.failures:
        listed = "; ".join(str(f) for f in check.failures[:3])
        raise IntegrityError(f"{frozen.name} fails its integrity check ({listed})", hint="run freezer audit")
    return attest.statement_bytes(frozen.manifest_bytes(), read_whole(frozen.path / registry.METHOD))


def _read_envelope(path: Path) -> dict[str, Any]:
    try:
        loaded = json.loads(read_whole(path))
    except (OSError, ValueError, RecursionError) as exc:
        raise IntegrityError(f"{display_path(path)}: not a readable DSSE envelope ({exc})") from None
    if (
        not isinstance(loaded, dict)
        or not isinstance(loaded.get("payload"), str)
        or not isinstance(loaded.get("signatures"), list)
    ):
        raise IntegrityError(f"{display_path(path)}: not a DSSE envelope (payload and signatures are required)")
    return loaded


def signed_message(suite: SuiteConfig, frozen: registry.FrozenVersion) -> bytes:
    """The bytes a signature signs: DSSE's encoding of the statement (for ssh-keygen -Y sign)."""
    return attest.pae(attest.PAYLOAD_TYPE, statement_of(suite, frozen))


def sign(
    config: RegistryConfig,
    suite: SuiteConfig,
    frozen: registry.FrozenVersion,
    key_path: Path | None = None,
    signature_path: Path | None = None,
) -> str:
    """Add a signature to the version's envelope, made here with ``key_path`` or made elsewhere
    (``ssh-keygen -Y sign -n freezer`` over :func:`signed_message`) and read from ``signature_path``.
    Returns the key's fingerprint."""
    payload = statement_of(suite, frozen)
    message = attest.pae(attest.PAYLOAD_TYPE, payload)
    if signature_path is not None:
        try:
            blob = sshsig.unarmor(read_whole(signature_path).decode("utf-8", errors="replace"))
        except (OSError, sshsig.SignatureError) as exc:
            raise UsageError(f"{display_path(signature_path)}: {exc}") from None
    elif key_path is not None:
        blob = sshsig.sign(message, sshsig.load_private_key(key_path), NAMESPACE)
    else:
        raise UsageError("give --key KEY, or --signature FILE made by ssh-keygen -Y sign -n freezer")
    try:
        public = sshsig.verify(message, blob, NAMESPACE)
    except sshsig.SignatureError as exc:
        raise IntegrityError(f"the signature does not verify over {frozen.name}'s statement: {exc}") from None
    keyid = sshsig.fingerprint(public)
    path = require_safe(config.root, envelope_path(config.root, frozen.name), "the signature file", folder=False)
    encoded = base64.b64encode(payload).decode()
    envelope: dict[str, Any] = {"payloadType": attest.PAYLOAD_TYPE, "payload": encoded, "signatures": []}
    if path.exists():
        envelope = _read_envelope(path)
        if envelope["payload"] != encoded:
            raise IntegrityError(
                f"{display_path(path)} signs another statement than {frozen.name}'s",
                hint="restore it from git; a frozen version's statement never changes",
            )
        if any(s.get("keyid") == keyid for s in envelope["signatures"] if isinstance(s, dict)):
            raise UsageError(f"{frozen.name} is already signed by {keyid}")
    envelope["signatures"].append({"keyid": keyid, "sig": base64.b64encode(blob).decode()})
    replace_file(config.root, path, json.dumps(envelope, indent=2, sort_keys=True) + "\n", "the signature file")
    return keyid


@dataclass
class SignatureStatus:
    """What a version's signatures prove."""

    version: str
    status: str  # "signed", "unsigned", "insufficient" or "invalid"
    required: int
    signers: list[str] = field(default_factory=list)  # principals of the valid signatures
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "signed"

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def verify(
    config: RegistryConfig, suite: SuiteConfig, frozen: registry.FrozenVersion, now: float | None = None
) -> SignatureStatus:
    result = SignatureStatus(frozen.name, "unsigned", suite.signatures_required)
    path = envelope_path(config.root, frozen.name)
    if not path.exists() and not path.is_symlink():
        return result
    try:
        envelope = _read_envelope(path)
        payload = statement_of(suite, frozen)
    except IntegrityError as exc:
        return _invalid(result, exc.message)
    if envelope.get("payloadType") != attest.PAYLOAD_TYPE:
        return _invalid(result, f"{display_path(path)}: payloadType is not {attest.PAYLOAD_TYPE}")
    try:
        signed = base64.b64decode(envelope["payload"], validate=True)
    except ValueError:
        return _invalid(result, f"{display_path(path)}: the payload is not base64")
    if signed != payload:
        return _invalid(result, f"{display_path(path)}: signs another statement than {frozen.name}'s")
    allowed = sshsig.registry_signers(config.root)
    if not allowed:
        return _invalid(result, f"no key in {ALLOWED_SIGNERS} at the registry root: nobody is allowed to sign")
    when = time.time() if now is None else now
    message = attest.pae(attest.PAYLOAD_TYPE, payload)
    valid_keys: set[bytes] = set()
    forged = False
    for index, entry in enumerate(envelope["signatures"]):
        try:
            blob = base64.b64decode(entry["sig"], validate=True)
            public = sshsig.verify(message, blob, NAMESPACE)
        except (sshsig.SignatureError, ValueError, KeyError, TypeError) as exc:
            # A signature that does not verify is damage or forgery, whatever the others say.
            forged = True
            result.problems.append(f"signature {index + 1}: {exc}")
            continue
        matches = [a for a in allowed if a.key == public]
        if not matches:
            result.problems.append(
                f"signature {index + 1}: key {sshsig.fingerprint(public)} is not in {ALLOWED_SIGNERS}"
            )
            continue
        refusals = [why for a in matches if (why := a.allows(NAMESPACE, when))]
        usable = [a for a in matches if a.allows(NAMESPACE, when) is None]
        if not usable:
            result.problems.append(f"signature {index + 1}: {refusals[0]}")
            continue
        if public not in valid_keys:
            valid_keys.add(public)
            result.signers.append(",".join(usable[0].principals))
    if forged:
        result.status = "invalid"
    elif len(valid_keys) >= result.required:
        result.status = "signed"
    else:
        result.status = "insufficient"
    return result


def _invalid(result: SignatureStatus, why: str) -> SignatureStatus:
    result.status = "invalid"
    result.problems.append(why)
    return result
