"""The life of a version after it is frozen: yanked or deprecated, never changed.

``status.jsonl`` at the registry root is an append-only log of signed events,
one JSON object per line. Each event names the hash of the line before it, so
an edit, a deletion or a reordering breaks the chain; each is an SSH signature
(namespace ``freezer-status``) by a key of ``allowed_signers``. The frozen
folder is never touched: a yanked version still loads by its exact name, with
its reason, and "latest" skips it. ``freezer check`` refuses any change to the
log that is not an append.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from freezer import sshsig
from freezer.errors import UsageError
from freezer.paths import require_safe
from freezer.problems import Problem, display_path
from freezer.reading import read_whole

LOG = "status.jsonl"
NAMESPACE = "freezer-status"
EVENTS = ("yank", "deprecate")


@dataclass(frozen=True)
class VersionStatus:
    status: str  # "current", "deprecated" or "yanked"
    reason: str | None = None
    superseded_by: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "reason": self.reason, "superseded_by": self.superseded_by}


CURRENT = VersionStatus("current")


def _canonical(event: dict[str, Any]) -> bytes:
    return json.dumps(event, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


def _unsigned(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k != "sig"}


def read_events(root: Path) -> tuple[list[dict[str, Any]], list[bytes]]:
    """The log's events and their raw lines (empty when there is no log)."""
    path = root / LOG
    if not path.exists():
        return [], []
    raw_lines = [line for line in read_whole(path).split(b"\n") if line.strip()]
    events = []
    for line in raw_lines:
        try:
            loaded = json.loads(line)
        except (ValueError, RecursionError):
            loaded = None
        events.append(loaded if isinstance(loaded, dict) else {})
    return events, raw_lines


def verify_log(root: Path, when: float | None = None) -> list[Problem]:
    """Every break of the chain and every signature that does not verify or is not allowed."""
    events, lines = read_events(root)
    if not events:
        return []
    shown = display_path(root / LOG)
    allowed = sshsig.registry_signers(root)
    problems = []
    previous: str | None = None
    for number, (event, line) in enumerate(zip(events, lines, strict=True), start=1):

        def problem(message: str, at: int = number) -> None:
            problems.append(Problem(shown, at, None, (), message, "status"))

        if event.get("prev") != previous:
            problem("the chain is broken: this line does not follow the one before it (the log was edited)")
        previous = hashlib.sha256(line).hexdigest()
        if event.get("event") not in EVENTS:
            problem(f"unknown event {event.get('event')!r}")
            continue
        try:
            blob = base64.b64decode(str(event.get("sig")), validate=True)
            public = sshsig.verify(_canonical(_unsigned(event)), blob, NAMESPACE)
        except (sshsig.SignatureError, ValueError) as exc:
            problem(f"the signature does not verify: {exc}")
            continue
        if not sshsig.permits(allowed, public, NAMESPACE, when):
            problem(f"signed by {sshsig.fingerprint(public)}, which allowed_signers does not allow to change status")
    return problems


def statuses(root: Path) -> dict[str, VersionStatus]:
    """Version name → its status by the log (the last event wins; a yank outranks a deprecation)."""
    found: dict[str, VersionStatus] = {}
    for event in read_events(root)[0]:
        name = event.get("version")
        if not isinstance(name, str):
            continue
        if event.get("event") == "yank":
            found[name] = VersionStatus("yanked", event.get("reason"))
        elif event.get("event") == "deprecate" and found.get(name, CURRENT).status != "yanked":
            found[name] = VersionStatus("deprecated", event.get("reason"), event.get("superseded_by"))
    return found


def append(root: Path, key_path: Path, fields: dict[str, Any]) -> dict[str, Any]:
    """Sign and append one event; refuses when the log on disk is already broken."""
    broken = verify_log(root)
    if broken:
        raise UsageError(
            f"{display_path(root / LOG)} does not verify ({broken[0].message}); restore it before adding to it"
        )
    _, lines = read_events(root)
    event = {
        **fields,
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "prev": hashlib.sha256(lines[-1]).hexdigest() if lines else None,
    }
    key = sshsig.load_private_key(key_path)
    blob = sshsig.sign(_canonical(event), key, NAMESPACE)
    public = sshsig.verify(_canonical(event), blob, NAMESPACE)
    if not sshsig.permits(sshsig.registry_signers(root), public, NAMESPACE):
        raise UsageError(
            f"{display_path(key_path)}: key {sshsig.fingerprint(public)} may not change a version's status",
            hint="add it to allowed_signers at the registry root (namespaces may not exclude freezer-status)",
        )
    event["sig"] = base64.b64encode(blob).decode()
    path = require_safe(root, root / LOG, "the status log", folder=False)
    line = json.dumps(event, sort_keys=True, ensure_ascii=False).encode() + b"\n"
    # Append-only on purpose: O_APPEND writes the line at the end whatever else holds the file.
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(handle, line)
        os.fsync(handle)
    finally:
        os.close(handle)
    return event


def only_appended(before: bytes | None, after: bytes | None) -> str | None:
    """Why a change of the log is not a pure append (None when it is)."""
    if before is None:
        return None
    if after is None:
        return "the status log was deleted; it may only grow"
    if not after.startswith(before):
        return "the status log was edited; events may only be appended"
    return None
