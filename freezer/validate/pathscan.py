"""Which files a ``freezer validate PATH...`` covers, and whose suite each belongs to.

A path may name loose files, a folder of them, or a folder that is (or holds) a
suite's drafts folder; :class:`Owners` says which suite's drafts each file lies
in, from the given config or the registry around the path, so a file is checked
against its suite's schema and assets wherever it is named from.
"""

from __future__ import annotations

import os
from pathlib import Path

from freezer.domain.errors import FreezerError, UsageError
from freezer.domain.escape import visible
from freezer.domain.problems import Problem, display_path
from freezer.kinds.catalog import kind_of
from freezer.parse.yamlload import load_file
from freezer.parse.yamllocate import YAML_SUFFIXES
from freezer.registry.config import CONFIG_NAME, RegistryConfig, SuiteConfig, find_root, load_config
from freezer.validate import drafts

VERSION_NAME = "version.yaml"


def collect_files(paths: list[Path], skip: frozenset[Path] = frozenset()) -> tuple[list[Path], list[Problem]]:
    """YAML files under ``paths`` but not under ``skip`` (resolved folders validated as whole suites);
    symlinks, unreadable folders and unprintable names are reported."""
    files: list[Path] = []
    problems: list[Problem] = []

    def unreadable(exc: OSError) -> None:
        where = Path(exc.filename) if exc.filename else Path(".")
        problems.append(_file_problem(where, f"folder cannot be read: {exc.strerror}"))

    for path in paths:
        if path.is_symlink():
            problems.append(_symlink_problem(path))
        elif path.is_dir() and skip and _under(path.resolve(), skip):
            continue
        elif path.is_dir():
            found_before, problems_before, skipped = len(files), len(problems), False
            for folder, dirs, names in os.walk(path, onerror=unreadable):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                if skip:
                    kept = [d for d in dirs if _kept(Path(folder) / d, skip)]
                    skipped, dirs[:] = skipped or len(kept) < len(dirs), kept
                for name in sorted(names):
                    if name.startswith(".") or not name.endswith(YAML_SUFFIXES):
                        continue
                    found = Path(folder) / name
                    if found.is_symlink():
                        problems.append(_symlink_problem(found))
                    elif visible(name) != name:
                        problems.append(
                            _file_problem(found, "the file name holds a control or direction-changing character")
                        )
                    else:
                        files.append(found)
                for name in dirs:
                    if (Path(folder) / name).is_symlink():
                        problems.append(_symlink_problem(Path(folder) / name))
            if len(files) == found_before and len(problems) == problems_before and not skipped:
                problems.append(_file_problem(path, "no fixture files (*.yaml, *.yml) in this folder"))
        elif path.exists() or path.suffix in YAML_SUFFIXES:
            files.append(path)
        else:
            raise UsageError(f"{display_path(path)}: no such file or folder")
    return files, problems


def _under(folder: Path, roots: frozenset[Path]) -> bool:
    return any(folder.is_relative_to(root) for root in roots)


def _kept(folder: Path, skip: frozenset[Path]) -> bool:
    """A folder to walk: not one validated as a whole suite (a link is reported, not followed)."""
    return folder.is_symlink() or folder.resolve() not in skip


def _file_problem(path: Path, message: str) -> Problem:
    return Problem(display_path(path), None, None, (), message, "file")


def _symlink_problem(path: Path) -> Problem:
    return Problem(
        display_path(path),
        None,
        None,
        (),
        "is a symbolic link; drafts must be regular files so a frozen version holds their bytes",
        "file",
    )


def group_files(files: list[Path]) -> dict[Path | None, list[Path]]:
    """Assign each file to the deepest folder among them that holds a version.yaml."""
    roots = sorted({f.parent.resolve() for f in files if f.name == VERSION_NAME}, key=lambda p: -len(p.parts))
    groups: dict[Path | None, list[Path]] = {}
    owners: dict[Path, Path | None] = {}  # by folder: thousands of drafts share a handful of folders
    for file in files:
        if file.parent not in owners:
            resolved = file.parent.resolve()
            owners[file.parent] = next((r for r in roots if resolved.is_relative_to(r)), None)
        groups.setdefault(owners[file.parent], []).append(file)
    return groups


class Owners:
    """Which suite's drafts each path lies in: by the given config, or the registry around the path."""

    def __init__(self, config: RegistryConfig | None, suite: SuiteConfig | None) -> None:
        self.config, self.suite = config, suite
        self.registries: dict[Path, RegistryConfig | None] = {}  # each registry's config read once
        self.folders: dict[Path, SuiteConfig | None] = {}  # by folder: thousands of drafts share a few
        self.assets: dict[str, set[str]] = {}

    def _config_around(self, folder: Path) -> RegistryConfig | None:
        if self.config is not None:
            return self.config
        try:
            found = find_root(folder)
        except FreezerError:
            return None
        if found is None:
            return None
        if found not in self.registries:
            try:
                self.registries[found] = load_config(found / CONFIG_NAME)
            except FreezerError:
                self.registries[found] = None  # an unreadable registry around the folder: validate as a graph set
        return self.registries[found]

    def whole_suites(self, paths: list[Path]) -> list[SuiteConfig]:
        found: dict[Path, SuiteConfig] = {}
        for path in paths:
            if path.is_symlink() or not path.is_dir():
                continue
            top = path.resolve()
            config = self._config_around(top)
            for one in config.suites.values() if config else ():
                drafts_root = one.drafts.resolve()
                if drafts_root.is_relative_to(top):
                    found.setdefault(drafts_root, one)
        return list(found.values())

    def of(self, file: Path) -> SuiteConfig | None:
        if self.suite is not None:
            return self.suite
        if file.parent not in self.folders:
            folder = file.parent.resolve()
            config = self._config_around(folder)
            holding = [
                s for s in (config.suites.values() if config else ()) if folder.is_relative_to(s.drafts.resolve())
            ]
            self.folders[file.parent] = max(holding, key=lambda s: len(s.drafts.resolve().parts), default=None)
        return self.folders[file.parent]

    def assets_of(self, suite: SuiteConfig) -> set[str]:
        """The assets of ``suite``'s drafts folder (walked once)."""
        if suite.name not in self.assets:
            self.assets[suite.name] = set(drafts.collect(suite).assets) if suite.drafts.is_dir() else set()
        return self.assets[suite.name]

    def kind_versions(self, files: list[Path]) -> list[SuiteConfig]:
        """Each folder among ``files`` holding a version.yaml for a suite of a fixture kind (folders,
        records, lm-eval) without being that suite's drafts (an example's v1 beside the v2 its
        freezer.yaml names), as that suite with this folder for drafts: its files are parts of
        fixtures, which only the suite's kind can read."""
        found: dict[Path, SuiteConfig] = {}
        for file in files:
            if file.name != VERSION_NAME or self.of(file) is not None:
                continue
            config = self._config_around(file.parent.resolve())
            document = load_file(file).document if config is not None else None
            named = document.data.get("suite") if document is not None and isinstance(document.data, dict) else None
            one = config.suites.get(named) if config is not None and isinstance(named, str) else None
            if one is not None and not kind_of(one.fixture_kind).files_stand_alone:
                found.setdefault(file.parent.resolve(), one._replace(drafts=file.parent))
        return list(found.values())
