"""Hostile status-log lines (issue 23, class 4): each one would yank graph_v2 if it were obeyed.

Every case appends one line (line 2) to a log whose line 1 is a real, signed yank
of api_v1 by alice. None of them may count as status: not an unsigned line, not a
line signed by a key outside allowed_signers, not one out of the chain, not a
malformed one. Each case names what its problem must say.

Signatures here are made with the same SSHSIG code as freezer's, by real keys
from ssh-keygen, over a canonical JSON written independently of freezer.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

NAMESPACE = "freezer-status"
AT = "2026-01-02T03:04:05Z"


def canonical(event: dict[str, Any]) -> bytes:
    return json.dumps(event, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


def sign_event(key: Path, event: dict[str, Any], namespace: str = NAMESPACE) -> dict[str, Any]:
    """``event`` with its ``sig`` by ``key`` (an OpenSSH Ed25519 private key file)."""
    from freezer.trust import sshsig

    blob = sshsig.sign(canonical(event), sshsig.load_private_key(key), namespace)
    return {**event, "sig": base64.b64encode(blob).decode()}


def line_of(event: dict[str, Any]) -> bytes:
    return json.dumps(event, sort_keys=True, ensure_ascii=False).encode() + b"\n"


def last_hash(log: Path) -> str:
    lines = [line for line in log.read_bytes().split(b"\n") if line.strip()]
    return hashlib.sha256(lines[-1]).hexdigest()


def yank_of(version: str, prev: str | None, reason: str = "forged") -> dict[str, Any]:
    return {
        "event": "yank",
        "suite": version.rsplit("_v", 1)[0],
        "version": version,
        "reason": reason,
        "at": AT,
        "prev": prev,
    }


@dataclass(frozen=True)
class Keys:
    alice: Path  # in allowed_signers
    mallory: Path  # not


@dataclass(frozen=True)
class Forgery:
    id: str
    line: Callable[[Path, Keys], bytes]  # given the log and the keys, the bytes of line 2
    says: str  # what the problem at status.jsonl:2 must say


def _signed(
    event: Callable[[str], dict[str, Any]], key: str = "alice", namespace: str = NAMESPACE
) -> Callable[[Path, Keys], bytes]:
    def build(log: Path, keys: Keys) -> bytes:
        return line_of(sign_event(getattr(keys, key), event(last_hash(log)), namespace))

    return build


def _raw(text: Callable[[str], bytes]) -> Callable[[Path, Keys], bytes]:
    return lambda log, keys: text(last_hash(log))


def _duplicate_key(log: Path, keys: Keys) -> bytes:
    # A real signature over the event; a second "version" key in front says graph_v1 to a first-wins reader.
    signed = line_of(sign_event(keys.alice, yank_of("graph_v2", last_hash(log))))
    return b'{"version": "graph_v1", ' + signed[1:]


FORGERIES = [
    Forgery("sig-AAAA", _raw(lambda prev: line_of({**yank_of("graph_v2", prev), "sig": "AAAA"})), "does not verify"),
    Forgery("no-sig", _raw(lambda prev: line_of(yank_of("graph_v2", prev))), "needs sig"),
    Forgery("sig-not-base64", _raw(lambda prev: line_of({**yank_of("graph_v2", prev), "sig": "!!"})), "not base64"),
    Forgery("key-not-allowed", _signed(lambda prev: yank_of("graph_v2", prev), key="mallory"), "does not allow"),
    Forgery(
        "other-namespace", _signed(lambda prev: yank_of("graph_v2", prev), namespace="freezer"), "namespace 'freezer'"
    ),
    Forgery("out-of-chain-first", _signed(lambda prev: yank_of("graph_v2", None)), "the chain is broken"),
    Forgery("out-of-chain-other", _signed(lambda prev: yank_of("graph_v2", "0" * 64)), "the chain is broken"),
    Forgery(
        "edited-after-signing",
        lambda log, keys: line_of(
            {**sign_event(keys.alice, yank_of("graph_v1", last_hash(log))), "version": "graph_v2"}
        ),
        "does not verify",
    ),
    Forgery("not-json", _raw(lambda prev: b'{"event": "yank", "version": "graph_v2",\n'), "not JSON"),
    Forgery("not-an-object", _raw(lambda prev: b'["yank", "graph_v2"]\n'), "not a JSON object"),
    Forgery("duplicate-key", _duplicate_key, "is given twice"),
    Forgery(
        "not-utf8", _raw(lambda prev: line_of(yank_of("graph_v2", prev)).replace(b"forged", b"\xff\xfe")), "not UTF-8"
    ),
    Forgery("nested", _raw(lambda prev: b"[" * 200_000 + b"\n"), "levels deep"),
    Forgery(
        "nan",
        _raw(lambda prev: line_of(yank_of("graph_v2", prev))[:-2] + b', "sig": NaN}\n'),
        "NaN is not JSON",
    ),
    Forgery(
        "version-a-list",
        _signed(lambda prev: {**yank_of("graph_v2", prev), "version": ["graph_v2"]}),
        "is not a version of suite graph",
    ),
    Forgery(
        "version-of-other-suite",
        _signed(lambda prev: {**yank_of("graph_v2", prev), "suite": "api"}),
        "is not a version of suite api",
    ),
    Forgery("version-with-newline", _signed(lambda prev: yank_of("graph_v2\n", prev)), "is not a version"),
    Forgery("unknown-event", _signed(lambda prev: {**yank_of("graph_v2", prev), "event": "unyank"}), "unknown event"),
    Forgery("unknown-field", _signed(lambda prev: {**yank_of("graph_v2", prev), "extra": 1}), "has no field extra"),
    Forgery("reason-a-number", _signed(lambda prev: {**yank_of("graph_v2", prev), "reason": 5}), "the reason must be"),
    Forgery("at-not-a-time", _signed(lambda prev: {**yank_of("graph_v2", prev), "at": 5}), "is not a UTC time"),
    Forgery(
        "deprecated-by-an-earlier-version",
        _signed(
            lambda prev: {
                "event": "deprecate",
                "suite": "graph",
                "version": "graph_v2",
                "superseded_by": "graph_v1",
                "reason": None,
                "at": AT,
                "prev": prev,
            }
        ),
        "does not supersede",
    ),
]
