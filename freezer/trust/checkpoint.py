"""A signed checkpoint of each suite's chain head, which may only ever grow.

``checkpoint.json`` at the registry root holds, per suite, how many versions
are frozen and the manifest hash of the latest, signed (SSHSIG, namespace
``freezer-checkpoint``) by a key of ``allowed_signers``. Deleting the latest
version and editing the checkpoint back breaks its signature; deleting the
version alone disagrees with the checkpoint. A validly signed but older
checkpoint (a replay) is caught by ``check`` against the base, and by
``audit`` against the highest checkpoint this machine has seen for the
registry (:mod:`freezer.trust.checkpointstate`), even when the base branch is not
at hand.

A signature proves who wrote the payload, not that it is well formed: every
field is checked for its type and bounds before anything uses it, and a
checkpoint that fails is a located problem, never a crash.
"""

from __future__ import annotations

import base64
import time
from pathlib import Path

from freezer.domain import canonical
from freezer.domain.errors import FreezerError, UsageError
from freezer.domain.problems import Problem, display_path
from freezer.parse import strictjson
from freezer.registry.config import RegistryConfig
from freezer.registry.model import Suite
from freezer.runtime.lock import lock_wait_seconds, registry_lock
from freezer.runtime.reading import read_whole
from freezer.trust.checkpointformat import ChainHead, CheckpointPayload, Malformed, check_payload, grew
from freezer.trust.rootfiles import CHECKPOINT

NAMESPACE = "freezer-checkpoint"


def heads(config: RegistryConfig) -> dict[str, ChainHead]:
    """Each suite's chain head now: version count, latest version and its manifest hash."""
    found = {}
    for suite in config.suites.values():
        versions = Suite.of(suite).versions()
        if versions:
            latest = versions[-1]
            found[suite.name] = ChainHead(len(versions), latest.name, latest.manifest_sha256())
    return found


def _signed_bytes(payload: CheckpointPayload) -> bytes:
    return canonical.compact(payload.to_json())


def parse(data: bytes) -> tuple[CheckpointPayload, str]:
    """(payload, signature in base64) of a checkpoint document, every field checked; else :class:`Malformed`."""
    try:
        document = strictjson.loads(data)
    except strictjson.NotStrictJson as exc:
        raise Malformed((), f"not a readable checkpoint: {exc}") from None
    if not isinstance(document, dict) or document.keys() != {"payload", "signature"}:
        raise Malformed((), "a checkpoint is an object with exactly payload and signature")
    signature = document["signature"]
    if (
        not isinstance(signature, dict)
        or signature.keys() != {"keyid", "sig"}
        or not isinstance(signature["keyid"], str)
        or not isinstance(sig := signature["sig"], str)
    ):
        raise Malformed(("signature",), "must be an object with keyid and sig, both text")
    encoded = document["payload"]
    if not isinstance(encoded, str):
        raise Malformed(("payload",), "must be the base64 of the signed payload")
    try:
        decoded = base64.b64decode(encoded, validate=True)
        payload = strictjson.loads(decoded)
    except (ValueError, strictjson.NotStrictJson) as exc:
        raise Malformed(("payload",), f"not the base64 of a JSON payload ({exc})") from None
    return check_payload(payload), sig


def _line_of(data: bytes, key: str) -> int | None:
    """The line of the document where ``"key":`` first appears (the payload is one base64 line)."""
    at = data.find(f'"{key}"'.encode())
    return data.count(b"\n", 0, at) + 1 if at >= 0 else None


def _signed_by(root: Path, payload: CheckpointPayload, signature: str) -> str | None:
    """Why the signature does not make ``payload`` a checkpoint of this registry (None when it does)."""
    # Lazy: the signature modules (ssh-keygen's runner, tempfile, the key parser) serve a registry
    # with a checkpoint; `freezer check` (a pre-commit hook) on one without does not import them.
    from freezer.trust import allowed_signers, sshsig

    try:
        blob = base64.b64decode(signature, validate=True)
        public = sshsig.verify(_signed_bytes(payload), blob, NAMESPACE)
    except (sshsig.SignatureError, ValueError) as exc:
        return f"the signature does not verify: {exc}"
    try:
        allowed_signers.read(root).judge(public, blob, _signed_bytes(payload), NAMESPACE, None)
    except FreezerError as exc:
        return f"the signature cannot be checked: {exc.message}"
    except allowed_signers.NotAllowed as exc:
        return f"signed by {sshsig.fingerprint(public)}, which allowed_signers does not allow ({exc.why})"
    return None


def _read(root: Path) -> bytes | None:
    path = root / CHECKPOINT
    if not path.exists() and not path.is_symlink():
        return None
    return read_whole(path)


def signed_payload(root: Path) -> tuple[CheckpointPayload | None, Problem | None]:
    """The one verified view of ``checkpoint.json``: its payload when the file is well formed and
    signed by an allowed key, else the problem (both None when there is no checkpoint)."""
    shown = display_path(root / CHECKPOINT)
    try:
        data = _read(root)
    except FreezerError as exc:
        return None, Problem(shown, None, None, (), exc.message, "checkpoint")
    if data is None:
        return None, None
    try:
        payload, signature = parse(data)
    except Malformed as exc:
        line = _line_of(data, str(exc.path[0])) if exc.path else None
        return None, Problem(shown, line, None, exc.path, exc.message, "checkpoint")
    why = _signed_by(root, payload, signature)
    if why is not None:
        return None, Problem(shown, _line_of(data, "signature"), None, ("signature",), why, "checkpoint")
    return payload, None


def write(config: RegistryConfig, key_path: Path) -> CheckpointPayload:
    """Sign the current chain heads as the new checkpoint (never fewer versions than the last one),
    under the registry lock: the chain heads and the last checkpoint are read inside it."""
    # Lazy: signing and writing (secrets, the key parser) are this command's, never `freezer check`'s.
    from freezer.runtime.writing import replace_file
    from freezer.trust import sshsig  # lazy: the key parser serves signing only

    key = sshsig.load_private_key(key_path)
    with registry_lock(config.root, wait=lock_wait_seconds()):
        now = CheckpointPayload(heads(config), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        payload = check_payload(now.to_json())  # what is signed must read back as a checkpoint
        before, _ = signed_payload(config.root)  # one that does not verify proves nothing: it is replaced
        why = grew(before.suites, payload.suites) if before is not None else None
        if why:
            raise UsageError(why, hint="restore the missing versions; a checkpoint never goes back")
        signed = _signed_bytes(payload)
        blob = sshsig.sign(signed, key, NAMESPACE)
        public = sshsig.verify(signed, blob, NAMESPACE)
        document = {
            "payload": base64.b64encode(signed).decode(),
            "signature": {"keyid": sshsig.fingerprint(public), "sig": base64.b64encode(blob).decode()},
        }
        text = canonical.ascii_file(document)
        replace_file(config.root, config.root / CHECKPOINT, text, "the checkpoint")
    return payload


def verify(config: RegistryConfig) -> tuple[list[Problem], CheckpointPayload | None]:
    """Problems with the checkpoint (none when there is no checkpoint), and its payload when it is
    well formed and validly signed (it may still disagree with the registry: see the problems)."""
    payload, refused = signed_payload(config.root)
    if refused is not None:
        return [refused], None
    if payload is None:
        return [], None
    shown = display_path(config.root / CHECKPOINT)

    def problem(message: str, suite: str) -> Problem:
        return Problem(shown, None, None, ("payload", "suites", suite), message, "checkpoint")

    now = heads(config)
    problems = []
    for suite, head in sorted(payload.suites.items()):
        count = now[suite].versions if suite in now else 0
        if count < head.versions:
            problems.append(
                problem(
                    f"rollback: the checkpoint says suite {suite} has {head.versions} version(s) up to "
                    f"{head.latest}, but the registry has {count}",
                    suite,
                )
            )
            continue
        frozen = {v.name: v for v in Suite.of(config.suites[suite]).versions()} if suite in config.suites else {}
        version = frozen.get(head.latest)
        if version is None or version.manifest_sha256() != head.manifest_sha256:
            problems.append(problem(f"{head.latest} is not the version the checkpoint signed", suite))
    return problems, payload


def compare_with_base(before: bytes | None, after: CheckpointPayload | None) -> str | None:
    """Why the working checkpoint is not allowed to replace the base's (None when it is)."""
    if before is None:
        return None
    try:
        old, _ = parse(before)
    except Malformed:
        return None  # the base's own checkpoint was broken: there is nothing it can hold the working one to
    if after is None:
        return "the checkpoint was deleted or replaced by one that does not verify; it may only grow"
    return grew(old.suites, after.suites)
