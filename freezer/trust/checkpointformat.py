"""The grammar of a checkpoint's signed payload, and the one rule between two of them.

Shared by :mod:`freezer.trust.checkpoint` (the signed file at the registry root) and
:mod:`freezer.trust.checkpointstate` (the highest checkpoint this machine saw), which both
check chain heads the same way and both refuse a checkpoint that went back.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from freezer.domain.findings import JsonPath
from freezer.domain.jsontypes import JsonObject, JsonValue
from freezer.registry import registry

MAX_VERSIONS = 999_999  # a version label has at most six digits

_SUITE = re.compile(r"[a-z][a-z0-9_-]*")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_STAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")
_HEAD_KEYS = frozenset({"versions", "latest", "manifest_sha256"})


class Malformed(Exception):
    """Where a checkpoint (or a recorded one) is not well formed, and why."""

    def __init__(self, path: JsonPath, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


@dataclass(frozen=True)
class ChainHead:
    """A suite's chain head: how many versions are frozen, the latest, and its manifest's sha256."""

    versions: int
    latest: str
    manifest_sha256: str

    def to_json(self) -> JsonObject:
        return {"versions": self.versions, "latest": self.latest, "manifest_sha256": self.manifest_sha256}


@dataclass(frozen=True)
class CheckpointPayload:
    """What a checkpoint signs: each suite's chain head, and when (UTC)."""

    suites: Mapping[str, ChainHead]
    at: str

    def to_json(self) -> JsonObject:
        """The payload as signed: the canonical bytes of this object are what the signature covers."""
        return {"suites": {name: head.to_json() for name, head in self.suites.items()}, "at": self.at}


def check_head(suite: str, head: JsonValue, where: JsonPath) -> ChainHead:
    """``head`` when it is a well-formed chain head of ``suite``, else :class:`Malformed`."""
    if not _SUITE.fullmatch(suite):
        raise Malformed(where, f"{suite!r} is not a suite name")
    if not isinstance(head, dict):
        raise Malformed(where, "a chain head must be an object with versions, latest and manifest_sha256")
    if head.keys() != _HEAD_KEYS:
        missing, extra = sorted(_HEAD_KEYS - head.keys()), sorted(head.keys() - _HEAD_KEYS)
        said = [f"missing {', '.join(missing)}" if missing else "", f"unknown {', '.join(extra)}" if extra else ""]
        raise Malformed(
            where, f"a chain head has exactly versions, latest and manifest_sha256 ({'; '.join(s for s in said if s)})"
        )
    count = head["versions"]
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_VERSIONS:
        raise Malformed((*where, "versions"), f"must be an integer from 1 to {MAX_VERSIONS}, not {count!r}")
    latest = head["latest"]
    latest_number = registry.number_in_name(suite, latest, bounded=True)
    if latest_number is None or not isinstance(latest, str):
        raise Malformed((*where, "latest"), f"{latest!r} is not a version of suite {suite}")
    if latest_number < count:
        raise Malformed((*where, "latest"), f"{latest} cannot be the latest of {count} versions")
    digest = head["manifest_sha256"]
    if not isinstance(digest, str) or not _HEX64.fullmatch(digest):
        raise Malformed((*where, "manifest_sha256"), f"{digest!r} is not a sha256 in lower-case hex")
    return ChainHead(count, latest, digest)


def check_heads(suites: JsonValue, where: JsonPath) -> dict[str, ChainHead]:
    """Suite name → chain head, each checked, when ``suites`` is such an object; else :class:`Malformed`."""
    if not isinstance(suites, dict):
        raise Malformed(where, "must be an object: suite name → chain head")
    return {suite: check_head(suite, head, (*where, suite)) for suite, head in suites.items()}


def check_payload(payload: JsonValue) -> CheckpointPayload:
    """``payload`` when every field of it is well formed, else :class:`Malformed`."""
    if not isinstance(payload, dict):
        raise Malformed(("payload",), "the signed payload must be an object")
    if payload.keys() != {"suites", "at"}:
        raise Malformed(("payload",), "the signed payload has exactly suites and at")
    at = payload["at"]
    if not isinstance(at, str) or not _STAMP.fullmatch(at):
        raise Malformed(("payload", "at"), f"{at!r} is not a UTC time like 2026-01-31T12:00:00Z")
    return CheckpointPayload(check_heads(payload["suites"], ("payload", "suites")), at)


def grew(before: Mapping[str, ChainHead], after: Mapping[str, ChainHead]) -> str | None:
    """Why the chain heads ``after`` have fewer versions than ``before`` for some suite (None when
    they grew or stayed): of two checkpoints, or a checkpoint and the record of the highest seen."""
    for suite, head in sorted(before.items()):
        now = after.get(suite)
        if (now.versions if now is not None else 0) < head.versions:
            return f"suite {suite}: the checkpoint went back from {head.versions} version(s); it may only grow"
    return None
