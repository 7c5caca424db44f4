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

from freezer.errors import FreezerError
from freezer.problems import display_path

MAX_METADATA_BYTES = 64 << 20
MAX_TEMPLATE_BYTES = 1 << 20


def read_whole(path: Path | str, limit: int = MAX_METADATA_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, or :class:`FreezerError` saying why not."""
    shown = display_path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise FreezerError(f"{shown}: cannot be read: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FreezerError(f"{shown}: is not a regular file")
        if info.st_size > limit:
            raise FreezerError(f"{shown}: is {info.st_size:,} bytes, more than the {limit:,} freezer reads whole")
        chunks = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        if left <= 0:
            raise FreezerError(f"{shown}: grew past {limit:,} bytes while it was read")
        return b"".join(chunks)
    except OSError as exc:
        raise FreezerError(f"{shown}: cannot be read: {exc.strerror}") from None
    finally:
        os.close(fd)
