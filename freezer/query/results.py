"""``freezer results check``: scores from different versions are pooled only where comparable.

Result files are JSON Lines (schemas/results.schema.json): each row names the
frozen version by its manifest hash, the fixture, the arm and the score. Rows
that name an unknown version, a fixture the version did not land, or an arm
the suite does not declare are problems. When the rows span several versions,
only fixtures comparable between every pair of them (for the row's arm) may be
pooled; every other fixture is named with its reason, and each run is
re-aggregated on the common subset.

Rows are pooled by what their arm depends on, as each version froze it, not by
its name alone: arms of one name are one pool, and so are arms that depend on the
same dimensions (an arm renamed between versions, or added beside one it
repeats), compared with everything any of them depends on. Arms that depend on
different things under different names are never pooled.

Files are streamed (freezer.parse.jsonlines, freezer.parse.strictjson), and nothing is kept per row: each
(version, arm, run) keeps a count, a pass count and a sum. Only when some
fixture must be left out of the pool are the files read a second time, to
total each run again on the common subset. So memory is bounded by the
registry and :data:`MAX_RESULT_RUNS`, whatever the size of the files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from freezer.compare.landeddigests import score_digests
from freezer.domain.errors import FreezerError, UsageError
from freezer.domain.escape import quoted
from freezer.domain.findings import JsonPath
from freezer.domain.jsontypes import JsonObject
from freezer.domain.problems import Problem, display_path
from freezer.parse import jsonlines, strictjson
from freezer.query import browse
from freezer.registry import registry
from freezer.registry.config import RegistryConfig, SuiteConfig
from freezer.registry.model import Registry
from freezer.registry.record import arms_of, read
from freezer.runtime.limits import MAX_RESULT_PROBLEMS, MAX_RESULT_ROW_BYTES, MAX_RESULT_RUNS
from freezer.schema.resultrow import is_row, row_problems
from freezer.trust import verified


@dataclass
class RunSummary:
    """One run of an arm on one version, totalled over its pool's common subset: a line of ``results check``."""

    version: str
    arm: str
    run: str
    fixtures: int  # rows on the common subset
    passed: int
    mean: float
    pool: str  # the arms pooled with this one, by what they depend on: the key of ``common``

    def to_json(self) -> JsonObject:
        return dict(self.__dict__)


@dataclass
class ResultsReport:
    """``freezer results check``'s outcome; it fails on a problem with the rows, or a fixture that cannot be pooled."""

    rows: int = 0
    problems: list[Problem] = field(default_factory=list)
    problems_not_shown: int = 0  # found beyond MAX_RESULT_PROBLEMS
    versions: list[str] = field(default_factory=list)
    common: dict[str, list[str]] = field(default_factory=dict)  # pool → comparable task ids
    excluded: dict[str, dict[str, str]] = field(default_factory=dict)  # pool → task id → reason
    runs: list[RunSummary] = field(default_factory=list)

    @property
    def pooled_refused(self) -> bool:
        return any(self.excluded.values())

    @property
    def ok(self) -> bool:
        return not self.problems and not self.pooled_refused

    def to_json(self) -> dict[str, object]:
        return {
            "rows": self.rows,
            "versions": self.versions,
            "pooled_refused": self.pooled_refused,
            "common": self.common,
            "excluded": self.excluded,
            "runs": [run.to_json() for run in self.runs],
            "problems": [p.to_json() for p in self.problems],
            "problems_not_shown": self.problems_not_shown,
        }

    @property
    def problem_count(self) -> int:
        return len(self.problems) + self.problems_not_shown

    @property
    def has_room(self) -> bool:
        return len(self.problems) < MAX_RESULT_PROBLEMS

    def room(self) -> bool:
        """Whether another problem would be kept (if not, it is only counted, and costs no message)."""
        if len(self.problems) < MAX_RESULT_PROBLEMS:
            return True
        self.problems_not_shown += 1
        return False


@dataclass
class Tally:
    """One run's running total over its rows (a (version, arm, run) here, a stored file's run in
    ``results table``): what a pass over the rows keeps instead of the rows."""

    fixtures: int = 0
    passed: int = 0
    total: float = 0.0

    def add(self, score: float) -> None:
        self.fixtures += 1
        self.passed += score >= 1
        self.total += score


Run = tuple[str, str, str]  # (version, arm, run)


@dataclass(frozen=True)
class MemoryRows:
    """Rows made in memory (``results check --from``: a harness's files imported), checked as a file's."""

    shown: str  # the files they came from, as the user named them
    lines: tuple[bytes, ...]


@dataclass
class _Version:
    """A frozen version the rows may name by its manifest hash; its arms and landed fixtures are read when
    a row first needs them."""

    suite: SuiteConfig
    frozen: registry.FrozenVersion
    name: str
    arms: Mapping[str, tuple[str, ...]] | None = None  # as cut: arm → what it depends on, read when first named
    landed: dict[str, str] | None = None  # task id → score digest, read when a row first names it

    def frozen_arms(self) -> Mapping[str, tuple[str, ...]]:
        """The arms the version was cut with and what each depends on (its frozen record), never
        today's freezer.yaml's."""
        if self.arms is None:
            try:
                self.arms = arms_of(self.frozen.manifest_model())
            except (FreezerError, KeyError, TypeError, ValueError):
                read(self.frozen)  # raises the integrity failure that explains it
                self.arms = {}
        return self.arms


class _Rows:
    """The pass over the rows of every file, with the registry they are checked against."""

    def __init__(self, config: RegistryConfig, report: ResultsReport) -> None:
        self.report = report
        self.known: dict[str, _Version] = {}  # manifest sha256 → version
        for suite, frozen in Registry(config).every_version():
            try:
                self.known[frozen.manifest_sha256()] = _Version(suite.config, frozen, frozen.name)
            except OSError:
                continue
        self.tallies: dict[Run, Tally] = {}
        self.versions: dict[str, set[str]] = {}  # arm → versions
        self.depends: dict[tuple[str, str], tuple[str, ...]] = {}  # (version, arm) → what the arm depends on
        self.tasks: dict[str, set[str]] = {}  # arm → task ids
        self.suites: set[str] = set()
        self.identities: dict[Path, tuple[int, ...]] = {}  # what the first pass read
        self.common: dict[str, set[str]] | None = None  # set for the second pass: arm → poolable task ids
        self.shown = ""
        self.number = 0
        self.raw: bytes | None = None

    def read(self, paths: Sequence[Path | MemoryRows]) -> None:
        """One pass over every file. The first checks and counts; a second (``common`` set) re-totals
        each run on the common subset only, and reports nothing the first did not."""
        for path in paths:
            if isinstance(path, MemoryRows):
                self.shown = path.shown
                for self.number, self.raw in enumerate(path.lines, 1):
                    self._line(self.raw)
                continue
            self.shown = display_path(path)
            try:
                lines = jsonlines.open_lines(path)
            except jsonlines.FileRefused as exc:
                self._file_problem(str(exc))
                continue
            if self.common is not None and lines.identity != self.identities.get(path):
                lines.close()
                self._file_problem("changed while it was checked; run the check again", second_pass_too=True)
                continue
            self.identities[path] = lines.identity
            seen = False
            try:
                for self.number, self.raw in lines:
                    if self.raw is not None and not self.raw.strip(b" \t\r"):
                        continue
                    seen = True
                    self._line(self.raw)
            except jsonlines.FileRefused as exc:
                self._file_problem(str(exc))
                continue
            if not seen:
                self._file_problem("holds no result rows: a results file has one JSON object per line")

    def _file_problem(self, message: str, second_pass_too: bool = False) -> None:
        if (self.common is None or second_pass_too) and self.report.room():
            self.report.problems.append(Problem(self.shown, None, None, (), message, "file"))

    def _problem(self, where: JsonPath, message: str, col: int | None = None) -> None:
        if self.common is not None or not self.report.room():
            return
        if col is None:
            col = strictjson.value_column(self.raw.decode("utf-8"), where) if self.raw else 1
        self.report.problems.append(Problem(self.shown, self.number, col, where, message, "results"))

    def _line(self, raw: bytes | None) -> None:
        if raw is None:
            self._problem((), f"line is over the {MAX_RESULT_ROW_BYTES}-byte limit for a result row", 1)
            return
        try:
            data = strictjson.parse_line(raw, locate=self.common is None and self.report.has_room)
        except strictjson.LineRefused as exc:
            self._problem(exc.path, exc.message, exc.col)
            return
        if not is_row(data):
            for where, message in row_problems(data):
                self._problem(where, message)
            return
        if self.common is None:
            self.report.rows += 1
        version = self.known.get(data["manifest_sha256"])
        if version is None:
            self._problem(("manifest_sha256",), "names no frozen version of this registry: a run of an unknown version")
            return
        arm, task = data["arm"], data["task_id"]
        if arm not in version.frozen_arms():
            arms = ", ".join(sorted(version.frozen_arms()))
            self._problem(("arm",), f"suite {version.suite.name!r} has no arm {arm!r}; its arms: {arms}")
            return
        if version.landed is None:
            version.landed = score_digests(read(version.frozen))
        digest = version.landed.get(task)
        if digest is None:
            self._problem(("task_id",), f"{quoted(task)} is not a landed fixture of {version.name}")
            return
        if "fixture_digest" in data and data["fixture_digest"] != digest:
            self._problem(("fixture_digest",), f"does not match {version.name}'s fixture (the run used other content)")
            return
        self._count(version, arm, task, data.get("run") or self.shown, data["score"])

    def _count(self, version: _Version, arm: str, task: str, run: str, score: float | bool) -> None:
        key = (version.name, arm, run)
        tally = self.tallies.get(key)
        if self.common is not None:
            if tally is not None and task in self.common[arm]:
                tally.add(float(score) + 0.0)
            return
        if tally is None:
            if len(self.tallies) >= MAX_RESULT_RUNS:
                self._problem(("run",), f"more than {MAX_RESULT_RUNS} runs in these files; check them in parts")
                return
            tally = self.tallies[key] = Tally()
            self.suites.add(version.suite.name)
            self.versions.setdefault(arm, set()).add(version.name)
            self.depends[(version.name, arm)] = version.frozen_arms()[arm]
        self.tasks.setdefault(arm, set()).add(task)
        tally.add(float(score) + 0.0)  # true counts as 1, false as 0; + 0.0 turns -0.0 into 0.0


def _life(report: ResultsReport, known: verified.VerifiedView, shown: str, *, allow_yanked: bool) -> None:
    """What the verified view says against the versions the rows score: a yank (unless allowed), a
    checkpoint that records another version under the name, an event in the log nobody verified."""

    def problem(message: str) -> None:
        report.problems.append(Problem(shown, None, None, (), message, "results"))

    for name in report.versions:
        status = known.of(name)
        if status.status == "yanked" and not allow_yanked:
            why = f" ({status.reason})" if status.reason else ""
            problem(
                f"rows score {name}, which is yanked{why}: its scores must not be pooled "
                "(pass --allow-yanked to check them anyway)"
            )
        contradicted = known.contradiction(name)
        if contradicted is not None:
            problem(f"rows score {name}, but {contradicted.message}")
        for line in known.unverified(name):
            problem(f"rows score {name}, named by an event the status log cannot verify: {line}")


def _shown(path: Path | MemoryRows) -> str:
    return path.shown if isinstance(path, MemoryRows) else display_path(path)


def check(config: RegistryConfig, paths: Sequence[Path | MemoryRows], *, allow_yanked: bool = False) -> ResultsReport:
    """Check every row of ``paths``; :class:`UsageError` when a path names no file. Rows of a yanked
    version are refused unless ``allow_yanked`` (the verified status log says which are)."""
    for path in paths:
        if isinstance(path, MemoryRows):
            continue
        if not path.exists() and not path.is_symlink():
            raise UsageError(f"{display_path(path)}: file not found", hint="name results files that exist")
        if path.is_dir():
            raise UsageError(f"{display_path(path)}: is a folder", hint="name the results files in it (runs/*.jsonl)")
    report = ResultsReport()
    rows = _Rows(config, report)
    rows.read(paths)
    by_name = {frozen.name: (suite.config, frozen) for suite, frozen in Registry(config).every_version()}
    every = {name for names in rows.versions.values() for name in names}
    report.versions = sorted(every, key=lambda name: (by_name[name][1].suite, by_name[name][1].number))
    _life(report, verified.view(config), _shown(paths[0]), allow_yanked=allow_yanked)
    if len(rows.suites) > 1:
        report.problems.append(
            Problem(
                _shown(paths[0]),
                None,
                None,
                (),
                f"rows span several suites ({', '.join(sorted(rows.suites))})",
                "results",
            )
        )
        return report
    pool_of: dict[str, str] = {}  # arm → its pool's name
    for pool in _pools(rows.depends):
        label = POOLED.join(sorted({arm for _, arm in pool}))
        depends = tuple(dict.fromkeys(d for node in pool for d in rows.depends[node]))
        tasks = sorted({task for _, arm in pool for task in rows.tasks[arm]})
        excluded: dict[str, str] = {}
        names = sorted({version for version, _ in pool}, key=lambda name: by_name[name][1].number)
        for i, first in enumerate(names):
            for second in names[i + 1 :]:
                suite, a = by_name[first]
                [record] = browse.compare(suite, a, by_name[second][1], label, depends=depends)
                for task in tasks:
                    if task not in record.comparable and task not in excluded:
                        why = record.excluded.get(task, "not landed in both")
                        excluded[task] = f"{first} → {second}: {why}"
        report.excluded[label] = excluded
        report.common[label] = [task for task in tasks if task not in excluded]
        pool_of.update((arm, label) for _, arm in pool)
    if report.pooled_refused:
        for tally in rows.tallies.values():
            tally.fixtures, tally.passed, tally.total = 0, 0, 0.0
        rows.common = {arm: set(report.common[label]) for arm, label in pool_of.items()}
        rows.read(paths)
    for (version, arm, run), tally in sorted(rows.tallies.items(), key=lambda item: (pool_of[item[0][1]], *item[0])):
        if tally.fixtures:  # pool by pool, as the report prints them
            mean = round(tally.total / tally.fixtures, 6)
            report.runs.append(RunSummary(version, arm, run, tally.fixtures, tally.passed, mean, pool_of[arm]))
    return report


POOLED = " = "  # between the names of arms pooled as one, in a pool's name


def _pools(depends: Mapping[tuple[str, str], tuple[str, ...]]) -> list[list[tuple[str, str]]]:
    """The (version, arm)s whose rows may be pooled, grouped: joined when their arms share a name or
    depend on the same dimensions; in a stable order (by the pool's first arm)."""
    parent = {node: node for node in depends}

    def root(node: tuple[str, str]) -> tuple[str, str]:
        while parent[node] != node:
            parent[node] = node = parent[parent[node]]
        return node

    first: dict[object, tuple[str, str]] = {}
    for node in sorted(depends):
        for key in (("name", node[1]), ("depends", frozenset(depends[node]))):
            seen = first.setdefault(key, node)
            parent[root(node)] = root(seen)
    groups: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for node in sorted(depends):
        groups.setdefault(root(node), []).append(node)
    return sorted(groups.values(), key=lambda pool: sorted(arm for _, arm in pool))
