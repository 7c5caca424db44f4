"""What a suite's drafts folder holds: version.yaml, the fixtures, and every other file as an asset.

Nothing in the drafts is dropped silently. Each entry is one of:

* ``version.yaml`` at the top;
* a fixture: a file the suite's ``fixtures`` glob matches (default: every
  ``*.yaml``/``*.yml`` file but version.yaml), or for kinds folders and records
  a file its kind claims (every file of a fixture folder; a records file);
* an asset: any other regular file, frozen byte for byte and hashed;
* refused, with a message naming it: a link, a FIFO, a device or socket, a
  ``.git`` folder, a name holding a control or direction-changing character,
  a file larger than the suite's ``max_file_bytes``, a folder that cannot be read;
* left out, and said in a note: a ``__pycache__`` folder. Python writes one beside any module it
  imports (running lm-eval on a task folder, pip installing freezer's examples), holding
  byte-compiled copies stamped with the machine's paths: derived from the ``.py`` files that are
  frozen, different on every machine, so freezing it would only make two cuts of one draft differ;
* left out, and counted in a note: a file git ignores (:mod:`freezer.git.ignored`). A version holds
  what git publishes: a frozen copy of an ignored file would pass every check on the author's
  machine and be missing from every clone. A ``version.yaml`` git ignores is refused;
* litter, files that tools leave beside the author's (:data:`LITTER_NAMES`, :data:`LITTER_SUFFIXES`:
  ``*.pyc``, ``*.pyo``, ``.DS_Store``, ``*~``, ``*.bak``, ``*.swp``, ``*.swo``): refused one by one
  when the registry is a git repository that does not ignore them ("add it to .gitignore or delete
  it": ``git add -A`` would publish them, and a version would freeze them); left out with a note
  where the registry is no git repository, the list standing in for a ``.gitignore``.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from freezer.domain import canonical
from freezer.domain.escape import visible
from freezer.domain.problems import Problem, display_path
from freezer.git.ignored import IgnoredFiles, ignored_files
from freezer.kinds.catalog import builtin_schema
from freezer.registry.config import CONFIG_NAME, SuiteConfig
from freezer.registry.model import Suite
from freezer.registry.registry import DELTA_TEMPLATE_COPY, FROZEN_SCHEMA
from freezer.runtime.limits import MAX_SCHEMA_BYTES
from freezer.runtime.reading import read_whole
from freezer.validate.fixtureset import FixtureSet

if TYPE_CHECKING:
    from freezer.domain.manifestparts import FixtureSchemaRecord

# Files every version holds that freezer writes: a draft may not take their place.
RESERVED = frozenset(
    {
        "manifest.json",
        "METHOD.md",
        "METHOD.md.j2",
        "SHA256SUMS",
        "delta.json",
        "comparability.json",
        "provenance.json",
        ".gitattributes",
        FROZEN_SCHEMA,
        DELTA_TEMPLATE_COPY,
    }
)

VERSION_NAME = "version.yaml"
PYTHON_CACHE = "__pycache__"
# What tools leave beside the author's files, by what it is (the pattern .gitignore takes for it).
LITTER_NAMES = {".DS_Store": ("macOS Finder's folder settings", ".DS_Store")}
LITTER_SUFFIXES = {
    ".pyc": ("a byte-compiled Python file", "*.pyc"),
    ".pyo": ("a byte-compiled Python file", "*.pyo"),
    "~": ("an editor's backup copy", "*~"),
    ".bak": ("a backup copy", "*.bak"),
    ".swp": ("vim's swap file", "*.swp"),
    ".swo": ("vim's swap file", "*.swo"),
}
_LITTER_ENDINGS = tuple(LITTER_SUFFIXES)


def litter(name: str) -> tuple[str, str] | None:
    """What a file named ``name`` is and the .gitignore pattern for it, if tools leave it (see above)."""
    if name in LITTER_NAMES:
        return LITTER_NAMES[name]
    if name.endswith(_LITTER_ENDINGS):
        return next(LITTER_SUFFIXES[end] for end in _LITTER_ENDINGS if name.endswith(end))
    return None


# How a file of the drafts is left out of a version: git ignores it, or it is litter outside git.
LeftOut = Literal["ignored", "litter", "refused"]


def leave_out(rel: str, name: str, ignored: frozenset[str] | None) -> tuple[LeftOut, str | None] | None:
    """Whether the file ``rel`` of the drafts (named ``name``) is left out of a version, and how:
    git ignores it, it is litter where the registry is no git repository (``ignored`` None), or it
    is refused with why (litter git would publish, an ignored version.yaml); None: it is kept."""
    if ignored and rel in ignored:
        if rel == VERSION_NAME:
            return "refused", "git ignores it, so a clone would have none; un-ignore it"
        return "ignored", None
    left = litter(name) if name.endswith(_LITTER_ENDINGS) or name in LITTER_NAMES else None
    if left is None:
        return None
    if ignored is None:
        return "litter", None
    what, pattern = left
    return "refused", (
        f"{what}, which git does not ignore: git add would publish it and a cut would freeze it; "
        f"add it to .gitignore (a line {pattern}) or delete it"
    )


class DraftFiles:
    """What :func:`collect` found in a suite's drafts folder, each entry sorted as the module's docstring says."""

    def __init__(self) -> None:
        self.version: Path | None = None
        self.fixtures: list[Path] = []
        self.assets: dict[str, Path] = {}  # by path relative to the drafts folder
        self.problems: list[Problem] = []
        # Files refused above (relative to the drafts folder): a kind does not report them missing too.
        self.refused: set[str] = set()
        self.derived: list[Path] = []  # __pycache__ folders, left out (see above)
        self.ignored: list[Path] = []  # files git ignores, left out
        self.litter: list[Path] = []  # outside git: litter, left out

    def derived_notes(self) -> list[str]:
        """What was left out and why, for the user (nothing said when nothing was)."""
        notes = []
        if self.derived:
            notes.append(
                f"{_some(self.derived)}: Python's byte-compiled cache, left out of the version (derived from the "
                ".py files beside it, and different on every machine)"
            )
        if self.ignored:
            notes.append(
                f"{len(self.ignored):,} file(s) git ignores left out of the version ({_some(self.ignored)}): "
                "a version holds what git publishes, and a clone would not have them"
            )
        if self.litter:
            notes.append(
                f"{_some(self.litter)}: left out of the version as what tools leave beside files (.DS_Store, *~, "
                "*.bak, *.swp, *.pyc): the registry is no git repository, so freezer's own list stands in for "
                "a .gitignore"
            )
        return notes


def _some(paths: list[Path]) -> str:
    shown = ", ".join(display_path(path) for path in paths[:3])
    return f"{shown} and {len(paths) - 3:,} more" if len(paths) > 3 else shown


def _problem(path: Path, message: str) -> Problem:
    return Problem(display_path(path), None, None, (), message, "file")


def _refusal(info: os.stat_result, size_limit: int) -> str | None:
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link; drafts must be regular files so a frozen version holds their bytes"
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file (a FIFO, socket or device); remove it from the drafts"
    if info.st_size > size_limit:
        return f"is {info.st_size:,} bytes, over the suite's max_file_bytes ({size_limit:,}); raise it in freezer.yaml"
    return None


def linked_drafts(folder: Path) -> Path | None:
    """The symbolic link on the way down from the registry root to the drafts ``folder`` (the
    folder itself included), or None. A link above the registry (a checkout layout) is not the
    registry's; one inside would make validate and cut read a folder the config does not name,
    which ``validate drafts/x`` refuses, so every command refuses it alike."""
    found = None
    for path in (folder.absolute(), *folder.absolute().parents):
        if (path / CONFIG_NAME).is_file() and path != folder.absolute():
            return found
        if found is None and path.is_symlink():
            found = path
    return None


def collect(suite: SuiteConfig, known: IgnoredFiles | None = None) -> DraftFiles:
    """Sort every entry of the suite's drafts folder into version, fixtures, assets and refusals
    (``known``: what git ignores, asked for several suites at once)."""
    found = DraftFiles()
    root = suite.drafts
    is_fixture = Suite.of(suite).is_draft_fixture

    def unreadable(exc: OSError) -> None:
        where = Path(exc.filename) if exc.filename else root
        found.problems.append(_problem(where, f"folder cannot be read: {exc.strerror}"))

    # Paths as text while walking: a drafts folder of 100,000 files spent most of its walk building
    # and relativising pathlib objects. A Path is made only for what is kept or reported.
    top = os.fspath(root)
    # None: no git repository, nothing is published through git.
    ignored = ignored_files(root) if known is None else known.under(root)
    for folder, dirs, names in os.walk(top, onerror=unreadable):
        prefix = "" if folder == top else os.path.relpath(folder, top).replace(os.sep, "/") + "/"
        kept = []
        for name in sorted(dirs):
            path = Path(folder, name)
            if path.is_symlink():
                found.problems.append(_problem(path, "is a symbolic link; drafts must be regular files"))
            elif name == PYTHON_CACHE:
                found.derived.append(path)
            elif name == ".git":
                found.problems.append(_problem(path, "a git folder inside the drafts; keep repositories as archives"))
            elif visible(name) != name:
                found.problems.append(_problem(path, "the folder name holds a control or direction-changing character"))
            else:
                kept.append(name)
        dirs[:] = kept
        for name in sorted(names):
            joined = os.path.join(folder, name)
            path = Path(joined)
            rel = prefix + name
            left_out = leave_out(rel, name, ignored)
            if left_out is not None:
                how, why = left_out
                if why is not None:
                    found.problems.append(_problem(path, why))
                    found.refused.add(rel)
                else:
                    (found.ignored if how == "ignored" else found.litter).append(path)
                continue
            if visible(name) != name:
                found.problems.append(_problem(path, "the file name holds a control or direction-changing character"))
                continue
            try:
                why = _refusal(os.lstat(joined), suite.max_file_bytes)
            except OSError as exc:
                why = f"cannot be read: {exc.strerror}"
            if why:
                found.problems.append(_problem(path, why))
                found.refused.add(rel)
            elif rel in RESERVED:
                found.problems.append(_problem(path, f"{rel} is a name freezer writes into every version; rename it"))
            elif rel == VERSION_NAME:
                found.version = path
            elif is_fixture(rel):  # a task folder may hold its own version.yaml (a YAML fixture is never one)
                found.fixtures.append(path)
            elif name == VERSION_NAME:
                found.problems.append(
                    _problem(
                        path,
                        f"a second version.yaml: the drafts folder {display_path(root)} holds exactly one, at its top; "
                        "move or delete this one",
                    )
                )
            else:
                found.assets[rel] = path
    return found


def read_drafts(suite: SuiteConfig, fixture_set: FixtureSet) -> dict[str, bytes]:
    """The bytes of version.yaml and the fixtures, by path relative to the drafts folder."""
    files: dict[str, bytes] = {}
    drafts = os.fspath(suite.drafts.resolve())
    resolved_folders: dict[str, str] = {}  # one realpath per folder, not per file
    for path in fixture_set.files.values():
        folder, name = os.path.split(os.fspath(path))
        if folder not in resolved_folders:
            resolved_folders[folder] = os.path.realpath(folder)
        full = os.path.join(resolved_folders[folder], name)
        inside = full.startswith(drafts + os.sep)
        rel = (full[len(drafts) + 1 :] if inside else os.path.relpath(full, drafts)).replace(os.sep, "/")
        with open(path, "rb") as handle:
            files[rel] = handle.read()
    return files


def fixture_schema_record(suite: SuiteConfig, drafts: dict[str, bytes]) -> FixtureSchemaRecord:
    """Which schema the fixtures met; a suite's own is frozen with the version (added to ``drafts``)."""
    import hashlib  # start-up time: hashlib loads OpenSSL, and validate hashes nothing

    # Lazy: a manifest part, asked for by a cut only; validate (a pre-commit hook) would otherwise
    # build the manifest's dataclasses at every start.
    from freezer.domain.manifestparts import FixtureSchemaRecord

    if suite.schema is not None:
        data = read_whole(suite.schema, MAX_SCHEMA_BYTES)
        drafts[FROZEN_SCHEMA] = data
        return FixtureSchemaRecord("custom", hashlib.sha256(data).hexdigest())
    # The kind's built-in schema (a benchmark's own fields: freezer's identity rule alone).
    shipped = canonical.spaced_ascii(builtin_schema(suite.kind))
    return FixtureSchemaRecord(suite.kind, hashlib.sha256(shipped.encode("utf-8")).hexdigest())


def hash_assets(fixture_set: FixtureSet) -> tuple[dict[str, str], list[Problem]]:
    """sha256 of every asset, streamed (on every core when there is much to hash)."""
    # start-up time: hashing (OpenSSL, the forked hashers) only for a set with assets, never for validate
    from freezer.runtime import hashing

    digests, unreadable = hashing.hash_files({rel: str(path) for rel, path in fixture_set.assets.items()})
    problems = [
        Problem(display_path(fixture_set.assets[rel]), None, None, (), f"cannot be read: {why}", "file")
        for rel, why in sorted(unreadable.items())
    ]
    return digests, problems
