"""``freezer results check``: scores from different versions are pooled only where comparable.

Result files are JSON Lines (schemas/results.schema.json): each row names the
frozen version by its manifest hash, the fixture, the arm and the score. Rows
that name an unknown version, a fixture the version did not land, or an arm
the suite does not declare are problems. When the rows span several versions,
only fixtures comparable between every pair of them (for the row's arm) may be
pooled; every other fixture is named with its reason, and each run is
re-aggregated on the common subset.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from freezer import browse, registry, resources
from freezer.comparability import default_arms
from freezer.config import RegistryConfig, SuiteConfig
from freezer.problems import Problem, display_path
from freezer.reading import read_whole


@dataclass
class Row:
    file: str
    line: int
    version: str
    task_id: str
    arm: str
    run: str
    score: float


@dataclass
class RunSummary:
    version: str
    arm: str
    run: str
    fixtures: int  # rows on the common subset
    passed: int
    mean: float

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class ResultsReport:
    rows: int = 0
    problems: list[Problem] = field(default_factory=list)
    versions: list[str] = field(default_factory=list)
    common: dict[str, list[str]] = field(default_factory=dict)  # arm → comparable task ids
    excluded: dict[str, dict[str, str]] = field(default_factory=dict)  # arm → task id → reason
    runs: list[RunSummary] = field(default_factory=list)

    @property
    def pooled_refused(self) -> bool:
        return any(self.excluded.values())

    @property
    def ok(self) -> bool:
        return not self.problems and not self.pooled_refused


def _versions_by_hash(config: RegistryConfig) -> dict[str, tuple[SuiteConfig, registry.FrozenVersion]]:
    known = {}
    for suite in config.suites.values():
        for frozen in registry.frozen_versions(suite):
            try:
                known[frozen.manifest_sha256()] = (suite, frozen)
            except OSError:
                continue
    return known


def _schema_problems(row: Any) -> list[tuple[tuple[str | int, ...], str]]:
    import jsonschema

    validator = jsonschema.Draft202012Validator(resources.schema("results"))
    return [(tuple(e.absolute_path), e.message) for e in validator.iter_errors(row)]


def _read_rows(paths: list[Path], report: ResultsReport, config: RegistryConfig) -> list[Row]:
    known = _versions_by_hash(config)
    landed: dict[str, dict[str, str]] = {}  # version → task id → score digest
    rows = []
    for path in paths:
        shown = display_path(path)
        try:
            text = read_whole(path).decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            report.problems.append(Problem(shown, None, None, (), f"cannot be read: {exc}", "file"))
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue

            def problem(where: tuple[str | int, ...], message: str, at: str = shown, line_no: int = number) -> None:
                report.problems.append(Problem(at, line_no, None, where, message, "results"))

            try:
                data = json.loads(line)
            except (ValueError, RecursionError) as exc:
                problem((), f"not JSON: {exc}")
                continue
            found = _schema_problems(data)
            for where, message in found:
                problem(where, message)
            if found:
                continue
            report.rows += 1
            entry = known.get(data["manifest_sha256"])
            if entry is None:
                problem(("manifest_sha256",), "names no frozen version of this registry: a run of an unknown version")
                continue
            suite, frozen = entry
            if frozen.name not in landed:
                landed[frozen.name] = _score_digests(suite, frozen)
            arms = suite.arms or default_arms(list(suite.dimensions))
            if data["arm"] not in arms:
                problem(("arm",), f"suite {suite.name!r} has no arm {data['arm']!r}; its arms: {', '.join(arms)}")
                continue
            digest = landed[frozen.name].get(data["task_id"])
            if digest is None:
                problem(("task_id",), f"{data['task_id']!r} is not a landed fixture of {frozen.name}")
                continue
            if "fixture_digest" in data and data["fixture_digest"] != digest:
                problem(("fixture_digest",), f"does not match {frozen.name}'s fixture (the run used other content)")
                continue
            score = float(data["score"])  # true counts as 1, false as 0
            rows.append(Row(shown, number, frozen.name, data["task_id"], data["arm"], data.get("run") or shown, score))
    return rows


def _score_digests(suite: SuiteConfig, frozen: registry.FrozenVersion) -> dict[str, str]:
    return browse.score_digests(browse.read(frozen))


def check(config: RegistryConfig, paths: list[Path]) -> ResultsReport:
    report = ResultsReport()
    rows = _read_rows(paths, report, config)
    by_name = {
        frozen.name: (suite, frozen) for suite in config.suites.values() for frozen in registry.frozen_versions(suite)
    }
    report.versions = sorted(
        {row.version for row in rows}, key=lambda name: (by_name[name][1].suite, by_name[name][1].number)
    )
    suites = {by_name[name][0].name for name in report.versions}
    if len(suites) > 1:
        report.problems.append(
            Problem(
                display_path(paths[0]),
                None,
                None,
                (),
                f"rows span several suites ({', '.join(sorted(suites))})",
                "results",
            )
        )
        return report
    for arm in sorted({row.arm for row in rows}):
        arm_rows = [row for row in rows if row.arm == arm]
        tasks = sorted({row.task_id for row in arm_rows})
        excluded: dict[str, str] = {}
        names = sorted({row.version for row in arm_rows}, key=lambda name: by_name[name][1].number)
        for i, first in enumerate(names):
            for second in names[i + 1 :]:
                suite, a = by_name[first]
                [record] = browse.compare(suite, a, by_name[second][1], arm)
                for task in tasks:
                    if task not in record.comparable and task not in excluded:
                        why = record.excluded.get(task, "not landed in both")
                        excluded[task] = f"{first} → {second}: {why}"
        report.excluded[arm] = excluded
        report.common[arm] = [task for task in tasks if task not in excluded]
        runs: dict[tuple[str, str], list[Row]] = {}
        for row in arm_rows:
            if row.task_id in report.common[arm]:
                runs.setdefault((row.version, row.run), []).append(row)
        for (version, run), members in sorted(runs.items()):
            passed = sum(1 for row in members if row.score >= 1)
            mean = sum(row.score for row in members) / len(members)
            report.runs.append(RunSummary(version, arm, run, len(members), passed, round(mean, 6)))
    return report
