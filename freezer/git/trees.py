"""The tree of a commit written out as files, for ripgrep.

A fixture's grep was run in a clean checkout of the pinned commit, so Gate B
runs in one: every path of the commit's tree with the bytes git stores for it
(no checkout filter, no line-ending conversion), symbolic links as links
(ripgrep does not follow them when it walks), submodules as empty folders,
files read-only, and an empty ``.git`` folder at the top so that ripgrep
applies the tree's own ``.gitignore`` files as it would in a clone. Each
commit is written once per process, in a private temporary folder that is
removed when the repository is closed; nothing of the user's working tree is
read or touched.

An ``.ignore`` or ``.rgignore`` file in a folder above the temporary folder
would change what ripgrep searches, so one there is refused.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath
from typing import Protocol

from freezer.domain.errors import UsageError
from freezer.runtime.writing import write_new

_IGNORE_FILES = (".ignore", ".rgignore")
_READ_ONLY = stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH


def _safe_parts(path: str) -> tuple[str, ...] | None:
    """The components of a tree path, or None for one no checkout would write."""
    parts = PurePosixPath(path).parts
    if not parts or any(p in ("", ".", "..") or p.lower() == ".git" or "\0" in p for p in parts):
        return None
    if path.startswith("/"):
        return None
    return parts


class TreeSource(Protocol):
    """What a tree is written out from: :class:`freezer.git.gitrepo.CodeRepo`."""

    def entries(self, sha: str) -> Sequence[tuple[str, str, str, str]]: ...

    def stream_blobs(self, shas: list[str]) -> Iterator[bytes]: ...


class TreeCache:
    """Commits of one repository written out as files, each once."""

    def __init__(self, repo: TreeSource) -> None:
        self._repo = repo
        self._base: Path | None = None
        self._written: dict[str, Path] = {}

    def _folder(self) -> Path:
        if self._base is None:
            base = Path(tempfile.mkdtemp(prefix="freezer-trees-")).resolve()
            for parent in base.parents:
                for name in _IGNORE_FILES:
                    if (parent / name).exists():
                        shutil.rmtree(base, ignore_errors=True)
                        raise UsageError(
                            f"{parent / name} would change what ripgrep searches in the trees freezer writes "
                            f"under {parent}",
                            hint="remove it, or point TMPDIR at a folder with no ignore file above it",
                        )
            self._base = base
        return self._base

    def path(self, sha: str) -> Path:
        """The folder holding the tree of commit ``sha`` (written on first use)."""
        done = self._written.get(sha)
        if done is not None:
            return done
        target = self._folder() / sha
        target.mkdir()
        (target / ".git").mkdir()
        folders: set[Path] = {target}
        # Files and links written so far: a crafted tree listing "a" as a link and then "a/b" must
        # not make freezer write through the link, so nothing is written beneath either.
        leaves: set[tuple[str, ...]] = set()
        blobs: list[tuple[str, Path, str]] = []  # (mode, where, blob sha), read in one stream below
        for mode, kind, object_sha, path in self._repo.entries(sha):
            parts = _safe_parts(path)
            if parts is None or parts in leaves or any(parts[:n] in leaves for n in range(1, len(parts))):
                continue
            where = target.joinpath(*parts)
            if where.parent not in folders:
                where.parent.mkdir(parents=True, exist_ok=True)
                folders.update([where.parent, *where.parent.parents])
            if kind == "commit":
                where.mkdir(exist_ok=True)
                folders.add(where)
            else:
                leaves.add(parts)
                blobs.append((mode, where, object_sha))
        for (mode, where, _), data in zip(blobs, self._repo.stream_blobs([b[2] for b in blobs]), strict=True):
            if mode == "120000":
                os.symlink(os.fsdecode(data), where)
            else:
                write_new(where, data, _READ_ONLY)
        self._written[sha] = target
        return target

    def close(self) -> None:
        if self._base is not None:
            shutil.rmtree(self._base, ignore_errors=True)
            self._base = None
            self._written.clear()
