"""A signed checkpoint of each suite's chain head, which may only ever grow.

``checkpoint.json`` at the registry root holds, per suite, how many versions
are frozen and the manifest hash of the latest, signed (SSHSIG, namespace
``freezer-checkpoint``) by a key of ``allowed_signers``. Deleting the latest
version and editing the checkpoint back breaks its signature; deleting the
version alone disagrees with the checkpoint. A validly signed but older
checkpoint (a replay) is caught by ``check`` against the base, and by
``audit`` against the highest checkpoint this machine has seen for the
registry (kept under ``$XDG_STATE_HOME/freezer``, like a TUF client's
trusted metadata), even when the base branch is not at hand.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

from freezer import registry, sshsig
from freezer.config import RegistryConfig
from freezer.errors import UsageError
from freezer.paths import replace_file
from freezer.problems import Problem, display_path
from freezer.reading import read_whole

FILE = "checkpoint.json"
NAMESPACE = "freezer-checkpoint"


def heads(config: RegistryConfig) -> dict[str, dict[str, Any]]:
    """Each suite's chain head now: version count, latest version and its manifest hash."""
    found = {}
    for suite in config.suites.values():
        versions = registry.frozen_versions(suite)
        if versions:
            latest = versions[-1]
            found[suite.name] = {
                "versions": len(versions),
                "latest": latest.name,
                "manifest_sha256": latest.manifest_sha256(),
            }
    return found


def _canonical(data: Any) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def read(root: Path) -> dict[str, Any] | None:
    path = root / FILE
    if not path.exists():
        return None
    try:
        loaded = json.loads(read_whole(path))
    except (OSError, ValueError, RecursionError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _payload(document: dict[str, Any]) -> dict[str, Any] | None:
    try:
        payload = json.loads(base64.b64decode(str(document.get("payload")), validate=True))
    except (ValueError, RecursionError):
        return None
    return payload if isinstance(payload, dict) and isinstance(payload.get("suites"), dict) else None


def _count(head: Any) -> int:
    count = head.get("versions") if isinstance(head, dict) else None
    return count if isinstance(count, int) else 0


def _grew(before: dict[str, Any], after: dict[str, Any]) -> str | None:
    """Why ``after`` has fewer versions than ``before`` for some suite (None when it grew or stayed)."""
    old, new = before.get("suites"), after.get("suites")
    old = old if isinstance(old, dict) else {}
    new = new if isinstance(new, dict) else {}
    for suite, head in old.items():
        if _count(new.get(suite)) < _count(head):
            return f"suite {suite}: the checkpoint went back from {_count(head)} version(s); it may only grow"
    return None


def write(config: RegistryConfig, key_path: Path) -> dict[str, Any]:
    """Sign the current chain heads as the new checkpoint (never fewer versions than the last one)."""
    payload = {"suites": heads(config), "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    old = read(config.root)
    if old is not None:
        before = _payload(old)
        why = _grew(before, payload) if before is not None else None
        if why:
            raise UsageError(why, hint="restore the missing versions; a checkpoint never goes back")
    key = sshsig.load_private_key(key_path)
    blob = sshsig.sign(_canonical(payload), key, NAMESPACE)
    public = sshsig.verify(_canonical(payload), blob, NAMESPACE)
    document = {
        "payload": base64.b64encode(_canonical(payload)).decode(),
        "signature": {"keyid": sshsig.fingerprint(public), "sig": base64.b64encode(blob).decode()},
    }
    replace_file(
        config.root, config.root / FILE, json.dumps(document, indent=2, sort_keys=True) + "\n", "the checkpoint"
    )
    return payload


def verify(config: RegistryConfig) -> tuple[list[Problem], dict[str, Any] | None]:
    """Problems with the checkpoint (none when there is no checkpoint), and its payload."""
    document = read(config.root)
    if document is None:
        return [], None
    shown = display_path(config.root / FILE)

    def problem(message: str) -> Problem:
        return Problem(shown, None, None, (), message, "checkpoint")

    payload = _payload(document)
    signature = document.get("signature")
    if payload is None or not isinstance(signature, dict):
        return [problem("not a readable checkpoint")], None
    try:
        public = sshsig.verify(
            _canonical(payload), base64.b64decode(str(signature.get("sig")), validate=True), NAMESPACE
        )
    except (sshsig.SignatureError, ValueError) as exc:
        return [problem(f"the signature does not verify: {exc}")], None
    if not sshsig.permits(sshsig.registry_signers(config.root), public, NAMESPACE):
        return [problem(f"signed by {sshsig.fingerprint(public)}, which allowed_signers does not allow")], None
    now = heads(config)
    problems = []
    for suite, head in payload["suites"].items():
        if not isinstance(head, dict):
            problems.append(problem(f"suite {suite}: not a chain head"))
            continue
        current = now.get(suite)
        count = current["versions"] if current else 0
        if count < head.get("versions", 0):
            problems.append(
                problem(
                    f"rollback: the checkpoint says suite {suite} has {head.get('versions')} version(s) up to "
                    f"{head.get('latest')}, but the registry has {count}"
                )
            )
            continue
        frozen = {v.name: v for v in registry.frozen_versions(config.suites[suite])} if suite in config.suites else {}
        version = frozen.get(str(head.get("latest")))
        if version is None or version.manifest_sha256() != head.get("manifest_sha256"):
            problems.append(problem(f"{head.get('latest')} is not the version the checkpoint signed"))
    return problems, payload


def compare_with_base(before: bytes | None, after: dict[str, Any] | None) -> str | None:
    """Why the working checkpoint is not allowed to replace the base's (None when it is)."""
    if before is None:
        return None
    try:
        loaded = json.loads(before)
        old = _payload(loaded) if isinstance(loaded, dict) else None
    except (ValueError, RecursionError):
        old = None
    if old is None:
        return None
    if after is None:
        return "the checkpoint was deleted or replaced by one that does not verify; it may only grow"
    return _grew(old, after)


def _state_file() -> Path:
    base = os.environ.get("FREEZER_STATE_DIR") or os.path.join(
        os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state"), "freezer"
    )
    return Path(base) / "checkpoints.json"


def remember(config: RegistryConfig, payload: dict[str, Any]) -> str | None:
    """Compare with the highest checkpoint seen here for this registry, then remember this one.
    Returns why it is a rollback, or None. The registry is known by its first suite's first manifest."""
    identity = _identity(config)
    if identity is None:
        return None
    state = _state_file()
    try:
        seen = json.loads(state.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        seen = {}
    if not isinstance(seen, dict):
        seen = {}
    earlier = seen.get(identity)
    if isinstance(earlier, dict):
        why = _grew(earlier, payload)
        if why:
            return f"{why} (this machine saw a later checkpoint of the registry: a replay)"
    seen[identity] = {"suites": payload["suites"]}
    try:
        state.parent.mkdir(parents=True, exist_ok=True)
        state.write_text(json.dumps(seen, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    except OSError:
        pass  # no writable state: the check against the base still holds
    return None


def _identity(config: RegistryConfig) -> str | None:
    for suite in sorted(config.suites):
        versions = registry.frozen_versions(config.suites[suite])
        if versions:
            return hashlib.sha256(f"{suite}:{versions[0].manifest_sha256()}".encode()).hexdigest()
    return None
