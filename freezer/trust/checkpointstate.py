"""The highest checkpoint this machine has seen of each registry, as a TUF client keeps its trusted metadata.

The record lives outside every registry, in ``$FREEZER_STATE_DIR`` (default
``$XDG_STATE_HOME/freezer``, else ``~/.local/state/freezer``), as
``checkpoints.json``. A registry is known by its suites: each suite by its
name and its first version's manifest hash, which no later cut changes. One
record holds every suite ever seen together, so a suite added later joins the
record, and a replayed checkpoint is caught for every suite the machine saw,
including one whose versions were all deleted with the replay.

The state file is per-user data, but nothing forces it to be a plain file: it
is read without following a link, never from a FIFO or a device, and within a
size bound, and written as a 0600 temporary file renamed over it in its own
folder, so a link planted there is replaced, never followed, and refused first.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from freezer.domain import canonical
from freezer.domain.errors import FreezerError
from freezer.domain.jsontypes import JsonObject, JsonValue
from freezer.domain.problems import display_path
from freezer.parse import strictjson
from freezer.registry.config import RegistryConfig
from freezer.registry.model import Suite
from freezer.runtime.reading import ReadRefused, read_bounded
from freezer.runtime.writing import write_atomically
from freezer.trust.checkpointformat import ChainHead, CheckpointPayload, Malformed, check_heads, grew

STATE_NAME = "checkpoints.json"
LOCK_NAME = "checkpoints.lock"
FORMAT = 2
MAX_STATE_BYTES = 16 << 20
_LOCK_SECONDS = 10.0
_HEX64 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class Record:
    """One registry as this machine saw it: the identities of its suites, and each suite's highest head."""

    anchors: tuple[str, ...]
    suites: Mapping[str, ChainHead]

    def to_json(self) -> JsonObject:
        return {"anchors": list(self.anchors), "suites": {name: head.to_json() for name, head in self.suites.items()}}


def state_dir() -> Path:
    base = os.environ.get("FREEZER_STATE_DIR") or os.path.join(
        os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state"), "freezer"
    )
    return Path(base)


def suite_identity(name: str, first_manifest_sha256: str) -> str:
    """A suite for as long as it exists: its name and its first version's manifest (freezer 0.3's key)."""
    return hashlib.sha256(f"{name}:{first_manifest_sha256}".encode()).hexdigest()


def anchors(config: RegistryConfig) -> set[str]:
    """The identity of every configured suite that has a version."""
    found = set()
    for name, suite in config.suites.items():
        versions = Suite.of(suite).versions()
        if versions:
            found.add(suite_identity(name, versions[0].manifest_sha256()))
    return found


def _check_record(record: JsonValue, where: tuple[str | int, ...]) -> Record:
    if not isinstance(record, dict) or record.keys() != {"anchors", "suites"}:
        raise Malformed(where, "a record is an object with exactly anchors and suites")
    marks = record["anchors"] if isinstance(record["anchors"], list) else []
    identities = tuple(a for a in marks if isinstance(a, str) and _HEX64.fullmatch(a))
    if not identities or len(identities) != len(marks):
        raise Malformed((*where, "anchors"), "must be a non-empty list of sha256 identities")
    return Record(identities, check_heads(record["suites"], (*where, "suites")))


def _records(data: bytes) -> list[Record]:
    """Every record of the state file, each field checked; :class:`Malformed` says where it is not."""
    try:
        loaded = strictjson.loads(data)
    except strictjson.NotStrictJson as exc:
        raise Malformed((), str(exc)) from None
    if not isinstance(loaded, dict):
        raise Malformed((), "the state is a JSON object")
    if "format" not in loaded:
        # freezer 0.3 kept one entry per registry, keyed by the identity of its first suite.
        return [
            _check_record(
                {"anchors": [key], "suites": (entry or {}).get("suites") if isinstance(entry, dict) else entry}, (key,)
            )
            for key, entry in loaded.items()
        ]
    if loaded.keys() != {"format", "registries"} or loaded["format"] != FORMAT:
        raise Malformed((), f"the state has exactly format ({FORMAT}) and registries")
    if not isinstance(loaded["registries"], list):
        raise Malformed(("registries",), "must be a list of records")
    return [_check_record(record, ("registries", index)) for index, record in enumerate(loaded["registries"])]


def _merge(records: list[Record]) -> Record:
    """One record of several: every anchor, and each suite's highest head."""
    highest: dict[str, ChainHead] = {}
    for record in records:
        for suite, head in record.suites.items():
            if suite not in highest or head.versions > highest[suite].versions:
                highest[suite] = head
    return Record(tuple(sorted({a for r in records for a in r.anchors})), highest)


def _lock(folder: Path) -> int | None:
    """An flock on the state folder's lock file, so two audits do not lose each other's record;
    None when it cannot be had (the record is then only read)."""
    try:
        fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o600)
    except OSError:
        return None
    deadline = time.monotonic() + _LOCK_SECONDS
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(fd)
                return None
            time.sleep(0.01)


def remember(config: RegistryConfig, payload: CheckpointPayload) -> str | None:
    """Compare a verified checkpoint ``payload`` with the highest one seen here for the registry,
    then remember it. Returns why it is a replay, or why the record cannot be used; None when fine."""
    current = anchors(config)
    if not current:
        return None
    folder = state_dir()
    path = folder / STATE_NAME
    shown = display_path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError:
        return None  # no writable state here: the check against the base still holds
    held = _lock(folder)
    try:
        try:
            records = _records(read_bounded(path, MAX_STATE_BYTES)) if os.path.lexists(path) else []
        except ReadRefused as exc:
            return f"{shown}: the record of checkpoints seen cannot be used: {exc}; remove it"
        except Malformed as exc:
            where = f" at {'.'.join(map(str, exc.path))}" if exc.path else ""
            return f"{shown}: the record of checkpoints seen is damaged{where}: {exc.message}; remove it"
        matched = [r for r in records if current & set(r.anchors)]
        seen = _merge(matched) if matched else None
        if seen is not None:
            why = grew(seen.suites, payload.suites)
            if why:
                return f"{why} (this machine saw a later checkpoint of the registry: a replay)"
        # The payload first: on a tie its head (the newest signed one) is the one kept.
        fresh = _merge([Record(tuple(sorted(current)), payload.suites), *matched])
        kept = [r.to_json() for r in records if r not in matched]
        document = {"format": FORMAT, "registries": [*kept, fresh.to_json()]}
        if held is not None:
            try:
                write_atomically(path, canonical.ascii_file(document), what="the record", mode=0o600)
            except FreezerError as exc:
                return exc.message
        return None
    finally:
        if held is not None:
            os.close(held)
