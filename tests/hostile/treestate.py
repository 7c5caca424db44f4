"""What a hostile case may not change: every entry of a folder as it stands, compared before and after."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path


def tree_state(top: Path) -> dict[str, tuple[int, str]]:
    """Every entry under ``top`` (links not followed, FIFOs never opened): its type and mode, and a
    file's content digest (``unreadable`` when it cannot be read) or a link's target."""
    found: dict[str, tuple[int, str]] = {}
    for folder, dirs, names in os.walk(top):
        for name in dirs + names:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            what = ""
            if stat.S_ISLNK(info.st_mode):
                what = os.readlink(path)
            elif stat.S_ISREG(info.st_mode) and info.st_mode & 0o444:
                try:
                    what = hashlib.sha256(Path(path).read_bytes()).hexdigest()
                except PermissionError:
                    what = "unreadable"
            found[os.path.relpath(path, top)] = (stat.S_IFMT(info.st_mode) | stat.S_IMODE(info.st_mode), what)
    return found
