"""``freezer results import`` and ``results check --from``: scores from the harnesses people run.

Each harness's file is read by its own module (:mod:`.lmeval`, :mod:`.inspectlog`, :mod:`.harbor`),
which maps its names for fixtures through the suite's identity rule and refuses what the frozen
version contradicts (:mod:`.target`); the result is freezer's own rows, which ``results check``
then checks as it checks any results file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from freezer.domain.errors import UsageError
from freezer.domain.problems import Problem, display_path
from freezer.query.harness import harbor, inspectlog, lmeval
from freezer.query.harness.target import Scores, one_of, target
from freezer.registry.config import RegistryConfig
from freezer.schema.resultrow import ResultRow

Harness = Literal["lm-eval", "inspect", "harbor"]
HARNESSES: tuple[Harness, ...] = ("lm-eval", "inspect", "harbor")
_READERS: dict[str, Callable[..., None]] = {"lm-eval": lmeval.read, "inspect": inspectlog.read, "harbor": harbor.read}


@dataclass
class Imported:
    """The rows one import made, or the problems that refused its files."""

    harness: str
    version: str
    arm: str
    files: int
    rows: list[ResultRow] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)  # checks the files' format did not allow
    problems_not_shown: int = 0  # found beyond MAX_RESULT_PROBLEMS
    model: str | None = None  # as the files record it (None: they do not)
    harness_version: str | None = None  # the harness's release, as the files record it

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, object]:
        return {
            "harness": self.harness,
            "version": self.version,
            "arm": self.arm,
            "files": self.files,
            "rows": len(self.rows),
            "model": self.model,
            "harness_version": self.harness_version,
            "unchecked": self.unchecked,
            "problems": [p.to_json() for p in self.problems],
            "problems_not_shown": self.problems_not_shown,
        }

    @property
    def problem_count(self) -> int:
        return len(self.problems) + self.problems_not_shown


def import_files(
    config: RegistryConfig,
    harness: str,
    paths: list[Path],
    *,
    version: str,
    arm: str | None = None,
    metric: str | None = None,
    run: str | None = None,
) -> Imported:
    """freezer's rows for the scores in ``paths``, files of ``harness`` that ran ``version``;
    :class:`UsageError` for an unknown harness, version or arm, or a path that names nothing."""
    reader = _READERS.get(harness)
    if reader is None:
        raise UsageError(f"--from {harness!r} is no harness freezer reads; one of: {', '.join(HARNESSES)}")
    for path in paths:
        if not path.exists() and not path.is_symlink():
            raise UsageError(f"{display_path(path)}: file not found", hint="name the harness's result files")
        if path.is_dir() and harness != "harbor":
            raise UsageError(f"{display_path(path)}: is a folder", hint=f"name {harness}'s result files in it")
    frozen = target(config, version, arm)
    scores = Scores(frozen, harness)
    files: list[tuple[Path, Path | None]] = []
    for path in paths:
        if harness != "harbor":
            files.append((path, None))
            continue
        found, refused = harbor.files_of(path)
        for problem in refused:
            scores.refuse(problem)
        files.extend((file, None if file == path else path) for file in found)
    if not files and not scores.problems:
        raise UsageError(f"{', '.join(display_path(p) for p in paths)}: no trial result.json in the job folder")
    for file, below in files:
        reader(file, scores, metric=metric, run=run, below=below)
    imported = Imported(harness, frozen.name, frozen.arm, len(files), problems=scores.problems)
    imported.problems_not_shown = scores.problems_not_shown
    imported.unchecked = sorted(scores.unchecked)
    imported.model, imported.harness_version = one_of(scores.models), one_of(scores.releases)
    if not scores.problems:
        imported.rows = scores.rows()
        if not imported.rows:
            imported.problems.append(
                Problem(display_path(paths[0]), None, None, (), "holds no score of a fixture", "import")
            )
    return imported
