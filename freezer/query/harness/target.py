"""The frozen version a harness's scores are imported into, and the rows they become.

A harness names a fixture its own way: lm-eval by the task's ``task:``, Inspect by the sample id,
Harbor by the task's folder. Each name goes through the suite's identity rule as the version was
frozen: the fixture's task id (the ``task:`` key, the record's ``task_id`` field, the task file's
field) or, for a folders suite, the fixture's folder name as well. A name that is no landed fixture
of the version is refused with the file and the name. The row a score becomes is freezer's own
(schemas/results.schema.json), with the fixture digest the version froze.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from freezer.compare.landeddigests import score_digests
from freezer.domain.errors import UsageError
from freezer.domain.escape import clipped, quoted
from freezer.domain.findings import JsonPath
from freezer.domain.harbordigest import HarborDigest
from freezer.domain.jsontypes import JsonObject
from freezer.domain.problems import Problem
from freezer.kinds.catalog import kind_of
from freezer.query import browse
from freezer.query.harness.jsondoc import JsonDocument
from freezer.registry import registry
from freezer.registry.config import RegistryConfig
from freezer.registry.model import Registry
from freezer.registry.record import arms_of, read
from freezer.runtime.limits import MAX_RESULT_PROBLEMS
from freezer.schema.resultrow import ResultRow, is_row

MAX_RUN = 200  # the schema's longest run name
_HASH_SHOWN = 130  # a SHA-512 in hex, whole; a longer 'hash' is data, cut


@dataclass(frozen=True)
class Target:
    """A frozen version, read once: its landed fixtures by task id and by every other name the
    identity rule gives them, their frozen documents and score digests, the arm the rows score."""

    name: str
    number: int
    rule: str  # how its kind names a fixture, for a message
    manifest_sha256: str
    arm: str
    documents: Mapping[str, JsonObject]  # task id → the frozen fixture
    digests: Mapping[str, str]  # task id → score digest
    names: Mapping[str, str]  # harness name → task id
    dropped: frozenset[str]
    harbor: Mapping[str, HarborDigest]  # task id → its Harbor digest (a folders suite's only)

    def task_id(self, name: str) -> str | None:
        return self.names.get(name)

    def unknown(self, name: str) -> str:
        """Why ``name`` maps to no fixture, and what to do."""
        if name in self.dropped:
            return f"{quoted(name)} is a dropped fixture of {self.name}: its score is not part of the version"
        return (
            f"{quoted(name)} names no landed fixture of {self.name} (by its identity rule: "
            f"{self.rule}); score the frozen version's own fixtures"
        )

    def labels(self) -> frozenset[str]:
        """The ways a harness may record this version as its task version."""
        return frozenset({str(self.number), f"v{self.number}", self.name})


def target(config: RegistryConfig, version: str, arm: str | None) -> Target:
    """The frozen version named ``version`` (e.g. graph_v2); :class:`UsageError` when there is none,
    or when the arm is not given and the version was cut with several."""
    found: registry.FrozenVersion | None = None
    names = []
    for _, frozen in Registry(config).every_version():
        names.append(frozen.name)
        if frozen.name == version:
            found = frozen
    if found is None:
        known = ", ".join(names) or "none"
        raise UsageError(f"--version {version!r} names no frozen version of this registry; its versions: {known}")
    return _read(found, arm)


def _read(frozen: registry.FrozenVersion, arm: str | None) -> Target:
    data = read(frozen)
    kind = kind_of(data.manifest.fixture_kind)  # as the version was cut, whatever freezer.yaml says today
    arms = arms_of(frozen.manifest_model())
    if arm is None:
        if len(arms) != 1:
            raise UsageError(f"{frozen.name} was cut with the arms {', '.join(arms)}: name the one that ran with --arm")
        [arm] = arms
    elif arm not in arms:
        raise UsageError(f"{frozen.name} has no arm {arm!r}; its arms: {', '.join(arms)}")
    documents = {f["task_id"]: f for f in data.fixtures if f["status"] == "landed"}
    by_name = {task: task for task in documents}
    for task, document in documents.items():
        for name in kind.other_names(document):
            by_name.setdefault(name, task)
    dropped = frozenset(f["task_id"] for f in data.fixtures if f["status"] != "landed")
    digests = score_digests(data)
    harbor = browse.harbor_digests(data) or {}
    return Target(
        frozen.name,
        frozen.number,
        kind.task_id_rule,
        frozen.manifest_sha256(),
        arm,
        documents,
        digests,
        by_name,
        dropped,
        harbor,
    )


@dataclass
class Scores:
    """What one import gathered: each (run, task id)'s scores (several when a harness ran a task more
    than once: Inspect's epochs, Harbor's attempts, averaged as both harnesses do by default), the
    problems, and what each format could and could not check."""

    target: Target
    harness: str
    gathered: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    fingerprints: dict[str, tuple[str, str]] = field(default_factory=dict)  # task id → (hash, where)
    unchecked: set[str] = field(default_factory=set)  # checks a file's format did not allow
    problems_not_shown: int = 0  # found beyond MAX_RESULT_PROBLEMS
    models: set[str] = field(default_factory=set)  # the models the files record
    releases: set[str] = field(default_factory=set)  # the harness's releases the files record

    def recorded(self, model: object, release: object) -> None:
        """Keep the model and the harness's release a file records (a value that is no text is not one)."""
        if isinstance(model, str) and model.strip():
            self.models.add(run_name(model))
        if isinstance(release, str) and release.strip():
            self.releases.add(run_name(release))

    @property
    def problem_count(self) -> int:
        return len(self.problems) + self.problems_not_shown

    def refuse(self, problem: Problem) -> None:
        """Keep ``problem``, or only count it once :data:`MAX_RESULT_PROBLEMS` are kept."""
        if len(self.problems) < MAX_RESULT_PROBLEMS:
            self.problems.append(problem)
        else:
            self.problems_not_shown += 1

    def refuse_at(self, doc: JsonDocument, where: JsonPath, message: str) -> None:
        """:meth:`refuse` a problem at ``where`` in ``doc``, located only when it is kept."""
        if len(self.problems) < MAX_RESULT_PROBLEMS:
            self.problems.append(doc.problem(where, message))
        else:
            self.problems_not_shown += 1

    def add(self, run: str, task: str, score: float) -> None:
        self.gathered.setdefault((run, task), []).append(score)

    def fingerprint(self, task: str, value: str, where: str) -> str | None:
        """Record the harness's hash of a task's content; the refusal when another file ran other content."""
        seen = self.fingerprints.setdefault(task, (value, where))
        if seen[0] == value:
            return None
        return (
            f"ran {task} with content hash {clipped(value, _HASH_SHOWN)}, "
            f"but {seen[1]} ran it with {clipped(seen[0], _HASH_SHOWN)}: "
            "two different tasks"
        )

    def rows(self) -> list[ResultRow]:
        """freezer's result rows, valid against schemas/results.schema.json, in a stable order."""
        out = []
        for (run, task), scores in sorted(self.gathered.items()):
            fingerprint = self.fingerprints.get(task)
            row = ResultRow(
                self.target.manifest_sha256,
                task,
                self.target.arm,
                round(math.fsum(scores) / len(scores), 6),
                run,
                self.target.digests[task],
                self.harness,
                fingerprint[0] if fingerprint is not None else None,
            )
            if is_row(row.to_json()):  # every value was checked on the way in; a row that is not one is never written
                out.append(row)
        return out


def score_value(value: object) -> float | None:
    """A harness's score as freezer takes it: a number from 0 to 1, or true/false (None if not)."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)) and math.isfinite(value) and 0 <= value <= 1:
        return float(value) + 0.0
    return None


def one_of(values: set[str]) -> str | None:
    """What several files record of one run: the value they agree on, every one of them when they
    differ (a run is never said to be of one model when its files name two), None when none does."""
    return " + ".join(sorted(values)) or None


def run_name(*parts: object) -> str:
    """A run name from what a harness recorded about the run, in the schema's bounds."""
    text = " ".join(str(p) for p in parts if p not in (None, ""))
    return "".join(c if c.isprintable() else "?" for c in text)[:MAX_RUN] or "run"


def located(path: JsonPath) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
