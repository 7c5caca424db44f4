"""The label grammar of a version and one frozen version's folder; the file names a version holds.

Listing a suite's versions, and every rule about them, is :mod:`freezer.registry.model`'s."""

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from freezer.domain.errors import IntegrityError, UsageError
from freezer.domain.problems import display_path
from freezer.parse.yamllocate import YAML_SUFFIXES
from freezer.runtime.reading import read_whole

if TYPE_CHECKING:
    from freezer.domain.manifest import Manifest

MANIFEST = "manifest.json"
SUMS = "SHA256SUMS"
METHOD = "METHOD.md"
TEMPLATE_COPY = "METHOD.md.j2"
# freezer's own §Delta template, frozen with the version (checks.delta_block 1 on), see freezer.render.method
DELTA_TEMPLATE_COPY = "delta.md.j2"
DELTA = "delta.json"
COMPARABILITY = "comparability.json"
STATEMENT = "provenance.json"  # the provenance statement (manifest format 3), see freezer.render.attest
FROZEN_SCHEMA = "fixture.schema.json"  # a suite's own fixture schema, as frozen with the version
# The folder beside versions/ where imported results are stored, one folder per version (freezer.guard.storedresults).
RESULTS_FOLDER = "results"
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
        near = _LABEL.fullmatch(_without_leading_zeros(label.strip().lower()))
        if near is None:
            hint = None
        elif label.strip() != label:
            hint = f"a label holds no space or line break: {near.group(0)}"
        else:
            hint = f"labels are lower-case, without leading zeros: {near.group(0)}"
        raise UsageError(f"{label!r} is not a version: write it as v2, 2 or <suite>_v2", hint=hint)
    return match.group("suite"), int(match.group("number"))


def _without_leading_zeros(text: str) -> str:
    """``text`` with the zeros that lead its trailing number dropped (v007 -> v7), for a hint."""
    head = text.rstrip("0123456789")
    digits = text[len(head) :].lstrip("0")
    return head + digits if digits else text


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


def frozen_fixture_files(manifest: "Manifest") -> list[str]:
    """Which files of a frozen version are its fixtures: what its manifest lists (format 2 on; a
    suite may freeze JSON fixtures, or YAML assets beside YAML fixtures), else, for format 1,
    every YAML file but version.yaml. The one answer every reader of a frozen version uses."""
    names = manifest.fixture_names()
    if names is not None:
        return sorted(names)
    return sorted(rel for rel in manifest.files if rel.endswith(YAML_SUFFIXES) and rel != "version.yaml")


class FrozenVersion(NamedTuple):
    """A frozen version of a suite by its number, and the folder (``<suite>_vN``) that holds it."""

    suite: str
    number: int
    path: Path

    @property
    def name(self) -> str:
        return version_name(self.suite, self.number)

    def manifest_bytes(self) -> bytes:
        return read_whole(self.path / MANIFEST)

    def manifest(self) -> dict[str, Any]:
        """The manifest as raw JSON: the boundary. Readers take :meth:`manifest_model` (audit's
        integrity check reads this, checks it against the schema, then builds the model)."""
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
        import hashlib  # start-up time: OpenSSL loads only for a frozen version's digest, never for validate

        return hashlib.sha256(self.manifest_bytes()).hexdigest()

    def manifest_model(self) -> "Manifest":
        """The typed manifest; only for a version whose manifest passed its schema (audit checks that)."""
        # start-up time: the manifest's two dozen dataclasses are for reading a frozen version, and
        # validate (the pre-commit hook) imports this module for its file names alone
        from freezer.domain.manifest import Manifest

        return Manifest.from_data(self.manifest())
