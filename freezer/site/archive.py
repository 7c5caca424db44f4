"""A version's download: its frozen folder as a tar.gz that the same version always gives byte for byte.

Entries are sorted by path and rooted at the version's own folder name (``graph_v2/...``); every
entry has the version's cut time as its mtime, owner 0:0 with no names, and mode 0644 (0755 for a
file the version froze executable, as ``tests/test.sh`` is), so a rebuilt site, another checkout or
another machine gives the same bytes, and the sha256 the page states can be checked with
``sha256sum``. gzip's own header carries no file name and mtime 0. Only regular files are archived:
a link inside a version is never followed out of it.
"""

from __future__ import annotations

import gzip
import io
import os
import stat
import tarfile
from datetime import datetime
from pathlib import Path

from freezer.runtime.limits import MAX_WHOLE_FILE_BYTES
from freezer.runtime.reading import read_whole


def _frozen_files(folder: Path) -> list[tuple[str, Path]]:
    found: list[tuple[str, Path]] = []
    for parent, dirs, names in os.walk(folder):
        dirs.sort()
        for name in names:
            path = Path(parent) / name
            if stat.S_ISREG(os.lstat(path).st_mode):
                found.append((path.relative_to(folder).as_posix(), path))
    return sorted(found)


def _timestamp(cut_at: str) -> int:
    # The cut time, so an extracted file says when it was frozen; 0 if the stamp does not parse.
    try:
        return int(datetime.fromisoformat(cut_at).timestamp())
    except ValueError:
        return 0


def version_archive(folder: Path, cut_at: str) -> bytes:
    """The frozen folder as a reproducible tar.gz."""
    mtime = _timestamp(cut_at)
    packed = io.BytesIO()
    # The tar streams straight into gzip (mtime 0, no name): one copy of the version in memory, and the
    # same bytes as packing it first, since deflate's output does not depend on how its input is split.
    with (
        gzip.GzipFile(filename="", fileobj=packed, mode="wb", compresslevel=9, mtime=0) as gz,
        tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for rel, path in _frozen_files(folder):
            data = read_whole(path, MAX_WHOLE_FILE_BYTES)
            info = tarfile.TarInfo(f"{folder.name}/{rel}")
            info.size = len(data)
            info.mtime = mtime
            info.mode = 0o755 if os.lstat(path).st_mode & stat.S_IXUSR else 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    return packed.getvalue()
