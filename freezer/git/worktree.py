"""The git object id of a working-tree file, computed by freezer rather than by git.

``git diff`` against the working tree runs the file through git's conversion
machinery: a ``filter=`` driver's clean program, ``ident``,
``working-tree-encoding``, line-ending conversion, all chosen by a committed
``.gitattributes`` and the repository's config. The guard must neither run
those programs nor let a conversion hide a change, so it reads the working
tree itself: each path is looked up without following a link on the way
(a path beyond a link or a file does not exist, as for git), a link is
compared as a link (its target is the blob), a regular file by its raw bytes,
hashed as git hashes a blob (``sha1("blob <size>\\0" + bytes)``, or SHA-256 in
a SHA-256 repository), and by its execute bit, which git records (``100755``)
and a reader who runs the file gets: flipping it is a modification, as ``git
status`` says. Anything else (a FIFO, a socket, a device, a folder where a file
was) is never opened.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from freezer.domain.escape import visible

_CHUNK = 1 << 20
_REGULAR = ("100644", "100755")  # the modes git records for a regular file
# (mode, object id) of a tree entry, as ``git ls-tree`` lists it.
Entry = tuple[str, str]


def blob_id(data: bytes, algorithm: str = "sha1") -> str:
    """The object id git gives a blob holding ``data``."""
    return hashlib.new(algorithm, b"blob %d\0" % len(data) + data).hexdigest()


def algorithm_of(object_id: str) -> str:
    return "sha256" if len(object_id) == 64 else "sha1"


class WorkingTree:
    """Files under one folder of the working tree, looked up the way git would see them raw."""

    def __init__(self, root: Path, file_mode: bool = True) -> None:
        self._root = os.fsencode(root)
        # As git's core.fileMode: False where the file system keeps no execute bit worth reading.
        self._file_mode = file_mode and os.name != "nt"
        self._folders: dict[bytes, bool] = {b"": True}

    def _is_folder(self, rel: bytes) -> bool:
        """Is ``rel`` (under the root) a real folder, reached through real folders only?"""
        known = self._folders.get(rel)
        if known is None:
            known = self._is_folder(rel.rpartition(b"/")[0])
            if known:
                try:
                    known = stat.S_ISDIR(os.lstat(self._path(rel)).st_mode)
                except OSError:
                    known = False
            self._folders[rel] = known
        return known

    def _path(self, rel: bytes) -> bytes:
        return os.path.join(self._root, rel)

    def status(self, path: str, recorded: Entry) -> str | None:
        """How the working tree's ``path`` differs from the recorded entry: ``D`` (gone), ``T``
        (another kind of file), ``M`` (other bytes or another link target), or None (the same)."""
        mode, object_id = recorded
        rel = os.fsencode(path)
        parts = rel.split(b"/")
        if any(part in (b"", b".", b"..") or part.lower() == b".git" for part in parts):
            return "D"  # no checkout writes such a path
        if not self._is_folder(rel.rpartition(b"/")[0]):
            return "D"
        if mode in _REGULAR:
            # Opened without following a link and checked with fstat: a regular file costs four system
            # calls, not six; whatever else is there is classified below, from lstat.
            opened = self._file_id(rel, algorithm_of(object_id))
            if opened is not None:
                file_mode, found = opened
                if self._file_mode and bool(file_mode & stat.S_IXUSR) != (mode == "100755"):
                    return "M"
                return None if found == object_id else "M"
        try:
            info = os.lstat(self._path(rel))
        except OSError:
            return "D"
        if mode == "160000":  # a submodule: a folder, whose own repository is not the registry's
            return None if stat.S_ISDIR(info.st_mode) else "T"
        if mode == "120000":
            if not stat.S_ISLNK(info.st_mode):
                return "T"
            try:
                target = os.readlink(self._path(rel))
            except OSError:
                return "D"
            return None if blob_id(target, algorithm_of(object_id)) == object_id else "M"
        if not stat.S_ISREG(info.st_mode):
            return "T"
        executable = bool(info.st_mode & stat.S_IXUSR)
        if self._file_mode and mode in _REGULAR and executable != (mode == "100755"):
            return "M"
        opened = self._file_id(rel, algorithm_of(object_id))
        return None if opened is not None and opened[1] == object_id else "M"

    def _file_id(self, rel: bytes, algorithm: str) -> tuple[int, str] | None:
        """The mode and blob id of a regular file's bytes, or None if it is not one when opened (a
        link, gone, unreadable, another kind of file) or its size moved while it was read."""
        try:
            fd = os.open(self._path(rel), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return None
            digest = hashlib.new(algorithm, b"blob %d\0" % info.st_size)
            remaining = info.st_size
            while True:
                # One byte past what is left: a read that brings back all that is left and not that
                # byte has reached the end, so a small file is read, and found not to have grown, in
                # one call.
                chunk = os.read(fd, min(remaining, _CHUNK) + 1)
                if len(chunk) > remaining:
                    return None  # grew while read
                if not chunk:
                    break
                digest.update(chunk)
                remaining -= len(chunk)
                if not remaining:
                    break
            if remaining:
                return None  # shrank while read: not the recorded bytes
        except OSError:
            return None
        finally:
            os.close(fd)
        return info.st_mode, digest.hexdigest()

    def displaced(self, path: str) -> str | None:
        """Why ``path`` is not a regular file reached through real folders (a link on the way, a
        folder or the file gone, another kind of file), as words for a message; None when it is."""
        walked = ""
        parts = path.split("/")
        for index, part in enumerate(parts):
            walked += part
            try:
                info = os.lstat(self._path(os.fsencode(walked)))
            except OSError:
                return visible(f"{walked} is gone")
            if stat.S_ISLNK(info.st_mode):
                try:
                    target = os.fsdecode(os.readlink(self._path(os.fsencode(walked))))
                except OSError:
                    target = "?"
                return visible(f"{walked} is a link (to {target})")
            last = index == len(parts) - 1
            if not last and not stat.S_ISDIR(info.st_mode):
                return visible(f"{walked} is not a folder")
            if last and not stat.S_ISREG(info.st_mode):
                return visible(f"{walked} is not a regular file")
            walked += "/"
        return None
