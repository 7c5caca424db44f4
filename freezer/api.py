"""The Python API for benchmark harnesses.

    import freezer

    frozen = freezer.load("graph_v2", registry="path/to/registry")
    for fixture in frozen.landed:
        run(fixture)
    results["fixture_set"] = {"name": frozen.name, "manifest_sha256": frozen.manifest_sha256}

:func:`load` verifies the version's integrity (every hash, the chain, the
re-rendered METHOD.md) before it returns anything, and raises
:class:`freezer.domain.errors.IntegrityError` if the check fails, or if the
registry's signed checkpoint records the version otherwise (it was deleted and
cut again). What happened to the version after it was frozen comes from the one
verified view of the status log and the checkpoint (:mod:`freezer.trust.verified`):
a yanked version loads by its exact name with a :class:`YankedWarning`, and a line
of the log that is not a verified event only warns (:class:`StatusLogWarning`).
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from freezer.compare.landeddigests import fixture_digests
from freezer.domain.errors import IntegrityError, UsageError
from freezer.domain.harbordigest import HarborDigest
from freezer.domain.manifest import FixtureDigests
from freezer.guard import audit
from freezer.query import browse
from freezer.registry import config as config_mod
from freezer.registry.integrity import require_intact
from freezer.registry.model import Suite
from freezer.registry.record import read_checked
from freezer.trust import verified
from freezer.trust.latest import latest_usable
from freezer.trust.lifecycle import CURRENT, VersionStatus


@dataclass(frozen=True)
class FrozenSet:
    """A verified frozen version."""

    name: str
    path: Path
    manifest: dict[str, Any]
    manifest_sha256: str
    version: dict[str, Any]
    fixtures: list[dict[str, Any]]

    digests: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    # Every digest of each landed fixture (input, grading, cosmetic, score), by task id.
    group_digests: dict[str, FixtureDigests] = field(default_factory=dict, compare=False, repr=False)
    # kind: folders only: each landed task's Harbor content digest, by task id (empty for other kinds).
    harbor: dict[str, HarborDigest] = field(default_factory=dict, compare=False, repr=False)
    status: VersionStatus = CURRENT  # yanked or deprecated by the verified events of the status log
    # Lines of status.jsonl that are not status (unsigned, not allowed, out of chain, malformed):
    # reported here and by a StatusLogWarning, never obeyed.
    status_problems: tuple[str, ...] = field(default=(), compare=False)
    # The lines among them that name this version: an event nobody verified, shown, never obeyed.
    unverified: tuple[str, ...] = field(default=(), compare=False)
    # A checkpoint.json that does not verify (it then proves nothing), or that disagrees about another suite.
    checkpoint_problems: tuple[str, ...] = field(default=(), compare=False)

    @property
    def pinned_sha(self) -> str:
        return str(self.manifest["pinned_sha"]["full"])

    def fixture_digest(self, task_id: str) -> str:
        """What a score on ``task_id`` depends on at the fixture (its input and grading digests):
        write it into every result row, and ``freezer results check`` verifies it."""
        if task_id not in self.digests:
            raise KeyError(task_id)
        return self.digests[task_id]

    def fixture_digests(self, task_id: str) -> FixtureDigests:
        """All of ``task_id``'s digests: ``input``, ``grading``, ``cosmetic`` and ``score`` (the one
        :meth:`fixture_digest` gives), as ``freezer show --format json`` prints them."""
        if task_id not in self.group_digests:
            raise KeyError(task_id)
        return self.group_digests[task_id]

    def harbor_digest(self, task_id: str) -> HarborDigest:
        """``task_id``'s Harbor content digest (a ``kind: folders`` version only): ``.digest`` is
        ``sha256:…`` and ``.reference`` the ``name@sha256:…`` a Harbor user pins, or both are None
        and ``.reason`` says why freezer cannot tell them."""
        if task_id not in self.harbor:
            raise KeyError(task_id)
        return self.harbor[task_id]

    @property
    def landed(self) -> list[dict[str, Any]]:
        return [f for f in self.fixtures if f["status"] == "landed"]

    def fixture(self, task_id: str) -> dict[str, Any]:
        for fixture in self.fixtures:
            if fixture["task_id"] == task_id:
                return fixture
        raise KeyError(task_id)


class YankedWarning(UserWarning):
    """The version was withdrawn (freezer yank); it loads only by its exact name."""


class StatusLogWarning(UserWarning):
    """The registry's status log holds lines that are not status (each named by file:line); they were
    ignored, so a version they yank is not yanked. ``freezer audit`` reports them too."""


class CheckpointWarning(UserWarning):
    """The registry's checkpoint.json does not verify (so it proves nothing), or it disagrees with
    another suite than the loaded version's. ``freezer audit`` reports it too."""


def _listed(problems: tuple[str, ...]) -> str:
    return "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")


def load(version: str, registry: str | os.PathLike[str] | None = None, suite: str | None = None) -> FrozenSet:
    """Load and verify frozen ``version`` (``graph_v2``, or ``v2`` when the registry has one suite;
    ``latest`` is the newest version that is not yanked). A yanked version warns with its reason."""
    try:
        cfg = config_mod.load(Path(registry) if registry is not None else None)
        known = verified.view(cfg)
        if version == "latest":
            one = cfg.suite(suite)
            rollback = known.rolled_back.get(one.name)
            if rollback is not None:
                raise IntegrityError(f"cannot tell the latest version: {rollback.message}", hint=_AUDIT)
            newest = latest_usable(Suite.of(one).versions(), known)
            if newest is None:
                raise UsageError(f"suite {one.name!r} has no version that is not yanked")
            frozen = newest
        else:
            one = config_mod.suite_of_label(cfg, version, suite)
            frozen = browse.find(one, version)
    except UsageError as exc:
        raise UsageError(exc.message, hint=_api_hint(exc.hint)) from None
    contradicted = known.contradiction(frozen.name)
    if contradicted is not None:
        # Before the audit: a re-cut version audits clean by itself; only the signed head knows it was replaced.
        raise IntegrityError(contradicted.message, hint=_AUDIT)
    result, frozen_files = audit.integrity(one, frozen)  # every hash, and every proof of the audit
    require_intact(frozen, result)
    data = read_checked(frozen, frozen_files)
    group_digests = fixture_digests(data)
    harbor = browse.harbor_digests(data) or {}
    status = known.of(frozen.name)
    problems = tuple(str(p) for p in known.log.problems)
    unverified = tuple(str(p) for p in known.unverified(frozen.name))
    if problems:
        warnings.warn(
            f"the status log holds lines that are not status, ignored: {_listed(problems)} (run freezer audit)",
            StatusLogWarning,
            stacklevel=2,
        )
    against = tuple(str(p) for p in known.checkpoint_problems)
    if against:
        warnings.warn(f"the checkpoint: {_listed(against)} (run freezer audit)", CheckpointWarning, stacklevel=2)
    if status.status == "yanked":
        warnings.warn(f"{frozen.name} is yanked: {status.reason or 'no reason given'}", YankedWarning, stacklevel=2)
    return FrozenSet(
        name=frozen.name,
        status=status,
        path=frozen.path,
        manifest=data.manifest_json,
        manifest_sha256=frozen.manifest_sha256(),
        version=data.version,
        fixtures=data.fixtures,
        digests={task: d.score for task, d in group_digests.items()},
        group_digests=group_digests,
        harbor=harbor,
        status_problems=problems,
        unverified=unverified,
        checkpoint_problems=against,
    )


@dataclass(frozen=True)
class Comparable:
    """The fixtures whose scores can be compared between two versions, for one arm."""

    arm: str
    fixtures: list[str]
    subset_sha256: str
    excluded: dict[str, str]  # task id → why not
    classes: dict[str, str]  # task id → unchanged, cosmetic, changed, added or removed


def comparable(
    a: str,
    b: str,
    arm: str | None = None,
    registry: str | os.PathLike[str] | None = None,
    suite: str | None = None,
) -> Comparable:
    """The comparable subset of versions ``a`` and ``b`` for ``arm`` (needed when the suite has several)."""
    try:
        cfg = config_mod.load(Path(registry) if registry is not None else None)
        one = config_mod.suite_of_label(cfg, a, suite)
        records = browse.compare(one, browse.find(one, a), browse.find(one, b), arm)
    except UsageError as exc:
        raise UsageError(exc.message, hint=_api_hint(exc.hint)) from None
    if len(records) != 1:
        names = ", ".join(r.arm for r in records)
        raise UsageError(f"suite {one.name!r} has several arms ({names}); pass arm=")
    [record] = records
    return Comparable(record.arm, record.comparable, record.subset_sha256, record.excluded, record.classes)


_AUDIT = "run freezer audit for the full report; restore the version the checkpoint signed"


def _api_hint(hint: str | None) -> str | None:
    """The CLI's hints name its options; a harness calling the API needs the argument instead."""
    if hint and "--registry" in hint:
        return "pass registry='path/to/registry' (the folder with freezer.yaml) to freezer.load"
    if hint and "--suite" in hint:
        return "pass suite='name' to freezer.load, or name the version as <suite>_vN"
    return hint
