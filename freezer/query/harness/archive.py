"""An Inspect log handed to Inspect's reader only as a private copy, and a ``.eval`` only once its
zip members are known to inflate within bounds.

Inspect opens the path it is given by name, follows a link, and inflates a ``.eval`` (a zip) member
whole into memory (a member that inflates to 1.2 GB is stopped only by the process's memory limit).
So freezer opens the log itself, never through a link and within :data:`MAX_INSPECT_LOG_BYTES`, copies it
from that descriptor into a folder only this process can write, and checks the copy: the number of
members, that no name is given twice, each member's declared size, their total, and each member's
real inflated size (a member can declare 1 KB and inflate to gigabytes; Inspect's reader inflates
all its compressed data).
Only then does Inspect read the copy, which nothing else can change.
"""

from __future__ import annotations

import os
import struct
import zipfile
import zlib
from pathlib import Path
from typing import IO, Protocol, cast

from freezer.runtime.limits import (
    MAX_INSPECT_LOG_BYTES,
    MAX_INSPECT_MEMBER_BYTES,
    MAX_INSPECT_MEMBERS,
    MAX_INSPECT_TOTAL_BYTES,
)
from freezer.runtime.reading import ReadRefused, open_regular
from freezer.runtime.writing import write_all

_STORED, _DEFLATED, _ZSTANDARD = 0, 8, 93  # the methods Inspect writes (zstd since 0.3.2xx)
_LOCAL_HEADER = struct.Struct("<4s22xHH")  # signature, then the name's and the extra field's lengths
_CHUNK = 1 << 20


class ArchiveRefused(Exception):
    """Why the log is not handed to Inspect; the text is meant for the user."""


def private_copy(path: Path, folder: Path) -> Path:
    """``path`` copied into ``folder`` (private to this process) under the same suffix, read without
    following a link and within :data:`MAX_INSPECT_LOG_BYTES`; :class:`ReadRefused` or :class:`ArchiveRefused`
    says why not. A ``.eval`` copy is checked with :func:`check_archive`."""
    # Inspect reads a .json log whole into memory, as it inflates a .eval member: the same bound.
    limit = MAX_INSPECT_MEMBER_BYTES if path.suffix == ".json" else MAX_INSPECT_LOG_BYTES
    source, _ = open_regular(path, limit)
    copy = folder / f"log{path.suffix}"
    try:
        target = os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            copied = 0
            while chunk := os.read(source, _CHUNK):
                copied += len(chunk)
                if copied > limit:  # it grew while it was copied
                    raise ReadRefused(f"file is over the {limit}-byte limit", "large")
                write_all(target, chunk)
        finally:
            os.close(target)
    finally:
        os.close(source)
    if path.suffix != ".json":
        check_archive(copy)
    return copy


def check_archive(path: Path) -> None:
    """:class:`ArchiveRefused` when the zip at ``path`` holds too many members or a member that
    declares or really inflates past the limits. A file that is no zip is left to Inspect to say so."""
    with open(path, "rb") as handle:
        try:
            with zipfile.ZipFile(handle) as archive:
                members = archive.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError):
            return
        if len(members) > MAX_INSPECT_MEMBERS:
            raise ArchiveRefused(f"the archive holds {len(members)} members, over the limit of {MAX_INSPECT_MEMBERS}")
        names: set[str] = set()
        total = 0
        for member in members:
            # Which copy of a name a reader takes is its own choice (Python's zipfile: the last), so an
            # archive that gives a member twice says two things at once, as a key given twice in JSON.
            if member.filename in names:
                raise ArchiveRefused(f"member {member.filename[:80]} is given twice: write the log again")
            names.add(member.filename)
            name = member.filename[:80]
            if member.file_size > MAX_INSPECT_MEMBER_BYTES:
                raise ArchiveRefused(
                    f"member {name} declares {member.file_size} bytes inflated,"
                    f" over the {MAX_INSPECT_MEMBER_BYTES}-byte limit"
                )
            total += member.file_size
            if total > MAX_INSPECT_TOTAL_BYTES:
                raise ArchiveRefused(
                    f"the members declare over {MAX_INSPECT_TOTAL_BYTES} bytes inflated, over the limit"
                )
            inflated = _inflated_size(handle, member, member.file_size + 1)
            if inflated > member.file_size:
                raise ArchiveRefused(
                    f"member {name} inflates past the {member.file_size} bytes it declares "
                    f"(a forged size; the limit is {MAX_INSPECT_MEMBER_BYTES} bytes)"
                )


class _Reader(Protocol):
    def read(self, size: int = -1) -> bytes: ...


class _Slice:
    """The compressed bytes of one member: at most ``left`` bytes of ``handle`` from where it is."""

    def __init__(self, handle: IO[bytes], left: int) -> None:
        self.handle, self.left = handle, left

    def read(self, size: int = -1) -> bytes:
        size = self.left if size < 0 else min(size, self.left)
        data = self.handle.read(size)
        self.left -= len(data)
        return data


def _inflated_size(handle: IO[bytes], member: zipfile.ZipInfo, bound: int) -> int:
    """How many bytes the member's compressed data inflates to, counted up to ``bound``."""
    handle.seek(member.header_offset)
    header = handle.read(_LOCAL_HEADER.size)
    if len(header) < _LOCAL_HEADER.size or header[:4] != b"PK\x03\x04":
        raise ArchiveRefused(f"member {member.filename[:80]} has no local header where the directory says")
    _, name_length, extra_length = _LOCAL_HEADER.unpack(header)
    handle.seek(member.header_offset + _LOCAL_HEADER.size + name_length + extra_length)
    data = _Slice(handle, member.compress_size)
    if member.compress_type == _STORED:
        return member.compress_size
    if member.compress_type == _DEFLATED:
        return _count_deflate(data, bound)
    if member.compress_type == _ZSTANDARD:
        return _count_zstd(data, bound)
    raise ArchiveRefused(
        f"member {member.filename[:80]} is compressed with method {member.compress_type}, "
        "which freezer cannot check (Inspect writes zstd or deflate)"
    )


def _count_deflate(data: _Slice, bound: int) -> int:
    inflater = zlib.decompressobj(-zlib.MAX_WBITS)
    count = 0
    try:
        while count < bound and (chunk := data.read(_CHUNK)):
            while chunk and count < bound:
                count += len(inflater.decompress(chunk, _CHUNK))
                chunk = inflater.unconsumed_tail
    except zlib.error:
        return count  # broken data: Inspect's reader says so
    return count


def _count_zstd(data: _Slice, bound: int) -> int:
    # Local: zstandard comes with the inspect extra, the only reader of zstd members.
    import zstandard

    count = 0
    reader: _Reader = zstandard.ZstdDecompressor().stream_reader(cast(IO[bytes], data), read_across_frames=True)
    try:
        while count < bound and (chunk := reader.read(_CHUNK)):
            count += len(chunk)
    except zstandard.ZstdError:
        return count
    return count
