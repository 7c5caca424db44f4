"""The one verified view of a version's life, for every reader: the status log and the signed checkpoint.

``load``, ``list``, ``show``, ``log``, ``compare``, the site and ``results check``
read what happened to a version after it was frozen only through :func:`view`.
It holds the statuses that the verified events of ``status.jsonl`` give
(:func:`freezer.trust.lifecycle.status_log`), the lines that are not status
(each attributed to the version it names, so a reader can say "unverified"
beside that version), and what the signed ``checkpoint.json``
(:func:`freezer.trust.checkpoint.signed_payload`) says against the folders: a
checkpointed latest version whose manifest is not the one signed (deleted and
re-cut), or a suite with fewer versions than were signed (rolled back).

A registry without ``allowed_signers`` has neither file, and the view is empty:
nothing is yanked, nothing contradicted, nothing to report. A checkpoint that
does not verify proves nothing: it is a problem, and contradicts no version.
``tests/test_verified_view.py`` fails when another module parses either file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from freezer.domain.problems import Problem, display_path
from freezer.registry.config import RegistryConfig
from freezer.registry.model import Suite
from freezer.trust import checkpoint, lifecycle
from freezer.trust.lifecycle import VersionStatus
from freezer.trust.rootfiles import CHECKPOINT


@dataclass(frozen=True)
class Contradiction:
    """A version the signed checkpoint records otherwise: what it records and what the folder holds."""

    version: str
    recorded: str  # the manifest sha256 the checkpoint signed
    holds: str  # the manifest sha256 the folder holds now
    folder: str

    @property
    def message(self) -> str:
        return (
            f"{self.version} is not the version the signed checkpoint records: the checkpoint records manifest "
            f"sha256 {self.recorded}, but {self.folder} holds {self.holds} (deleted and cut again?)"
        )


@dataclass(frozen=True)
class Rollback:
    """A suite with fewer versions, or without the latest one, than the signed checkpoint records."""

    suite: str
    recorded: int
    latest: str
    holds: int

    @property
    def message(self) -> str:
        return (
            f"suite {self.suite}: the signed checkpoint records {self.recorded} version(s) up to {self.latest}, "
            f"but the registry holds {self.holds} without it (a rollback)"
        )


@dataclass(frozen=True)
class VerifiedView:
    """What the verified status log and the signed checkpoint say about every version."""

    log: lifecycle.StatusLog = field(default_factory=lifecycle.StatusLog)
    checkpoint_problems: tuple[Problem, ...] = ()  # it does not verify, contradicts a version, or was rolled back
    contradicted: Mapping[str, Contradiction] = field(default_factory=dict)
    rolled_back: Mapping[str, Rollback] = field(default_factory=dict)  # suite name → rollback

    def of(self, name: str) -> VersionStatus:
        """The version's status by the verified events only (an unverified line changes nothing)."""
        return self.log.of(name)

    def unverified(self, name: str) -> tuple[Problem, ...]:
        """The lines of the status log that name ``name`` but are not status."""
        return self.log.unverified_of(name)

    def contradiction(self, name: str) -> Contradiction | None:
        return self.contradicted.get(name)

    def version_problems(self, name: str) -> tuple[Problem, ...]:
        """Everything the view holds against one version: its unverified events, a checkpoint that contradicts it."""
        contradicted = self.contradicted.get(name)
        against = tuple(p for p in self.checkpoint_problems if contradicted and p.message == contradicted.message)
        return self.unverified(name) + against

    @property
    def problems(self) -> tuple[Problem, ...]:
        """Every problem of the log and of the checkpoint: each fails the reader that shows it."""
        return self.log.problems + self.checkpoint_problems


def view(config: RegistryConfig) -> VerifiedView:
    """The verified view of the registry's status log and checkpoint (empty when it has neither)."""
    log = lifecycle.status_log(config.root)
    payload, refused = checkpoint.signed_payload(config.root)
    if refused is not None:
        return VerifiedView(log, (refused,))
    if payload is None:
        return VerifiedView(log)
    shown = display_path(config.root / CHECKPOINT)
    problems: list[Problem] = []
    contradicted: dict[str, Contradiction] = {}
    rolled_back: dict[str, Rollback] = {}
    for name, head in sorted(payload.suites.items()):
        suite = config.suites.get(name)
        versions = {v.name: v for v in Suite.of(suite).versions()} if suite is not None else {}
        latest = versions.get(head.latest)
        if latest is None or len(versions) < head.versions:
            rolled = rolled_back[name] = Rollback(name, head.versions, head.latest, len(versions))
            problems.append(Problem(shown, None, None, ("payload", "suites", name), rolled.message, "checkpoint"))
            continue
        try:
            holds = latest.manifest_sha256()
        except OSError as exc:
            holds = f"no readable manifest ({exc.strerror})"
        if holds != head.manifest_sha256:
            found = Contradiction(latest.name, head.manifest_sha256, holds, display_path(latest.path))
            contradicted[latest.name] = found
            problems.append(Problem(shown, None, None, ("payload", "suites", name), found.message, "checkpoint"))
    return VerifiedView(log, tuple(problems), contradicted, rolled_back)
