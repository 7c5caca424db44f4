"""Reading a file that freezer needs whole, with a size bound.

Manifests, delta.json, SHA256SUMS, METHOD.md and templates are read into
memory. A registry can hold a sparse file of a gigabyte under any of those
names, so each read is refused by the file's size before a byte is read,
and a file that grows while it is read is cut off at the bound.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from freezer.domain.errors import FreezerError
from freezer.domain.problems import display_path
from freezer.runtime.limits import MAX_METADATA_BYTES


class ReadRefused(Exception):
    """Why a file was not read; the text is meant for the user. ``kind`` lets a caller word it for
    its own files: missing, folder, link, special, large or unreadable."""

    def __init__(self, message: str, kind: str = "unreadable") -> None:
        super().__init__(message)
        self.kind = kind


def open_regular(path: Path | str, limit: int, *, dir_fd: int | None = None) -> tuple[int, os.stat_result]:
    """An open descriptor (and its stat) of a regular file of at most ``limit`` bytes, opened
    without following a link or blocking on a FIFO or device (``dir_fd``: ``path`` is a name in that
    open folder); :class:`ReadRefused` says why not. The caller closes the descriptor."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0), dir_fd=dir_fd)
    except FileNotFoundError:
        raise ReadRefused("file not found (check the path)", "missing") from None
    except IsADirectoryError:
        raise ReadRefused("is a directory, expected a file", "folder") from None
    except PermissionError:
        raise ReadRefused("permission denied: the file is not readable") from None
    except OSError as exc:
        if _is_link(path, dir_fd):
            raise ReadRefused("is a symbolic link; freezer never follows one out of the place named", "link") from None
        raise ReadRefused(f"cannot open: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise ReadRefused("is a directory, expected a file", "folder")
        if not stat.S_ISREG(info.st_mode):
            raise ReadRefused("is not a regular file (FIFO, socket or device); refusing to read it", "special")
        if info.st_size > limit:
            raise ReadRefused(f"file is {info.st_size} bytes, over the {limit}-byte limit", "large")
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def _is_link(path: Path | str, dir_fd: int | None) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(path, dir_fd=dir_fd).st_mode)
    except OSError:
        return False


_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def open_folder(path: Path | str, *, dir_fd: int | None = None) -> int:
    """An open descriptor of the folder ``path`` (a name in ``dir_fd``, when given), which is not a
    link; :class:`ReadRefused` says why not. Walking down from it by descriptor, no folder can be
    swapped for a link between a check and a read. The caller closes the descriptor."""
    try:
        return os.open(path, _FOLDER_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        raise ReadRefused("folder not found (check the path)", "missing") from None
    except OSError as exc:
        if _is_link(path, dir_fd):
            raise ReadRefused("is a symbolic link; freezer never follows one out of the place named", "link") from None
        if exc.errno == errno.ENOTDIR:
            raise ReadRefused("is not a folder", "special") from None
        raise ReadRefused(f"cannot open: {exc.strerror}") from None


def read_below(place: Path, parts: tuple[str, ...], limit: int) -> bytes:
    """:func:`read_bounded` of ``place/parts…``, where ``place`` is the folder the user named: it and
    every folder below it are opened without following a link, each from the one above."""
    fd = open_folder(place)
    try:
        for index, part in enumerate(parts[:-1]):
            try:
                below = open_folder(part, dir_fd=fd)
            except ReadRefused as exc:
                raise ReadRefused(f"{'/'.join(parts[: index + 1])} {exc}", exc.kind) from None
            os.close(fd)
            fd = below
        return read_bounded(parts[-1], limit, dir_fd=fd)
    finally:
        os.close(fd)


def read_bounded(path: Path | str, limit: int, *, dir_fd: int | None = None) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, never blocking on a FIFO or device,
    never following a link (``dir_fd``: ``path`` is a name in that open folder); :class:`ReadRefused`
    says why not."""
    fd, _ = open_regular(path, limit, dir_fd=dir_fd)
    try:
        chunks = []
        remaining = limit + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    except OSError as exc:
        raise ReadRefused(f"cannot read: {exc.strerror}") from None
    finally:
        os.close(fd)
    if remaining <= 0:
        raise ReadRefused(f"file is over the {limit}-byte limit")
    return b"".join(chunks)


def read_whole(path: Path | str, limit: int = MAX_METADATA_BYTES) -> bytes:
    """:func:`read_bounded`, or :class:`FreezerError` naming the file."""
    try:
        return read_bounded(path, limit)
    except ReadRefused as exc:
        raise FreezerError(f"{display_path(path)}: {exc}") from None
