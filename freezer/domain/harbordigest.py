"""A task folder's content digest as Harbor computes it, so a frozen task is ``name@sha256:…`` to Harbor.

Harbor (the ``harbor`` package, 0.13 to 0.26; its publisher's packager) digests a task folder so:
the files it would publish, each as the UTF-8 record ``path NUL file-sha256-hex LF`` (the path
relative to the task folder, with ``/``), the records in the order of their paths, the SHA-256 of
them all in lowercase hex, written ``sha256:<hex>``. Only content counts: a file's mode (an
executable test script) does not, nor an empty folder.

The files it publishes are ``task.toml``, ``instruction.md``, ``README.md`` and ``trajectory.json``
at the top of the folder, and every file under ``environment/``, ``tests/``, ``solution/`` and
``steps/``; anything else in the folder (notes, data beside them) is not in the digest. Files that
git's default ignores name are left out (``__pycache__/``, ``*.pyc``, ``.DS_Store``, ``*.swp``,
``*.swo``, ``*~``). A task folder with its own ``.gitignore`` at the top, or a ``.harborignore``
anywhere, has Harbor choose by those rules instead: freezer does not replay them, and says so
(:attr:`HarborDigest.reason`) rather than give a digest Harbor would not.

The digest is computed from the file hashes a manifest records, never from the files again: what
was frozen rules, and the integrity check has already tied those hashes to the frozen bytes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase

DIGEST_PREFIX = "sha256:"
# What Harbor publishes of a task folder: these files at its top, and every file under these folders.
TOP_FILES = ("task.toml", "instruction.md", "README.md", "trajectory.json")
FOLDERS = ("environment", "tests", "solution", "steps")
# Harbor's ignores when a task has no .gitignore of its own, as gitignore patterns: a pattern
# without '/' matches a name at any depth; a trailing '/' matches folders only.
DEFAULT_IGNORES = ("__pycache__/", "*.pyc", ".DS_Store", "*.swp", "*.swo", "*~")
# Files whose presence hands the choice of files to rules freezer does not replay.
GITIGNORE = ".gitignore"
HARBORIGNORE = ".harborignore"


@dataclass(frozen=True)
class HarborDigest:
    """One task folder's Harbor digest: Harbor's name for the task, the files the digest covers and
    the digest; or, when freezer cannot tell which files Harbor would take, no digest and why."""

    name: str
    digest: str | None  # "sha256:<64 hex>", or None with ``reason``
    files: tuple[str, ...]  # the paths it covers, relative to the task folder, in hashing order
    reason: str | None = None

    @property
    def reference(self) -> str | None:
        """How a Harbor user pins the task: ``name@sha256:…``."""
        return f"{self.name}@{self.digest}" if self.digest is not None else None

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "digest": self.digest,
            "reference": self.reference,
            "files": list(self.files),
            "reason": self.reason,
        }


def _ignored(rel: str) -> bool:
    """Whether one of :data:`DEFAULT_IGNORES` matches the file ``rel`` or a folder it lies in."""
    *folders, name = rel.split("/")
    for pattern in DEFAULT_IGNORES:
        folder_only = pattern.endswith("/")
        bare = pattern.rstrip("/")
        if any(fnmatchcase(folder, bare) for folder in folders):
            return True
        if not folder_only and fnmatchcase(name, bare):
            return True
    return False


def _published(rel: str) -> bool:
    if rel in TOP_FILES:
        return True
    top, _, rest = rel.partition("/")
    return bool(rest) and top in FOLDERS


def unavailable_reason(paths: Mapping[str, str] | tuple[str, ...]) -> str | None:
    """Why freezer gives no Harbor digest for a task folder of these paths, or None."""
    if GITIGNORE in paths:
        return (
            f"the task folder has its own {GITIGNORE}, which chooses the files Harbor digests; "
            "freezer does not replay it (run harbor on the frozen folder for its digest)"
        )
    own = sorted(rel for rel in paths if rel.rsplit("/", 1)[-1] == HARBORIGNORE)
    if own:
        return (
            f"{own[0]} chooses the files Harbor digests; freezer does not replay it "
            "(run harbor on the frozen folder for its digest)"
        )
    return None


def covered(paths: Mapping[str, str] | tuple[str, ...]) -> tuple[str, ...]:
    """The paths (relative to the task folder) Harbor's digest covers, in hashing order."""
    return tuple(sorted(rel for rel in paths if _published(rel) and not _ignored(rel)))


def content_digest(hashes: Mapping[str, str]) -> str:
    """``sha256:<hex>`` over the records ``path NUL sha256 LF`` of ``hashes`` (path → sha256 hex),
    in the order of the paths; the caller chooses which paths (:func:`covered`)."""
    outer = hashlib.sha256()
    for rel in sorted(hashes):
        outer.update(f"{rel}\0{hashes[rel]}\n".encode())
    return DIGEST_PREFIX + outer.hexdigest()


def harbor_digest(name: str, hashes: Mapping[str, str]) -> HarborDigest:
    """The Harbor digest of a task folder whose files (path relative to the folder → sha256 hex) are
    ``hashes``, named ``name`` (Harbor's: task.toml's ``[task] name``, else the folder's name)."""
    reason = unavailable_reason(hashes)
    if reason is not None:
        return HarborDigest(name, None, (), reason)
    files = covered(hashes)
    return HarborDigest(name, content_digest({rel: hashes[rel] for rel in files}), files)
