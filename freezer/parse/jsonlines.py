"""Reading a JSON Lines file line by line, in bounded memory.

A results file can come from anywhere, so it is read as a stream of lines,
each bounded, from a regular file only (a FIFO, a device such as /dev/zero or
a symbolic link is refused before a byte is read). A line ends at LF alone,
as JSON Lines says (a CR before it is dropped): U+2028, NEL or a form feed
inside a row are characters of that row, not line breaks, unlike
``str.splitlines``. Each line is then parsed by :mod:`freezer.parse.strictjson`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from freezer.runtime.limits import MAX_RESULT_ROW_BYTES, MAX_RESULT_ROWS, MAX_RESULTS_FILE_BYTES
from freezer.runtime.reading import ReadRefused, open_regular

_READ_CHUNK = 1 << 16  # small enough that a chunk of empty lines splits into few objects


class FileRefused(Exception):
    """The file as a whole cannot be read as JSON Lines; the text is meant for the user."""


@dataclass
class FileLines:
    """The lines of one file, read lazily: iterate once. ``identity`` tells whether a second read sees the same file."""

    path: Path
    identity: tuple[int, ...]
    _fd: int = field(repr=False)

    def __iter__(self) -> Iterator[tuple[int, bytes | None]]:
        """(line number, the line without its LF or CRLF), or None for a line over :data:`MAX_RESULT_ROW_BYTES`."""
        try:
            yield from _split(self._fd)
        finally:
            self.close()

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


# How a results file is told it cannot be opened, where the generic wording would not say what to do.
_REFUSED = {
    "folder": "is a folder; name the results files in it (e.g. runs/*.jsonl)",
    "link": "is a symbolic link; name the file it points to",
}


def open_lines(path: Path) -> FileLines:
    """Open ``path`` for :class:`FileLines`; :class:`FileRefused` says why not."""
    try:
        fd, info = open_regular(path, MAX_RESULTS_FILE_BYTES)
    except ReadRefused as exc:
        if exc.kind == "large":
            raise FileRefused(f"{exc} for a results file; split it") from None
        raise FileRefused(_REFUSED.get(exc.kind, str(exc))) from None
    return FileLines(Path(path), (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns), fd)


def _split(fd: int) -> Iterator[tuple[int, bytes | None]]:
    number = 0
    pending = b""
    overlong = False  # the current line passed the bound: drop it up to its LF
    read = 0
    while True:
        try:
            chunk = os.read(fd, _READ_CHUNK)
        except OSError as exc:
            raise FileRefused(f"cannot read: {exc.strerror or exc}") from None
        if not chunk:
            break
        read += len(chunk)
        if read > MAX_RESULTS_FILE_BYTES:
            raise FileRefused(f"file grew past the {MAX_RESULTS_FILE_BYTES}-byte limit while it was read")
        parts = chunk.split(b"\n")
        last = parts.pop()
        for part in parts:
            number += 1
            if number > MAX_RESULT_ROWS:
                raise FileRefused(f"more than {MAX_RESULT_ROWS} lines; split the file")
            line = pending + part
            pending = b""
            yield number, None if overlong or len(line) > MAX_RESULT_ROW_BYTES else _without_cr(line)
            overlong = False
        if not overlong:
            pending += last
            if len(pending) > MAX_RESULT_ROW_BYTES:
                overlong, pending = True, b""
    if pending or overlong:
        number += 1
        if number > MAX_RESULT_ROWS:
            raise FileRefused(f"more than {MAX_RESULT_ROWS} lines; split the file")
        yield number, None if overlong else _without_cr(pending)


def _without_cr(line: bytes) -> bytes:
    return line[:-1] if line.endswith(b"\r") else line
