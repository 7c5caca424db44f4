"""The outcomes of the commands that vouch for versions: sign, verify, yank/deprecate, checkpoint."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from freezer.domain.problems import Problem

if TYPE_CHECKING:  # start-up time: signing (and its ssh code) loads only for the commands that sign or verify
    from freezer.trust.checkpointformat import CheckpointPayload
    from freezer.trust.lifecycle import LogEvent
    from freezer.trust.signing import SignatureStatus


@dataclass
class Signed:
    """``freezer sign``: the key that signed, and the version's signature status after it."""

    version: str
    keyid: str
    signature: SignatureStatus
    ok: bool = True  # a signature that cannot be made raises instead

    def to_json(self) -> dict[str, object]:
        return {"version": self.version, "keyid": self.keyid, "signature": self.signature.to_json()}


@dataclass
class Verified:
    """``freezer verify``: each version's signature status; it fails unless every one is signed."""

    versions: list[SignatureStatus]

    @property
    def ok(self) -> bool:
        return all(status.ok for status in self.versions)

    def to_json(self) -> dict[str, object]:
        return {"versions": [status.to_json() for status in self.versions]}


@dataclass
class StatusEvent:
    """``freezer yank`` and ``freezer deprecate``: the event recorded, and what the log's verification found."""

    kind: Literal["yank", "deprecate"]
    event: LogEvent
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, object]:
        return {"event": self.event.to_json(), "problems": [p.to_json() for p in self.problems]}


@dataclass
class Checkpointed:
    """``freezer checkpoint``: the signed payload written, and what verifying the checkpoint found."""

    checkpoint: CheckpointPayload
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, object]:
        return {"checkpoint": self.checkpoint.to_json(), "problems": [p.to_json() for p in self.problems]}
