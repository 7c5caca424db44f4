"""``freezer check``: the pre-merge guard.

Against a base ref of the registry's own git repository, no file of a
version that was frozen in the base may be modified, deleted or renamed, and
every new version directory must verify and chain to its predecessor. The
cost follows the diff: git compares trees, and only new versions are
audited, so a registry with a thousand untouched versions costs the same as
one with ten.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from freezer import registry
from freezer.config import RegistryConfig
from freezer.errors import UsageError
from freezer.gitrepo import RegistryGit
from freezer.problems import Problem, display_path
from freezer.validate import validate_suite

_VERBS = {"M": "modified", "D": "deleted", "A": "added", "T": "changed type", "U": "unmerged"}


@dataclass
class CheckReport:
    base: str
    base_source: str
    problems: list[Problem] = field(default_factory=list)
    new_versions: list[str] = field(default_factory=list)
    drafts_checked: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


def _frozen_problem(path: str, message: str, line: int | None = None) -> Problem:
    return Problem(path, line, None, (), message, "frozen")


def check(config: RegistryConfig, base: str | None) -> CheckReport:
    git = RegistryGit(config.root)
    if not git.is_repo():
        raise UsageError(
            f"{display_path(config.root)} is not a git repository; freezer check compares against a base ref"
        )
    if base is None:
        base_sha, source = git.default_base()
    else:
        base_sha, source = git.resolve(base), base
    report = CheckReport(base_sha, source)
    for suite in config.suites.values():
        drafts = validate_suite(suite)
        report.drafts_checked += drafts.files
        report.problems.extend(drafts.problems)
        if not suite.versions.is_relative_to(config.root):
            continue
        versions_rel = suite.versions.relative_to(config.root).as_posix()
        # Suites may share a versions folder: each checks its own entries, and leaves the others' alone.
        neighbours = [
            re.compile(rf"^{re.escape(other.name)}_v[1-9][0-9]*$")
            for other in config.suites.values()
            if other is not suite and other.versions == suite.versions
        ]
        touched: dict[str, list[tuple[str, str]]] = {}
        for status, path in git.changes(base_sha, [versions_rel]):
            parts = PurePosixPath(path).relative_to(versions_rel).parts
            if parts and not any(n.match(parts[0]) for n in neighbours):
                touched.setdefault(parts[0], []).append((status[:1], display_path(config.root / path)))
        # A version cut but not yet added to git is new too. One listing of the versions
        # folder finds it without walking every frozen version for untracked files.
        if suite.versions.is_dir():
            in_base = git.names_at(base_sha, versions_rel)
            for entry in sorted(os.listdir(suite.versions)):
                theirs = any(n.match(entry) for n in neighbours)
                if entry not in in_base and entry not in touched and not entry.startswith(".") and not theirs:
                    touched[entry] = [("A", display_path(suite.versions / entry))]
        for name, entries in sorted(touched.items()):
            if git.has_path(base_sha, f"{versions_rel}/{name}"):
                for status, shown in entries:
                    verb = _VERBS.get(status, "changed")
                    report.problems.append(
                        _frozen_problem(
                            shown,
                            f"frozen file {verb}: {name} was frozen in {base_sha[:8]} and may never change",
                            None if status == "D" else 1,
                        )
                    )
                continue
            match = registry.VERSION_LABEL.match(name.removeprefix(f"{suite.name}_"))
            if not name.startswith(f"{suite.name}_v") or not match:
                for _, shown in entries:
                    report.problems.append(_frozen_problem(shown, f"not part of any version of suite {suite.name!r}"))
                continue
            from freezer import audit  # only a new version needs the auditor

            frozen = registry.FrozenVersion(suite.name, int(match.group(1)), suite.versions / name)
            result, _ = audit.integrity(suite, frozen)
            report.new_versions.append(name)
            for failure in result.failures:
                report.problems.append(_frozen_problem(failure.file, f"new version {name}: {failure.message}"))
    return report
