"""The life of a version after it is frozen: yanked or deprecated, never changed.

``status.jsonl`` at the registry root is an append-only log of signed events,
one JSON object per line. Each event names the hash of the line before it, so
an edit, a deletion or a reordering breaks the chain; each is an SSH signature
(namespace ``freezer-status``) by a key of ``allowed_signers``. The frozen
folder is never touched: a yanked version still loads by its exact name, with
its reason, and "latest" skips it. ``freezer check`` refuses any change to the
log that is not an append.

The log arrives in pull requests like everything else, so there is one way to
read it, :func:`status_log`: a line counts as status only when it is a
well-formed event, follows the line before it, and carries a signature that
verifies by a key allowed to change status. Every other line is a problem at
``status.jsonl:LINE``, reported by every reader and obeyed by none.
"""

from __future__ import annotations

import base64
import hashlib
import re
import struct
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from freezer.domain import canonical
from freezer.domain.errors import FreezerError, UsageError
from freezer.domain.jsontypes import JsonObject, JsonValue
from freezer.domain.problems import Problem, display_path
from freezer.parse import strictjson
from freezer.registry import registry
from freezer.runtime.lock import lock_wait_seconds, registry_lock
from freezer.runtime.paths import require_safe
from freezer.runtime.reading import read_whole
from freezer.trust.rootfiles import STATUS_LOG

if TYPE_CHECKING:
    from freezer.trust import allowed_signers

NAMESPACE = "freezer-status"
EVENTS = ("yank", "deprecate")

_SUITE = re.compile(r"[a-z][a-z0-9_-]*")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_STAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")
_MAX_TEXT = 10_000  # a reason longer than this is not a reason anyone reads
_REQUIRED = frozenset({"event", "suite", "version", "at", "prev", "sig"})
_OPTIONAL = {"yank": frozenset({"reason"}), "deprecate": frozenset({"reason", "superseded_by"})}


# A frozen version's lifecycle: current until a signed event deprecates or yanks it (a yank is final).
Lifecycle = Literal["current", "deprecated", "yanked"]


@dataclass(frozen=True)
class VersionStatus:
    """Where a frozen version stands in its lifecycle, as the verified events of the status log leave it."""

    status: Lifecycle
    reason: str | None = None  # a yanked version's: its first yank's, for good
    superseded_by: str | None = None
    # Every yank of the version, (at, reason) in log order: a second yank adds its reason, never replaces the first.
    yanks: tuple[tuple[str, str | None], ...] = field(default=(), compare=False)

    def to_json(self) -> JsonObject:
        return {"status": self.status, "reason": self.reason, "superseded_by": self.superseded_by}


CURRENT = VersionStatus("current")

EventKind = Literal["yank", "deprecate"]


@dataclass(frozen=True)
class StatusChange:
    """What a person asks the log to record: the event, before freezer stamps, chains and signs it."""

    event: EventKind
    suite: str
    version: str
    reason: str | None = None
    superseded_by: str | None = None  # a deprecation's successor, when it names one

    def to_json(self) -> JsonObject:
        out: JsonObject = {"event": self.event, "suite": self.suite, "version": self.version, "reason": self.reason}
        if self.superseded_by is not None:
            out["superseded_by"] = self.superseded_by
        return out


@dataclass(frozen=True)
class LogEvent:
    """One verified line of the log: the change, when it was made (UTC), the hash of the line
    before it (None for the first) and the SSH signature over the rest."""

    change: StatusChange
    at: str
    prev: str | None
    sig: str

    def unsigned(self) -> JsonObject:
        return {**self.change.to_json(), "at": self.at, "prev": self.prev}

    def to_json(self) -> JsonObject:
        return {**self.unsigned(), "sig": self.sig}


@dataclass(frozen=True)
class StatusLog:
    """The verified view of ``status.jsonl``: what the verified events say, and every line that is not status."""

    statuses: Mapping[str, VersionStatus] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()
    events: tuple[LogEvent, ...] = ()  # the verified events, in log order
    # Version name → the problems of the lines that name it and are not status: a reader says the
    # version has an unverified event beside its (verified) status, never obeys it.
    unverified: Mapping[str, tuple[Problem, ...]] = field(default_factory=dict)

    def of(self, name: str) -> VersionStatus:
        return self.statuses.get(name, CURRENT)

    def unverified_of(self, name: str) -> tuple[Problem, ...]:
        return self.unverified.get(name, ())


def _unsigned(event: JsonObject) -> JsonObject:
    return {k: v for k, v in event.items() if k != "sig"}


def _read_log(root: Path) -> bytes | None:
    """The log's bytes (None when there is none); never through a link, a FIFO or a device."""
    path = root / STATUS_LOG
    if not path.exists() and not path.is_symlink():
        return None
    return read_whole(path)


def _lines(data: bytes) -> list[tuple[int, bytes]]:
    """(line number in the file, bytes) of every line that is not blank."""
    return [(number, line) for number, line in enumerate(data.split(b"\n"), start=1) if line.strip()]


def _parse(line: bytes) -> JsonObject | str:
    """The event on one line, or why it is not one."""
    try:
        loaded = strictjson.loads(line)
    except strictjson.NotStrictJson as exc:
        return f"the line is {exc}" if str(exc).startswith("not") else f"the line is not an event: {exc}"
    if not isinstance(loaded, dict):
        return "the line is not a JSON object"
    return loaded


def _shape(event: JsonObject) -> str | None:
    """Why ``event`` is not a well-formed status event (None when it is)."""
    kind = event.get("event")
    if kind not in EVENTS:
        return f"unknown event {kind!r} (freezer knows {', '.join(EVENTS)})"
    missing = sorted(_REQUIRED - event.keys())
    if missing:
        return f"a {kind} event needs {', '.join(missing)}"
    unknown = sorted(event.keys() - _REQUIRED - _OPTIONAL[kind])
    if unknown:
        return f"a {kind} event has no field {', '.join(unknown)}"
    suite, version = event["suite"], event["version"]
    if not isinstance(suite, str) or not _SUITE.fullmatch(suite):
        return f"suite {suite!r} is not a suite name"
    number = registry.number_in_name(suite, version, bounded=True)
    if number is None:
        return f"version {version!r} is not a version of suite {suite}"
    if kind == "deprecate":
        successor = event.get("superseded_by")
        later = registry.number_in_name(suite, successor, bounded=True)
        if later is None:
            return f"superseded_by {successor!r} is not a version of suite {suite}"
        if later <= number:
            return f"{successor} does not supersede {version}: it is not later"
    reason = event.get("reason")
    if reason is not None and not (isinstance(reason, str) and len(reason) <= _MAX_TEXT):
        return f"the reason must be null or text of at most {_MAX_TEXT} characters"
    if not isinstance(event["at"], str) or not _STAMP.fullmatch(event["at"]):
        return f"at {event['at']!r} is not a UTC time like 2026-01-31T12:00:00Z"
    if event["prev"] is not None and (not isinstance(event["prev"], str) or not _HEX64.fullmatch(event["prev"])):
        return "prev is neither null nor a sha256"
    if not isinstance(event["sig"], str):
        return "sig is not text"
    return None


def _claimed_key(blob: bytes) -> bytes | None:
    """The public key an SSHSIG blob says it was made with (checked against the allow-list before
    any cryptography, so a flood of signatures by an unknown key costs nothing)."""
    # Lazy: the signature modules (ssh-keygen's runner, tempfile, the key parser) serve a registry
    # with a status log; `freezer check` (a pre-commit hook) on one without does not import them.
    from freezer.trust import sshsig

    start = len(sshsig.MAGIC) + 4
    if not blob.startswith(sshsig.MAGIC) or len(blob) < start + 4:
        return None
    (length,) = struct.unpack(">I", blob[start : start + 4])
    key = blob[start + 4 : start + 4 + length]
    return key if len(key) == length else None


def _signature_problem(event: JsonObject, allowed: allowed_signers.AllowedSigners, when: float | None) -> str | None:
    # Lazy: the signature modules (ssh-keygen's runner, tempfile, the key parser) serve a registry
    # with a status log; `freezer check` (a pre-commit hook) on one without does not import them.
    from freezer.trust import allowed_signers, sshsig

    signature = event["sig"]
    if not isinstance(signature, str):
        return "sig is not text"
    try:
        blob = base64.b64decode(signature, validate=True)
    except ValueError:
        return "the signature does not verify: it is not base64"
    claimed = _claimed_key(blob)
    if claimed is None:
        return "the signature does not verify: not an SSH signature"
    if not allowed.lists(claimed):
        return f"signed by {sshsig.fingerprint(claimed)}, which allowed_signers does not allow to change status"
    message = canonical.compact(_unsigned(event))
    try:
        public = sshsig.verify(message, blob, NAMESPACE)
    except (sshsig.SignatureError, ValueError) as exc:
        return f"the signature does not verify: {exc}"
    if public != claimed:  # verify reads the key from the same place; belt and braces
        return "the signature does not verify: the key it names is not the key that signed"
    try:
        allowed.judge(public, blob, message, NAMESPACE, when)
    except allowed_signers.NotAllowed as exc:
        refused = f"signed by {sshsig.fingerprint(claimed)}, which allowed_signers does not allow to change status"
        return f"{refused} ({exc.why})"
    return None


def _text(value: JsonValue) -> str | None:
    return value if isinstance(value, str) else None


def _typed(event: JsonObject) -> LogEvent:
    """The event of a line that :func:`_shape` found well-formed (so every field has its type)."""
    kind: EventKind = "yank" if event["event"] == "yank" else "deprecate"
    suite, version = str(event["suite"]), str(event["version"])
    change = StatusChange(kind, suite, version, _text(event.get("reason")), _text(event.get("superseded_by")))
    return LogEvent(change, str(event["at"]), _text(event["prev"]), str(event["sig"]))


def _apply(found: dict[str, VersionStatus], event: LogEvent) -> None:
    """The last event wins, except that a yank outranks a deprecation and the first yank stays: a
    yank is final, so a later one adds its reason beside the first instead of replacing it."""
    change = event.change
    name = change.version
    if change.event == "yank":
        before = found.get(name, CURRENT)
        yank = (event.at, change.reason)
        if before.status != "yanked":
            found[name] = VersionStatus("yanked", change.reason, yanks=(yank,))
        else:
            found[name] = VersionStatus("yanked", before.reason, yanks=(*before.yanks, yank))
    elif found.get(name, CURRENT).status != "yanked":
        found[name] = VersionStatus("deprecated", change.reason, change.superseded_by)


def _verified(root: Path, data: bytes, when: float | None) -> StatusLog:
    # Lazy: the signature modules (ssh-keygen's runner, tempfile, the key parser) serve a registry
    # with a status log; `freezer check` (a pre-commit hook) on one without does not import them.
    from freezer.trust import allowed_signers

    shown = display_path(root / STATUS_LOG)
    problems: list[Problem] = []
    unverified: dict[str, list[Problem]] = {}

    def problem(message: str, line: int | None = None, named: object = None) -> None:
        suffix = "; not counted as status" if line is not None else ""
        problems.append(Problem(shown, line, None, (), message + suffix, "status"))
        if isinstance(named, str):
            unverified.setdefault(named, []).append(problems[-1])

    lines = _lines(data)
    try:
        signers = allowed_signers.read(root)
    except FreezerError as exc:
        # Without a readable allow-list no event can be trusted: none is status.
        problem(f"no event can be verified: {exc.message}")
        problems.extend(getattr(exc, "problems", []))
        return StatusLog({}, tuple(problems), ())
    # A line ssh-keygen skips is reported beside the log's own problems.
    problems.extend(signers.problems)
    found: dict[str, VersionStatus] = {}
    events: list[LogEvent] = []
    previous: str | None = None
    for number, line in lines:
        expected, previous = previous, hashlib.sha256(line).hexdigest()
        event = _parse(line)
        if isinstance(event, str):
            problem(event, number)
            continue
        why = _shape(event)
        if why is None and event["prev"] != expected:
            why = "the chain is broken: this line does not follow the one before it (the log was edited)"
        if why is None:
            why = _signature_problem(event, signers, when)
        if why is not None:
            problem(why, number, event.get("version"))
            continue
        typed = _typed(event)
        _apply(found, typed)
        events.append(typed)
    named = {name: tuple(found_here) for name, found_here in unverified.items()}
    return StatusLog(found, tuple(problems), tuple(events), named)


def status_log(root: Path, when: float | None = None) -> StatusLog:
    """The one verified view of the registry's status log, for every reader (empty when there is none)."""
    try:
        data = _read_log(root)
    except FreezerError as exc:
        return StatusLog({}, (Problem(display_path(root / STATUS_LOG), None, None, (), exc.message, "status"),), ())
    if data is None:
        return StatusLog()
    return _verified(root, data, when)


def verify_log(root: Path, when: float | None = None) -> list[Problem]:
    """Every line of the log that is not status: broken chain, bad shape, a signature that does not
    verify or is not allowed (the problems of :func:`status_log`)."""
    return list(status_log(root, when).problems)


def statuses(root: Path) -> dict[str, VersionStatus]:
    """Version name → its status by the verified events of the log (the last event wins; a yank
    outranks a deprecation). A line that does not verify changes nothing."""
    return dict(status_log(root).statuses)


def append(root: Path, key_path: Path, change: StatusChange) -> LogEvent:
    """Sign and append one event, under the registry lock; refuses when the log is already broken.

    The log is re-read under the lock, so parallel writers each chain onto the line the one before
    them wrote; the whole file is then replaced in one rename, so no reader sees half a line."""
    # Lazy: signing and writing (secrets, the key parser) are this command's, never `freezer check`'s.
    from freezer.runtime.writing import replace_file
    from freezer.trust import allowed_signers, sshsig  # lazy: the key parser serves signing only

    key = sshsig.load_private_key(key_path)
    with registry_lock(root, wait=lock_wait_seconds()):
        path = require_safe(root, root / STATUS_LOG, "the status log", folder=False)
        data = _read_log(root) or b""
        broken = _verified(root, data, None).problems if data else ()
        if broken:
            raise UsageError(
                f"{display_path(path)} does not verify ({broken[0]}); restore it before adding to it",
                hint="git checkout the log as it was committed, then run again",
            )
        lines = _lines(data)
        at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        prev = hashlib.sha256(lines[-1][1]).hexdigest() if lines else None
        unsigned = LogEvent(change, at, prev, "")
        why = _shape(unsigned.to_json())
        if why is not None:
            raise UsageError(f"the {change.event} event cannot be recorded: {why}")
        message = canonical.compact(unsigned.unsigned())
        blob = sshsig.sign(message, key, NAMESPACE)
        public = sshsig.verify(message, blob, NAMESPACE)
        try:
            allowed_signers.read(root).judge(public, blob, message, NAMESPACE, None)
        except allowed_signers.NotAllowed as exc:
            raise UsageError(
                f"{display_path(key_path)}: key {sshsig.fingerprint(public)} may not change a version's status",
                hint=exc.why,
            ) from None
        event = LogEvent(change, at, prev, base64.b64encode(blob).decode())
        line = canonical.log_line(event.to_json()) + b"\n"
        # Only an append: the bytes before stay as they are (check refuses anything else).
        separator = b"" if not data or data.endswith(b"\n") else b"\n"
        replace_file(root, path, data + separator + line, "the status log")
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
