"""Inspect ``.eval`` logs (zip archives) made hostile after Inspect wrote them: members replaced or
added, a member's recorded size forged, a member's data swapped for a deflate stream that inflates
far past what it declares. Shared by tests/test_results_links.py and the hostile ``results add``
corpus (tests/hostile/results_add_cases.py)."""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path


def rewrite(log: Path, replace: dict[str, bytes], *, method: int = zipfile.ZIP_DEFLATED) -> None:
    """Write ``log`` again with ``replace``'s members set (added, or in place of the same name)."""
    with zipfile.ZipFile(log) as source:
        members = {info.filename: source.read(info) for info in source.infolist()}
    members.update(replace)
    with zipfile.ZipFile(log, "w", method) as target:
        for name, data in members.items():
            target.writestr(name, data)


def lie_about_size(log: Path, member: str, declared: int) -> None:
    """Set a member's recorded uncompressed size (local header and central directory) to ``declared``."""
    data = bytearray(log.read_bytes())
    with zipfile.ZipFile(log) as archive:
        info = archive.getinfo(member)
    data[info.header_offset + 22 : info.header_offset + 26] = declared.to_bytes(4, "little")
    # Every central directory entry is searched: its bytes 4-5 are "version made by" (the system in
    # the high byte), not the local header's "version needed", so they cannot narrow the search.
    central = data.rfind(b"PK\x01\x02")
    while central != -1:
        name_length = int.from_bytes(data[central + 28 : central + 30], "little")
        offset = int.from_bytes(data[central + 42 : central + 46], "little")
        if offset == info.header_offset and data[central + 46 : central + 46 + name_length] == member.encode():
            data[central + 24 : central + 28] = declared.to_bytes(4, "little")
            break
        central = data.rfind(b"PK\x01\x02", 0, central)
    log.write_bytes(bytes(data))


def zeros(size: int) -> bytes:
    """A raw deflate stream of ``size`` zero bytes (rounded down to MiB): about a thousandth of that."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = bytes(1 << 20)
    return b"".join(packer.compress(block) for _ in range(size >> 20)) + packer.flush()


def fix_offsets(log: Path, changed: zipfile.ZipInfo, delta: int) -> None:
    """After ``changed``'s data grew by ``delta`` bytes: its compressed size, and every later offset."""
    data = bytearray(log.read_bytes())
    size = changed.compress_size + delta
    data[changed.header_offset + 18 : changed.header_offset + 22] = size.to_bytes(4, "little")
    end = data.rfind(b"PK\x05\x06")
    directory = int.from_bytes(data[end + 16 : end + 20], "little") + delta
    data[end + 16 : end + 20] = directory.to_bytes(4, "little")
    pos = directory
    while data[pos : pos + 4] == b"PK\x01\x02":
        name_length, extra_length, comment_length = (
            int.from_bytes(data[pos + at : pos + at + 2], "little") for at in (28, 30, 32)
        )
        offset = int.from_bytes(data[pos + 42 : pos + 46], "little")
        if offset == changed.header_offset:
            data[pos + 20 : pos + 24] = size.to_bytes(4, "little")
        elif offset > changed.header_offset:
            data[pos + 42 : pos + 46] = (offset + delta).to_bytes(4, "little")
        pos += 46 + name_length + extra_length + comment_length
    log.write_bytes(bytes(data))


def bomb(log: Path, inflated: int, declared: int = 1000) -> None:
    """Add a member ``bomb.bin`` that declares ``declared`` bytes and inflates to ``inflated``."""
    rewrite(log, {"bomb.bin": b"\0" * declared})
    raw = log.read_bytes()
    with zipfile.ZipFile(log) as archive:
        info = archive.getinfo("bomb.bin")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    data = zeros(inflated)
    log.write_bytes(raw[:start] + data + raw[start + info.compress_size :])
    fix_offsets(log, info, len(data) - info.compress_size)
    lie_about_size(log, "bomb.bin", declared)
