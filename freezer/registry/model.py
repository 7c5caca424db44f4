"""The registry model: the one owner of the rules a suite's frozen versions obey.

A :class:`Registry` and its :class:`Suite` objects are built from the loaded
config, once per command (:meth:`Suite.of` keeps the model with the loaded
suite config, so every module of a command asks the same one). The suite alone
lists its versions folder (once: the listing is kept until a cut writes a
version), says which number comes next, which version a frozen version follows
(from what its manifest recorded, checked against the listing), which files of
the drafts are fixtures and which globs a tool-surface scan covers. What a
frozen version itself says (its arms, dimensions, field groups, fixture files)
is read from its own record, :mod:`freezer.registry.record`, never from the
config.
"""

import json
import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, NamedTuple

from freezer.domain.errors import IntegrityError, UsageError
from freezer.domain.problems import display_path
from freezer.kinds.catalog import kind_of
from freezer.registry.config import RegistryConfig, SuiteConfig
from freezer.registry.groups import builtin_groups, field_groups
from freezer.registry.registry import (
    MANIFEST,
    FrozenVersion,
    number_in_name,
    parse_version,
    version_name,
)
from freezer.runtime.reading import read_whole

if TYPE_CHECKING:
    from freezer.domain.manifest import Manifest

# The model of each loaded suite config, for the whole command: keyed by the config object itself
# (held beside it, so its id cannot be reused while here); a full cache starts again empty.
_MODELS: "dict[int, tuple[SuiteConfig, Suite]]" = {}
_MODELS_KEPT = 64


class ChainBroken(IntegrityError):
    """What a version's manifest records as its predecessor is not what the versions folder holds."""

    def __init__(self, file: str, detail: str) -> None:
        super().__init__(f"{file}: {detail}")
        self.file = file
        self.detail = detail


class _Listing(NamedTuple):
    """A suite's versions folder, listed once (kept until a cut writes a version)."""

    names: list[str]  # every entry of the folder, sorted
    versions: list[FrozenVersion]  # real folders named like a version
    impostors: list[FrozenVersion]  # named like one, but a link or a file


def union(*groups: Sequence[str]) -> tuple[str, ...]:
    """The globs of every group, each once, in first-seen order."""
    seen: dict[str, None] = {}
    for group in groups:
        seen.update(dict.fromkeys(group))
    return tuple(seen)


def scan_globs(previous: "Manifest | None", *own: Sequence[str]) -> tuple[str, ...]:
    """The globs a tool-surface scan covers: every glob the previous version scanned, then ``own``
    (the globs a cut is configured with, or those a frozen version recorded). The one rule, for
    the scan a cut runs and the one an audit re-runs: a glob once scanned is never dropped."""
    return union(previous.scan_globs if previous is not None else (), *own)


class Suite:
    """One suite of the registry: its config, and the rules about its frozen versions."""

    def __init__(self, config: SuiteConfig) -> None:
        self.config = config
        self.name = config.name
        self.folder = config.versions
        self._listed: _Listing | None = None
        # The suite's kind says which files of the drafts are a fixture's (a glob's files, every
        # file of a task folder, every YAML file), as validate's sorting of the drafts does.
        self.kind = kind_of(config.fixture_kind)

    @classmethod
    def of(cls, config: SuiteConfig) -> "Suite":
        """The model of a loaded suite config: built on first use, then the same for the whole command."""
        held = _MODELS.get(id(config))
        if held is None:
            if len(_MODELS) >= _MODELS_KEPT:
                _MODELS.clear()
            held = _MODELS[id(config)] = (config, cls(config))
        return held[1]

    # --- the versions folder: listed here and nowhere else -------------------------------------

    def _listing(self) -> _Listing:
        if self._listed is None:
            listed = _Listing([], [], [])
            if self.folder.is_dir():
                with os.scandir(self.folder) as entries:
                    found = sorted(entries, key=lambda e: e.name)
                for entry in found:
                    listed.names.append(entry.name)
                    number = number_in_name(self.name, entry.name)
                    if number is None:
                        continue
                    version = FrozenVersion(self.name, number, self.folder / entry.name)
                    real = entry.is_dir(follow_symlinks=False) and not entry.is_symlink()
                    (listed.versions if real else listed.impostors).append(version)
                listed.versions.sort(key=lambda v: v.number)
                listed.impostors.sort(key=lambda v: v.number)
            self._listed = listed
        return self._listed

    def forget(self) -> None:
        """Drop the listing (a cut just wrote a version): the next question lists the folder again."""
        self._listed = None

    def entries(self) -> list[str]:
        """Every name in the versions folder (versions, other suites' versions, strays), sorted."""
        return list(self._listing().names)

    def versions(self) -> list[FrozenVersion]:
        """Every ``<suite>_vN`` folder (complete or not), in version order."""
        return list(self._listing().versions)

    def impostors(self) -> list[FrozenVersion]:
        """Entries named like a version that are not real folders (a link, a file): never a version,
        always reported."""
        return list(self._listing().impostors)

    def __iter__(self) -> Iterator[FrozenVersion]:
        return iter(self.versions())

    def latest(self) -> FrozenVersion | None:
        versions = self._listing().versions
        return versions[-1] if versions else None

    def find(self, number: int) -> FrozenVersion | None:
        return next((v for v in self._listing().versions if v.number == number), None)

    def version(self, label: str) -> FrozenVersion:
        """The frozen version a label names; :class:`UsageError` when it is not frozen."""
        number = parse_version(label, self.name)
        found = self.find(number)
        if found is None:
            raise UsageError(f"{version_name(self.name, number)} is not frozen in {self.folder}")
        return found

    def between(self, low: FrozenVersion, high: FrozenVersion) -> list[FrozenVersion]:
        """The versions from ``low`` to ``high``, both included, in order."""
        return [v for v in self._listing().versions if low.number <= v.number <= high.number]

    def before(self, number: int) -> list[FrozenVersion]:
        """Every frozen version with a lower number, oldest first."""
        return [v for v in self._listing().versions if v.number < number]

    def next_number(self) -> int:
        """The one next-version rule: one past the latest frozen version."""
        latest = self.latest()
        return latest.number + 1 if latest is not None else 1

    def next_name(self) -> str:
        return version_name(self.name, self.next_number())

    # --- the chain -------------------------------------------------------------------------------

    def predecessor(self, frozen: FrozenVersion, recorded: object = ...) -> FrozenVersion | None:
        """The version ``frozen`` follows: the one its manifest records as ``previous``, which must be
        the version the folder lists just before it. A disagreement is an integrity failure
        (:class:`ChainBroken`); ``recorded`` passes the manifest's ``previous`` when already read."""
        if recorded is ...:
            recorded = frozen.manifest().get("previous")
        earlier = self.before(frozen.number)
        listed = earlier[-1] if earlier else None
        where = f"{display_path(frozen.path)}/{MANIFEST}"
        if recorded is None:
            if listed is not None:
                raise ChainBroken(where, f"claims to be the first version, but {listed.name} precedes it")
            return None
        # A typed manifest's (name, sha256), or the raw ``previous`` of one not yet checked.
        claimed = (
            recorded[0] if isinstance(recorded, tuple) else recorded.get("name") if isinstance(recorded, dict) else None
        )
        if listed is None or listed.name != claimed:
            found = listed.name if listed else "no earlier version"
            raise ChainBroken(where, f"chain broken: follows {claimed}, but the registry has {found}")
        return listed

    # --- which files are fixtures, which globs are scanned ---------------------------------------

    def is_draft_fixture(self, rel: str) -> bool:
        """Whether a file of the drafts (path relative to the drafts folder) is a fixture's, as the
        suite's kind claims it. A frozen version's fixtures are the ones its manifest lists
        (:func:`freezer.registry.record.frozen_fixture_files`)."""
        return self.kind.claims_draft(rel, self.config.drafts / rel)

    def configured_groups(self) -> dict[str, str]:
        """The field groups the next cut records: those of the suite's fixture schema as configured
        (its own file when it has one). A frozen version's are its own (:func:`freezer.registry.record.groups_of`)."""
        if self.config.schema is None:
            return builtin_groups(self.config.kind)
        loaded = json.loads(read_whole(self.config.schema))  # validated as a schema when the config was read
        return field_groups(loaded if isinstance(loaded, dict) else {})

    def scan_globs(self, previous: "Manifest | None") -> tuple[str, ...]:
        """The globs the next cut's tool-surface scan covers: the previous version's, then the config's."""
        return scan_globs(previous, self.config.tool_surface)


class Registry:
    """The registry of a loaded config: its suites, each with its model."""

    def __init__(self, config: RegistryConfig) -> None:
        self.config = config
        self.root = config.root
        self.suites = {name: Suite.of(one) for name, one in config.suites.items()}

    def suite(self, name: str | None) -> Suite:
        return self.suites[self.config.suite(name).name]

    def every_version(self) -> list[tuple[Suite, FrozenVersion]]:
        return [(suite, frozen) for suite in self.suites.values() for frozen in suite.versions()]
