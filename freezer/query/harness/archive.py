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

The members whose JSON freezer's values come from (:func:`scored_members`) are inflated by that same
check into memory, one at a time and within their checked size, and handed to the caller to be read
strictly: Inspect's reader takes a key given twice at its last copy and NaN as a number.
"""

from __future__ import annotations

import os
import struct
import zipfile
import zlib
from collections.abc import Callable, Collection, Iterator
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
# Inspect 0.3.285's writer: the header and the summaries when the eval finished, their journal before.
HEADER, SUMMARIES = "header.json", "summaries.json"
_JOURNAL_START, _JOURNAL_SUMMARIES = "_journal/start.json", "_journal/summaries/"

ReadJson = Callable[[Path, str, bytes], None]  # the archive, a member's name, its inflated bytes


class ArchiveRefused(Exception):
    """Why the log is not handed to Inspect; the text is meant for the user."""


def private_copy(path: Path, folder: Path, read_json: ReadJson | None = None) -> Path:
    """``path`` copied into ``folder`` (private to this process) under the same suffix, read without
    following a link and within :data:`MAX_INSPECT_LOG_BYTES`; :class:`ReadRefused` or :class:`ArchiveRefused`
    says why not. A ``.eval`` copy is checked with :func:`check_archive` (``read_json`` as there)."""
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
        check_archive(copy, read_json)
    return copy


def header_member(names: Collection[str]) -> str | None:
    """The member Inspect reads a log's header from: ``header.json``, else (a log still running) the
    journal's start; None when the archive holds neither."""
    return next((name for name in (HEADER, _JOURNAL_START) if name in names), None)


def scored_members(names: Collection[str]) -> frozenset[str]:
    """The JSON members that Inspect's readers freezer calls parse for what freezer reads: the header
    (status, task version, model) and the samples' summaries (id, epoch, scores), each as Inspect
    picks it: ``header.json``, else the journal's start; ``summaries.json``, else every journal
    summary. The sample members (transcripts, the bulk of a log) are not read by those readers."""
    header = header_member(names) or _JOURNAL_START
    if SUMMARIES in names:
        return frozenset({header, SUMMARIES})
    journal = (n for n in names if n.startswith(_JOURNAL_SUMMARIES) and n.endswith(".json"))
    return frozenset({header, *journal})


def check_archive(path: Path, read_json: ReadJson | None = None) -> None:
    """:class:`ArchiveRefused` when the zip at ``path`` holds too many members or a member that
    declares or really inflates past the limits. A file that is no zip is left to Inspect to say so.
    ``read_json`` is given each of the :func:`scored_members` (the archive, the member's name and its
    inflated bytes, one at a time, once the member is known to be within bounds), and may raise to
    refuse it."""
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
        # Read here, where each member is inflated anyway to measure it: a second inflation costs more.
        strict = scored_members({m.filename for m in members}) if read_json is not None else frozenset()
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
            kept = b"".join(_inflate(handle, member, member.file_size + 1)) if member.filename in strict else None
            inflated = len(kept) if kept is not None else _inflated_size(handle, member, member.file_size + 1)
            if inflated > member.file_size:
                raise ArchiveRefused(
                    f"member {name} inflates past the {member.file_size} bytes it declares "
                    f"(a forged size; the limit is {MAX_INSPECT_MEMBER_BYTES} bytes)"
                )
            if kept is not None and read_json is not None:
                read_json(path, member.filename, kept)
                kept = None  # let go before the next member is inflated: one member's bytes at a time


def member_bytes(path: Path, name: str) -> bytes | None:
    """The inflated bytes of the member ``name`` of the zip at ``path``, already checked by
    :func:`check_archive` (so within its declared size); None when the archive has no such member."""
    with open(path, "rb") as handle:
        try:
            with zipfile.ZipFile(handle) as archive:
                member = archive.getinfo(name)
        except (KeyError, zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError):
            return None
        return b"".join(_inflate(handle, member, member.file_size))


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
    if member.compress_type == _STORED:
        _compressed(handle, member)  # its local header is checked all the same
        return member.compress_size
    return sum(len(chunk) for chunk in _inflate(handle, member, bound))


def _inflate(handle: IO[bytes], member: zipfile.ZipInfo, bound: int) -> Iterator[bytes]:
    """The member's compressed data inflated, chunk by chunk, until about ``bound`` bytes (at most a
    chunk past it): broken data ends it early, and Inspect's reader (or the strict read) says so."""
    data = _compressed(handle, member)
    if member.compress_type == _STORED:
        return _stored(data, bound)
    if member.compress_type == _DEFLATED:
        return _deflated(data, bound)
    if member.compress_type == _ZSTANDARD:
        return _zstd(data, bound)
    raise ArchiveRefused(
        f"member {member.filename[:80]} is compressed with method {member.compress_type}, "
        "which freezer cannot check (Inspect writes zstd or deflate)"
    )


def _compressed(handle: IO[bytes], member: zipfile.ZipInfo) -> _Slice:
    """The member's compressed data, past its local header, which must be where the directory says."""
    handle.seek(member.header_offset)
    header = handle.read(_LOCAL_HEADER.size)
    if len(header) < _LOCAL_HEADER.size or header[:4] != b"PK\x03\x04":
        raise ArchiveRefused(f"member {member.filename[:80]} has no local header where the directory says")
    _, name_length, extra_length = _LOCAL_HEADER.unpack(header)
    handle.seek(member.header_offset + _LOCAL_HEADER.size + name_length + extra_length)
    return _Slice(handle, member.compress_size)


def _stored(data: _Slice, bound: int) -> Iterator[bytes]:
    count = 0
    while count < bound and (chunk := data.read(min(_CHUNK, bound - count))):
        count += len(chunk)
        yield chunk


def _deflated(data: _Slice, bound: int) -> Iterator[bytes]:
    inflater = zlib.decompressobj(-zlib.MAX_WBITS)
    count = 0
    try:
        while count < bound and (chunk := data.read(_CHUNK)):
            while chunk and count < bound:
                out = inflater.decompress(chunk, _CHUNK)
                count += len(out)
                yield out
                chunk = inflater.unconsumed_tail
    except zlib.error:
        return  # broken data: Inspect's reader says so


def _zstd(data: _Slice, bound: int) -> Iterator[bytes]:
    # Local: zstandard comes with the inspect extra, the only reader of zstd members.
    import zstandard

    count = 0
    reader: _Reader = zstandard.ZstdDecompressor().stream_reader(cast(IO[bytes], data), read_across_frames=True)
    try:
        while count < bound and (chunk := reader.read(_CHUNK)):
            count += len(chunk)
            yield chunk
    except zstandard.ZstdError:
        return
