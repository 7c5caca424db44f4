"""Reading the frozen versions of a suite: names, order, manifests."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from freezer.domain.errors import IntegrityError, UsageError
from freezer.domain.model import Manifest
from freezer.domain.problems import display_path
from freezer.registry.config import SuiteConfig
from freezer.runtime.reading import read_whole

MANIFEST = "manifest.json"
SUMS = "SHA256SUMS"
METHOD = "METHOD.md"
TEMPLATE_COPY = "METHOD.md.j2"
DELTA = "delta.json"
COMPARABILITY = "comparability.json"
GITATTRIBUTES = ".gitattributes"
# The one grammar of a version's label and of its folder's name, used by every module: v2, 2 and
# graph_v2 name the same version. Always fullmatch: a pattern's `$` would also accept a trailing newline.
_LABEL = re.compile(r"(?:(?P<suite>[a-z][a-z0-9_-]*)_v|v)?(?P<number>[1-9][0-9]*)")
# A label names at most this number (a folder named past it is still found, and reported).
MAX_LABEL_NUMBER = 999_999


def parse_label(label: str) -> tuple[str | None, int]:
    """(suite or None, number) for ``v2``, ``2`` or ``graph_v2``; nothing else, not even a space or newline."""
    match = _LABEL.fullmatch(label)
    if not match or int(match.group("number")) > MAX_LABEL_NUMBER:
        near = _LABEL.fullmatch(re.sub(r"(?<![0-9])0+(?=[1-9])", "", label.strip().lower()))
        if near is None:
            hint = None
        elif label.strip() != label:
            hint = f"a label holds no space or line break: {near.group(0)}"
        else:
            hint = f"labels are lower-case, without leading zeros: {near.group(0)}"
        raise UsageError(f"{label!r} is not a version: write it as v2, 2 or <suite>_v2", hint=hint)
    return match.group("suite"), int(match.group("number"))


def parse_version(label: str, suite: str | None = None) -> int:
    """The number of a label; a label naming another suite than ``suite`` is refused."""
    owner, number = parse_label(label)
    if owner is not None and suite is not None and owner != suite:
        raise UsageError(f"{label!r} names suite {owner!r}, not {suite!r}")
    return number


def version_name(suite: str, number: int) -> str:
    return f"{suite}_v{number}"


def number_in_name(suite: str, name: object, *, bounded: bool = False) -> int | None:
    """N when ``name`` is exactly ``<suite>_vN`` (by the one label grammar), else None; ``bounded``
    also refuses a number past what a label can name."""
    match = _LABEL.fullmatch(name) if isinstance(name, str) else None
    if match is None or match.group("suite") != suite:
        return None
    number = int(match.group("number"))
    return None if bounded and number > MAX_LABEL_NUMBER else number


@dataclass(frozen=True)
class FrozenVersion:
    suite: str
    number: int
    path: Path

    @property
    def name(self) -> str:
        return version_name(self.suite, self.number)

    def manifest_bytes(self) -> bytes:
        return read_whole(self.path / MANIFEST)

    def manifest(self) -> dict[str, Any]:
        try:
            loaded: dict[str, Any] = json.loads(self.manifest_bytes())
        except (ValueError, RecursionError):
            raise IntegrityError(
                f"{display_path(self.path / MANIFEST)}: not a readable manifest (run freezer audit)"
            ) from None
        if not isinstance(loaded, dict):
            raise IntegrityError(f"{display_path(self.path / MANIFEST)}: not a manifest (run freezer audit)")
        return loaded

    def manifest_sha256(self) -> str:
        return hashlib.sha256(self.manifest_bytes()).hexdigest()

    def manifest_model(self) -> Manifest:
        """The typed manifest; only for a version whose manifest passed its schema (audit checks that)."""
        return Manifest.from_data(self.manifest())


def _named_like_versions(suite: SuiteConfig) -> list[tuple[int, Path]]:
    found = []
    if suite.versions.is_dir():
        for entry in suite.versions.iterdir():
            number = number_in_name(suite.name, entry.name)
            if number is not None:
                found.append((number, entry))
    return sorted(found)


def frozen_versions(suite: SuiteConfig) -> list[FrozenVersion]:
    """Every ``<suite>_vN`` directory (complete or not), in version order."""
    return [
        FrozenVersion(suite.name, number, entry)
        for number, entry in _named_like_versions(suite)
        if entry.is_dir() and not entry.is_symlink()
    ]


def impostors(suite: SuiteConfig) -> list[FrozenVersion]:
    """Entries named like a version that are not real folders (a link, a file): never a version, always reported."""
    return [
        FrozenVersion(suite.name, number, entry)
        for number, entry in _named_like_versions(suite)
        if entry.is_symlink() or not entry.is_dir()
    ]


def previous_of(suite: SuiteConfig, number: int) -> FrozenVersion | None:
    earlier = [v for v in frozen_versions(suite) if v.number < number]
    return earlier[-1] if earlier else None


def next_free(suite: SuiteConfig, versions: list[FrozenVersion] | None = None) -> int:
    """The one next-version rule: one past the latest frozen version (``versions`` when already listed)."""
    versions = frozen_versions(suite) if versions is None else versions
    return versions[-1].number + 1 if versions else 1
