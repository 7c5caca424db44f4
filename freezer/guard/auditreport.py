"""``freezer audit``'s outcome: each version's audit, its signature, and the status log's verdict."""

from __future__ import annotations

from dataclasses import dataclass, field

from freezer.domain.problems import Problem
from freezer.guard import storedresults
from freezer.registry.config import RegistryConfig
from freezer.registry.model import Registry
from freezer.registry.verdict import VersionAudit
from freezer.trust import checkpoint, checkpointstate, lifecycle, signing
from freezer.trust.rootfiles import CHECKPOINT
from freezer.trust.signing import SignatureStatus


@dataclass
class AuditReport:
    """``freezer audit``'s verdict over the audited versions, their signatures, the status log and the stored runs."""

    strict: bool
    versions: list[VersionAudit]
    signatures: dict[str, SignatureStatus] = field(default_factory=dict)  # of the versions whose audit passed
    strict_failures: set[str] = field(default_factory=set)  # passed, but not under --strict
    unsigned: set[str] = field(default_factory=set)  # a signature that does not verify, or none when required
    log_problems: list[Problem] = field(default_factory=list)  # the status log's and the checkpoint's
    stored_results: list[Problem] = field(default_factory=list)  # the audited versions' stored runs

    @property
    def ok(self) -> bool:
        return (
            all(v.ok for v in self.versions)
            and not self.strict_failures
            and not self.unsigned
            and not self.log_problems
            and not self.stored_results
        )

    def to_json(self) -> dict[str, object]:
        rows = [
            {**v.to_json(), "signature": self.signatures[v.name].to_json() if v.name in self.signatures else None}
            for v in self.versions
        ]
        return {
            "strict": self.strict,
            "versions": rows,
            "status_log": [p.to_json() for p in self.log_problems],
            "stored_results": [p.to_json() for p in self.stored_results],
        }


def judge(cfg: RegistryConfig, audits: list[VersionAudit], *, strict: bool, require_signature: bool) -> AuditReport:
    """The audit's verdict over ``audits``: their signatures, --strict, the status log and the checkpoint."""
    report = AuditReport(strict, audits)
    # Under --strict, a version whose code could not be checked, or whose fixtures went stale, fails too.
    report.strict_failures = {
        a.name for a in audits if strict and (a.code_status == "unreachable" or a.stale or a.pin_reach == "")
    }
    by_name = {v.name: (one.config, v) for one, v in Registry(cfg).every_version()}
    # Versions that failed their audit are not asked for a signature.
    report.signatures = {a.name: signing.verify(cfg, *by_name[a.name]) for a in audits if a.ok and a.name in by_name}
    log_problems = lifecycle.verify_log(cfg.root)
    checkpoint_problems, signed_heads = checkpoint.verify(cfg)
    if signed_heads is not None and not checkpoint_problems:
        replay = checkpointstate.remember(cfg, signed_heads)
        if replay:
            checkpoint_problems.append(Problem(CHECKPOINT, None, None, (), replay, "checkpoint"))
    report.log_problems = log_problems + checkpoint_problems
    report.stored_results = storedresults.verify(cfg, {a.name for a in audits})
    # A signature that does not verify always fails; a missing one only under --require-signature.
    report.unsigned = {
        name for name, s in report.signatures.items() if s.status == "invalid" or (require_signature and not s.ok)
    }
    return report
