"""Signing frozen versions: DSSE envelopes over the provenance statement, with SSH keys.

A version's envelope lives at ``signatures/<name>.dsse.json`` in the registry,
outside the frozen folder, so signers can be added without changing the
version. Its payload is the version's provenance statement, re-derived from
the frozen, hash-checked files; each signature is an SSHSIG (namespace
``freezer``) over DSSE's pre-authentication encoding, so ``ssh-keygen -Y
verify`` checks it too. Who may sign is git's ``allowed_signers`` file at the
registry root, judged by ssh-keygen itself (:mod:`freezer.trust.allowed_signers`); a
suite may require several distinct signers (``signatures_required`` in
freezer.yaml).

An envelope arrives in pull requests like everything else: it is read only
from a real ``signatures/`` folder inside the registry, never through a link,
within a size bound derived from the statement, and with at most
:data:`MAX_SIGNATURES` signatures. Who signed is checked against the allowed
signers before any cryptography, so signatures by keys nobody allowed cost
nothing to refuse, and ssh-keygen runs once per distinct key whose signature
holds. ``sign`` adds its signature under the registry lock, to the envelope as
it is on disk then, and replaces the file in one rename.
"""

from __future__ import annotations

import base64
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from freezer.domain import canonical
from freezer.domain.errors import IntegrityError, UsageError
from freezer.domain.jsontypes import JsonObject, JsonValue
from freezer.domain.problems import display_path
from freezer.domain.taskid import safe_file_name
from freezer.registry import registry
from freezer.registry.config import RegistryConfig, SuiteConfig
from freezer.registry.integrity import integrity
from freezer.render import attest
from freezer.runtime.lock import lock_wait_seconds, registry_lock
from freezer.runtime.paths import require_safe, unsafe_folder_reason
from freezer.runtime.reading import ReadRefused, read_bounded, read_whole
from freezer.runtime.writing import replace_file
from freezer.trust import allowed_signers, sshsig
from freezer.trust.rootfiles import SIGNATURES

NAMESPACE = "freezer"
ALLOWED_SIGNERS = allowed_signers.ALLOWED_SIGNERS
# k-of-n signing needs a handful of signatures; 150,000 in one envelope is an attack, refused unread.
MAX_SIGNATURES = 256
# An Ed25519 SSHSIG is about 400 base64 characters.
MAX_SIGNATURE_CHARS = 4096
_ENVELOPE_SLACK = 64 << 10
MAX_SIGNATURE_FILE_BYTES = 64 << 10


def envelope_path(root: Path, name: str) -> Path:
    """Where the envelope of version ``name`` lives: one file directly in ``signatures/``, whatever
    the name holds (a version name comes from a folder name)."""
    return root / SIGNATURES / f"{safe_file_name(name)}.dsse.json"


def statement_of(suite: SuiteConfig, frozen: registry.FrozenVersion) -> bytes:
    """The statement of a version whose files match their hashes (refused otherwise)."""
    check, _ = integrity(frozen)
    if check.failures:
        listed = "; ".join(str(f) for f in check.failures[:3])
        raise IntegrityError(f"{frozen.name} fails its integrity check ({listed})", hint="run freezer audit")
    return attest.statement_bytes(frozen.manifest_bytes(), read_whole(frozen.path / registry.METHOD))


def _envelope_limit(payload: bytes) -> int:
    return 4 * (len(payload) // 3 + 1) + MAX_SIGNATURES * (MAX_SIGNATURE_CHARS + 256) + _ENVELOPE_SLACK


def _envelope_present(root: Path, path: Path) -> bool:
    """Whether the envelope exists, refusing one reached through a link or a file where the
    ``signatures/`` folder belongs, and one that is itself a link."""
    shown = display_path(path)
    reason = unsafe_folder_reason(root, path.parent)
    if reason is not None:
        raise IntegrityError(
            f"{shown}: the signatures folder {reason}; freezer reads signatures only from a real folder",
            hint="replace it with a real signatures/ folder (git rm the link), then run again",
        )
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise IntegrityError(f"{shown}: cannot be read ({exc.strerror})") from None
    if stat.S_ISLNK(mode):
        raise IntegrityError(
            f"{shown}: is a symbolic link; freezer does not follow links in the registry",
            hint="replace the link with the envelope itself",
        )
    return True


@dataclass
class Envelope:
    """A DSSE envelope: the payload type (as found: :func:`verify` checks it), the statement in
    base64, and the signatures, each kept as read (a damaged one is reported, never dropped)."""

    payload_type: JsonValue
    payload: str
    signatures: list[JsonValue]

    def to_json(self) -> JsonObject:
        return {"payloadType": self.payload_type, "payload": self.payload, "signatures": self.signatures}


def _read_envelope(path: Path, payload: bytes) -> Envelope:
    shown = display_path(path)
    try:
        loaded: JsonValue = json.loads(read_bounded(path, _envelope_limit(payload)))
    except ReadRefused as exc:
        raise IntegrityError(f"{shown}: not a readable DSSE envelope ({exc})") from None
    except (ValueError, RecursionError) as exc:
        raise IntegrityError(f"{shown}: not a readable DSSE envelope ({exc})") from None
    if (
        not isinstance(loaded, dict)
        or not isinstance(encoded := loaded.get("payload"), str)
        or not isinstance(signatures := loaded.get("signatures"), list)
    ):
        raise IntegrityError(f"{shown}: not a DSSE envelope (payload and signatures are required)")
    if len(signatures) > MAX_SIGNATURES:
        raise IntegrityError(
            f"{shown}: holds {len(signatures)} signatures; freezer reads at most {MAX_SIGNATURES}",
            hint="restore the envelope from git",
        )
    return Envelope(loaded.get("payloadType"), encoded, signatures)


def _entry_signature(entry: JsonValue) -> sshsig.Signature:
    """The parsed SSHSIG of one envelope entry (no cryptography yet)."""
    if not isinstance(entry, dict) or not isinstance(sig := entry.get("sig"), str):
        raise sshsig.SignatureError("not an object with a base64 sig")
    if len(sig) > MAX_SIGNATURE_CHARS:
        raise sshsig.SignatureError(f"over {MAX_SIGNATURE_CHARS} characters, longer than any Ed25519 signature")
    try:
        blob = base64.b64decode(sig, validate=True)
    except ValueError:
        raise sshsig.SignatureError("the signature is not base64") from None
    parsed = sshsig.parse(blob)
    if parsed.namespace != NAMESPACE.encode():
        shown = parsed.namespace.decode(errors="replace")
        raise sshsig.SignatureError(f"signed for namespace {shown!r}, not {NAMESPACE!r}")
    return parsed


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
            text = read_bounded(signature_path, MAX_SIGNATURE_FILE_BYTES).decode("utf-8", errors="replace")
            blob = sshsig.unarmor(text)
        except (ReadRefused, sshsig.SignatureError) as exc:
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
    with registry_lock(config.root, wait=lock_wait_seconds()):
        # Re-read under the lock: a parallel sign may have added its signature since.
        envelope = Envelope(attest.PAYLOAD_TYPE, encoded, [])
        if _envelope_present(config.root, path):
            envelope = _read_envelope(path, payload)
            _check_addable(envelope, encoded, public, keyid, frozen.name, path)
        envelope.signatures.append({"keyid": keyid, "sig": base64.b64encode(blob).decode()})
        # replace_file keeps the envelope's mode (a new one gets 0644 less the umask).
        replace_file(config.root, path, canonical.ascii_file(envelope.to_json()), "the signature file")
    return keyid


def _check_addable(envelope: Envelope, encoded: str, public: bytes, keyid: str, name: str, path: Path) -> None:
    if envelope.payload != encoded:
        raise IntegrityError(
            f"{display_path(path)} signs another statement than {name}'s",
            hint="restore it from git; a frozen version's statement never changes",
        )
    for entry in envelope.signatures:
        try:
            same = _entry_signature(entry).public == public
        except sshsig.SignatureError:
            same = False
        if same or (isinstance(entry, dict) and entry.get("keyid") == keyid):
            raise UsageError(f"{name} is already signed by {keyid}")
    if len(envelope.signatures) >= MAX_SIGNATURES:
        raise UsageError(f"{display_path(path)} already holds {MAX_SIGNATURES} signatures, the most freezer reads")


# What a version's signatures prove: enough valid ones, none, too few, or one that is damaged or forged.
SignatureVerdict = Literal["signed", "unsigned", "insufficient", "invalid"]


@dataclass
class SignatureStatus:
    """What a version's signatures prove."""

    version: str
    status: SignatureVerdict
    required: int
    signers: list[str] = field(default_factory=list)  # principals of the valid signatures
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "signed"

    def to_json(self) -> JsonObject:
        return {
            "version": self.version,
            "status": self.status,
            "required": self.required,
            "signers": list[JsonValue](self.signers),
            "problems": list[JsonValue](self.problems),
        }


def verify(
    config: RegistryConfig, suite: SuiteConfig, frozen: registry.FrozenVersion, now: float | None = None
) -> SignatureStatus:
    result = SignatureStatus(frozen.name, "unsigned", suite.signatures_required)
    path = envelope_path(config.root, frozen.name)
    try:
        if not _envelope_present(config.root, path):
            return result
        payload = statement_of(suite, frozen)
        envelope = _read_envelope(path, payload)
    except IntegrityError as exc:
        return _invalid(result, exc.message)
    if envelope.payload_type != attest.PAYLOAD_TYPE:
        return _invalid(result, f"{display_path(path)}: payloadType is not {attest.PAYLOAD_TYPE}")
    try:
        signed = base64.b64decode(envelope.payload, validate=True)
    except ValueError:
        return _invalid(result, f"{display_path(path)}: the payload is not base64")
    if signed != payload:
        return _invalid(result, f"{display_path(path)}: signs another statement than {frozen.name}'s")
    allowed = allowed_signers.read(config.root)
    if allowed.empty:
        _invalid(result, f"no key in {ALLOWED_SIGNERS} at the registry root: nobody is allowed to sign")
        return _with_file_problems(result, allowed)
    message = attest.pae(attest.PAYLOAD_TYPE, payload)
    valid_keys: set[bytes] = set()
    forged = False
    for number, entry in enumerate(envelope.signatures, start=1):
        try:
            parsed = _entry_signature(entry)
        except sshsig.SignatureError as exc:
            # A signature that cannot be read is damage or forgery, whatever the others say.
            forged = True
            result.problems.append(f"signature {number}: {exc}")
            continue
        if not allowed.lists(parsed.public):
            # Refused by who signed, before any cryptography or any ssh-keygen.
            fingerprint = sshsig.fingerprint(parsed.public)
            result.problems.append(f"signature {number}: key {fingerprint}: {allowed_signers.NOT_LISTED}")
            continue
        try:
            # Cheap and in-process, so ssh-keygen runs only for signatures that hold, once per key.
            sshsig.check(message, parsed, NAMESPACE)
        except sshsig.SignatureError as exc:
            forged = True
            result.problems.append(f"signature {number}: {exc}")
            continue
        if parsed.public in valid_keys:
            continue
        try:
            principal = allowed.judge(parsed.public, _blob(entry), message, NAMESPACE, now)
        except allowed_signers.NotAllowed as exc:
            fingerprint = sshsig.fingerprint(parsed.public)
            result.problems.append(f"signature {number}: key {fingerprint}: {exc.why}")
            continue
        valid_keys.add(parsed.public)
        result.signers.append(principal)
    if forged:
        result.status = "invalid"
    elif len(valid_keys) >= result.required:
        result.status = "signed"
    else:
        result.status = "insufficient"
    return _with_file_problems(result, allowed)


def _blob(entry: JsonValue) -> bytes:
    """The SSHSIG bytes of an entry :func:`_entry_signature` has read."""
    sig = entry.get("sig") if isinstance(entry, dict) else None
    assert isinstance(sig, str)
    return base64.b64decode(sig, validate=True)


def _with_file_problems(result: SignatureStatus, allowed: allowed_signers.AllowedSigners) -> SignatureStatus:
    """A version that is not signed also shows the lines of allowed_signers that ssh-keygen skips."""
    if not result.ok:
        problems = allowed.problems
        shown = [f"{p.location()}: {p.message} (ssh-keygen skips this line)" for p in problems[:5]]
        if len(problems) > 5:
            shown.append(f"{ALLOWED_SIGNERS}: and {len(problems) - 5} more lines ssh-keygen skips")
        result.problems.extend(shown)
    return result


def _invalid(result: SignatureStatus, why: str) -> SignatureStatus:
    result.status = "invalid"
    result.problems.append(why)
    return result
