"""``freezer results table``: the leaderboard of the stored runs, which never pools the incomparable.

Each suite gets one table per version that has stored runs (``results/<suite>_vN/``): one line per
run, its model, harness and release, how many fixtures it scored and its mean. Then, for the
versions that may be pooled (a yanked one never is), one cross-version table per pool of arms,
computed by ``results check``'s own rule (:func:`freezer.query.results.check`) over the fixtures
comparable between every pair of them, with the subset's size and digest; every fixture left out
is named with its reason.

The stored runs are verified first (:func:`freezer.guard.storedresults.verify`, as ``audit`` does):
a table over a hand-edited row would lie, so a suite with a problem shows its problems, no number.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from freezer.compare.comparability import subset_sha256
from freezer.compare.landeddigests import score_digests
from freezer.domain.errors import UsageError
from freezer.domain.problems import Problem
from freezer.guard import storedresults
from freezer.query import results
from freezer.registry import registry
from freezer.registry.config import RegistryConfig
from freezer.registry.model import Registry, Suite
from freezer.registry.record import read
from freezer.trust import verified


@dataclass(frozen=True)
class StoredScore:
    """One stored run's score on its own version: every row it stored."""

    stored: str  # the stored file, relative to the registry
    model: str  # as stored; the rows' run name when the run did not record one
    harness: str
    harness_version: str | None
    arm: str
    metric: str | None
    fixtures: int
    passed: int
    mean: float | None  # None: the run stored no row

    def to_json(self) -> dict[str, object]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class VersionTable:
    """One version's stored runs, with what its status log says of it."""

    version: str
    status: str  # current, deprecated or yanked
    reason: str | None  # why it was yanked, or what superseded it
    runs: tuple[StoredScore, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "version": self.version,
            "status": self.status,
            "reason": self.reason,
            "runs": [run.to_json() for run in self.runs],
        }


@dataclass(frozen=True)
class CrossRow:
    """One run's scores across the versions, each on the comparable subset only (None: no run there)."""

    model: str
    harness: str
    scores: dict[str, float | None]  # version → mean over the subset

    def to_json(self) -> dict[str, object]:
        return {"model": self.model, "harness": self.harness, "scores": dict(self.scores)}


@dataclass(frozen=True)
class CrossTable:
    """The versions' scores, pooled only over the fixtures comparable between every pair of them."""

    arm: str  # the pool of arms (results check's pool name)
    versions: tuple[str, ...]
    subset: tuple[str, ...]  # the comparable task ids
    subset_sha256: str  # over each comparable task id and its score digest in the newest version
    excluded: dict[str, str]  # task id → why it is not comparable
    rows: tuple[CrossRow, ...]
    left_out: dict[str, str]  # version → why its runs are not in this table (yanked)

    def to_json(self) -> dict[str, object]:
        return {
            "arm": self.arm,
            "versions": list(self.versions),
            "subset_size": len(self.subset),
            "subset_sha256": self.subset_sha256,
            "subset": list(self.subset),
            "excluded": dict(self.excluded),
            "rows": [row.to_json() for row in self.rows],
            "left_out": dict(self.left_out),
        }


@dataclass(frozen=True)
class Step:
    """Two consecutive pooled versions: the fixtures their runs score that cannot be compared across
    the step (none: each version's whole score may be set beside the other's)."""

    old: str
    new: str
    excluded: dict[str, str]  # task id → why

    def to_json(self) -> dict[str, object]:
        return {"from": self.old, "to": self.new, "comparable": not self.excluded, "excluded": dict(self.excluded)}


@dataclass
class SuiteTable:
    """One suite's part of ``results table``: its version and cross-version tables, or the problems that stop them."""

    suite: str
    versions: list[VersionTable] = field(default_factory=list)
    cross: list[CrossTable] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "suite": self.suite,
            "versions": [v.to_json() for v in self.versions],
            "cross": [c.to_json() for c in self.cross],
            "steps": [s.to_json() for s in self.steps],
            "problems": [p.to_json() for p in self.problems],
        }


@dataclass
class Leaderboard:
    """What ``results table`` shows: every suite's tables, or the problems that stop them."""

    suites: list[SuiteTable] = field(default_factory=list)

    @property
    def problems(self) -> list[Problem]:
        return [p for suite in self.suites for p in suite.problems]

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, object]:
        return {"suites": [s.to_json() for s in self.suites], "problems": [p.to_json() for p in self.problems]}


def table(config: RegistryConfig, suite: str | None = None) -> Leaderboard:
    """The leaderboard of every suite's stored runs (``suite``'s only, when given); :class:`UsageError`
    for a suite the registry does not have."""
    known = Registry(config).suites
    if suite is not None and suite not in known:
        raise UsageError(f"--suite {suite!r} names no suite of this registry; its suites: {', '.join(known)}")
    view = verified.view(config)
    board = Leaderboard()
    for name, one in known.items():
        if suite is None or name == suite:
            board.suites.append(_suite_table(config, one, view))
    return board


def _suite_table(config: RegistryConfig, suite: Suite, view: verified.VerifiedView) -> SuiteTable:
    out = SuiteTable(suite.config.name)
    frozen = [v for v in suite.versions() if (config.root / registry.RESULTS_FOLDER / v.name).exists()]
    if not frozen:
        return out
    out.problems = storedresults.verify(config, {v.name for v in frozen})
    if out.problems:
        return out
    lines: dict[str, list[bytes]] = {}  # version → its rows, each run renamed to its stored file, for results check
    by_key: dict[str, StoredScore] = {}  # a run's key in the rows handed to results check → its score
    firsts: dict[str, dict[tuple[str, str], bytes]] = {}  # version → (arm, task) → its first row
    for version in frozen:
        status = view.of(version.name)
        reason = status.reason if status.status == "yanked" else status.superseded_by
        version_rows = _Kept(lines.setdefault(version.name, []), firsts.setdefault(version.name, {}))
        paths = _stored(config.root, version.name)
        scores = tuple(score for path in paths for score in _scored(config.root, path, version_rows, by_key))
        out.versions.append(VersionTable(version.name, status.status, reason, scores))
    pooled = [v for v in out.versions if v.status != "yanked"]
    if len(pooled) < 2:
        return out
    left_out = {v.version: f"yanked ({v.reason})" if v.reason else "yanked" for v in out.versions if v not in pooled}
    names = {v.version for v in pooled}
    shown = f"results/{suite.config.name}_v*"
    for old, new in itertools.pairwise(pooled):
        # A step's exclusions depend only on the (version, arm, task)s scored, not on runs or scores:
        # one row each is enough, and every row is still checked in the cross-version check below.
        pair = (*firsts[old.version].values(), *firsts[new.version].values())
        step = results.check(config, [results.MemoryRows(shown, pair)], allow_yanked=True)
        excluded = {task: why for pool in step.excluded.values() for task, why in pool.items()}
        out.steps.append(Step(old.version, new.version, excluded))
    kept = tuple(line for v in pooled for line in lines[v.version])
    report = results.check(config, [results.MemoryRows(shown, kept)], allow_yanked=True)
    if report.problems:
        out.problems = report.problems
        return out
    newest = max((v for v in frozen if v.name in names), key=lambda v: v.number)
    digests = score_digests(read(newest))
    for pool, common in report.common.items():
        rows: dict[tuple[str, str], dict[str, float | None]] = {}
        for run in (r for r in report.runs if r.pool == pool):
            score = by_key[run.run]
            cells = rows.setdefault((score.model, score.harness), dict.fromkeys(report.versions))
            if cells[run.version] is not None:  # a second run of one model on one version: a row of its own
                cells = rows.setdefault(
                    (f"{score.model} ({score.stored})", score.harness), dict.fromkeys(report.versions)
                )
            cells[run.version] = run.mean
        cross_rows = tuple(CrossRow(model, harness, cells) for (model, harness), cells in rows.items())
        subset = tuple(common)
        sha = subset_sha256(subset, digests)
        excluded = report.excluded.get(pool, {})
        out.cross.append(CrossTable(pool, tuple(report.versions), subset, sha, excluded, cross_rows, left_out))
    return out


def _stored(root: Path, version: str) -> Iterator[Path]:
    yield from sorted((root / registry.RESULTS_FOLDER / version).glob("*.jsonl"))


@dataclass(frozen=True)
class _Kept:
    """One version's verified rows, as handed to results check."""

    lines: list[bytes]  # every row, its run renamed to its key in ``by_key``
    firsts: dict[tuple[str, str], bytes]  # (arm, task) → its first row: what a step's exclusions depend on


def _scored(root: Path, path: Path, kept: _Kept, by_key: dict[str, StoredScore]) -> list[StoredScore]:
    """A verified stored file's scores, one per run in it (a harness's files may hold several); its
    rows kept, each renamed to a key of ``by_key`` that names its run's score."""
    stored = path.relative_to(root).as_posix()
    tallies: dict[str, results.Tally] = {}
    keys: dict[str, str] = {}
    with path.open("rb") as handle:
        header = json.loads(handle.readline())
        for raw in handle:
            row = json.loads(raw)
            run = str(row.get("run") or "")  # the schema leaves a row's run out when it has one run
            tally = tallies.get(run)
            if tally is None:
                tally = tallies[run] = results.Tally()
                keys[run] = f"stored run {len(by_key) + len(keys)}"  # short: a run name is at most 200 characters
            tally.add(float(row["score"]))
            row["run"] = keys[run]
            line = json.dumps(row).encode()
            kept.lines.append(line)
            kept.firsts.setdefault((row["arm"], row["task_id"]), line)
    arm, harness, release, metric = header["arm"], header["harness"], header["harness_version"], header["metric"]
    out = []
    for run, tally in tallies.items():
        # The stored model names the file's one run; a file of several runs is shown run by run.
        model = header["model"] if header["model"] is not None and len(tallies) == 1 else (run or stored)
        mean = round(tally.total / tally.fixtures, 6)
        score = StoredScore(stored, model, harness, release, arm, metric, tally.fixtures, tally.passed, mean)
        by_key[keys[run]] = score
        out.append(score)
    return out
