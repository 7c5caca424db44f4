"""What an audit found about one frozen version: its checks, failures and code status."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from freezer.domain.findings import Finding
from freezer.domain.jsontypes import JsonObject, JsonValue
from freezer.domain.problems import display_path
from freezer.domain.steps import Step

# "none": the version has no code under test, so there is no code to check (not a check skipped).
CodeStatus = Literal["verified", "failed", "unreachable", "none", "not checked"]


@dataclass(frozen=True)
class CodeVerdict:
    """What the code check of a version decided (``status``), and the sentence that says so
    (``detail``, shown after ``code:``). The status is set where it is decided, never read back
    from the sentence."""

    status: CodeStatus
    detail: str

    def __str__(self) -> str:
        return self.detail


NOT_CHECKED = CodeVerdict("not checked", "not checked")
NO_CODE = CodeVerdict("none", "no code under test")
FAILED = CodeVerdict("failed", "failed")


def unreachable(why: str) -> CodeVerdict:
    return CodeVerdict("unreachable", f"unreachable: {why}")


def verified_at(pinned: str) -> CodeVerdict:
    return CodeVerdict("verified", f"verified at {pinned[:8]}")


class Failure(Finding):
    """A check of a frozen version that failed: the file (as shown, sometimes ``file:line``) and why.

    A :class:`~freezer.domain.findings.Finding` with no line, column or JSON path of its own;
    constructed ``Failure(file, message)`` and printed ``file: message`` as before."""

    __slots__ = ()

    def __new__(cls, file: str, message: str) -> Failure:
        return super().__new__(cls, file, message=message)

    def __reduce__(self) -> tuple[type[Failure], tuple[str, str]]:
        return Failure, (self.file, self.message)  # as constructed: pickle would pass every field

    def __str__(self) -> str:
        return f"{self.file}: {self.message}"


@dataclass
class VersionAudit:
    """One frozen version's audit (``freezer audit``; ``freezer check`` audits each version a change adds)."""

    name: str
    path: Path
    failures: list[Failure] = field(default_factory=list)
    checks: list[Step] = field(default_factory=list)
    code: CodeVerdict = NOT_CHECKED
    code_failures: list[Failure] = field(default_factory=list)
    stale: dict[str, list[str]] = field(default_factory=dict)
    against: str | None = None
    # Where the pinned commit is reachable from: None when the code was not checked, "" when from
    # no branch at all (only this machine's object store holds it: a force-push can take it away).
    pin_reach: str | None = None
    # What reads wrong in a version that audits (a defect of the format it was cut in): said, not failed.
    warnings: list[Failure] = field(default_factory=list)
    # Of the warnings, where METHOD.md hides §Delta in a version recording checks.delta_block 1:
    # the version stands if the base froze it, but ``check`` refuses it in a version the change
    # adds, as a hand-written manifest could claim that old record (file:line, and how it hides).
    hidden_delta: Failure | None = None

    @property
    def ok(self) -> bool:
        return not self.failures and not self.code_failures

    @property
    def code_status(self) -> CodeStatus:
        """verified, failed, unreachable or not checked; none when there is no code under test."""
        return self.code.status

    def to_json(self) -> JsonObject:
        return {
            "name": self.name,
            "path": display_path(self.path),
            "ok": self.ok,
            "checks": [check.to_json() for check in self.checks],
            "failures": [_failure(f) for f in self.failures + self.code_failures],
            "code": {"status": self.code.status, "detail": self.code.detail},
            "against": self.against,
            "stale": {fixture: list[JsonValue](files) for fixture, files in self.stale.items()},
            "warnings": [_failure(w) for w in self.warnings],
        }


def _failure(found: Failure) -> JsonObject:
    return {"file": found.file, "message": found.message}
