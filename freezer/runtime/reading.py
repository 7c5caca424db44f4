"""Reading a file that freezer needs whole, with a size bound.

Manifests, delta.json, SHA256SUMS, METHOD.md and templates are read into
memory. A registry can hold a sparse file of a gigabyte under any of those
names, so each read is refused by the file's size before a byte is read,
and a file that grows while it is read is cut off at the bound.
"""

from __future__ import annotations

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


def open_regular(path: Path | str, limit: int) -> tuple[int, os.stat_result]:
    """An open descriptor (and its stat) of a regular file of at most ``limit`` bytes, opened
    without following a link or blocking on a FIFO or device; :class:`ReadRefused` says why not.
    The caller closes the descriptor."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise ReadRefused("file not found (check the path)", "missing") from None
    except IsADirectoryError:
        raise ReadRefused("is a directory, expected a file", "folder") from None
    except PermissionError:
        raise ReadRefused("permission denied: the file is not readable") from None
    except OSError as exc:
        kind = "link" if os.path.islink(path) else "unreadable"
        raise ReadRefused(f"cannot open: {exc.strerror}", kind) from None
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


def read_bounded(path: Path | str, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, never blocking on a FIFO or device,
    never following a link; :class:`ReadRefused` says why not."""
    fd, _ = open_regular(path, limit)
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
