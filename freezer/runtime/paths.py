"""The in-registry path guard: every path freezer writes or deletes passes through here.

A registry is content that arrives in pull requests, so any folder on the way
to a place freezer writes may be a committed symbolic link, or a file where a
folder should be. A path is safe to write when it lies lexically under the
registry root and no component from the root down to it is a link; a
component that is a file, a FIFO or a device is refused too. The root itself
is resolved once, when the config is loaded.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from freezer.domain.errors import ConfigError
from freezer.domain.problems import display_path


def unsafe_reason(root: Path, path: Path) -> str | None:
    """Why ``path`` is not a safe place for freezer to write under ``root``, or None."""
    try:
        rel = path.relative_to(root)
    except ValueError:
        return "is outside the registry"
    if ".." in rel.parts:
        return "leaves the registry through '..'"
    current = root
    for index, part in enumerate(rel.parts):
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            return None
        except OSError as exc:
            return f"cannot be inspected ({exc.strerror})"
        if stat.S_ISLNK(mode):
            return f"passes through a symbolic link ({display_path(current)})"
        last = index == len(rel.parts) - 1
        if not stat.S_ISDIR(mode) and not (last and stat.S_ISREG(mode)):
            return f"passes through {display_path(current)}, which is not a folder"
    return None


def unsafe_folder_reason(root: Path, path: Path) -> str | None:
    """:func:`unsafe_reason`, and also refusing an existing file where a folder belongs."""
    reason = unsafe_reason(root, path)
    if reason is None and path.exists() and not path.is_dir():
        reason = "is a file, not a folder"
    return reason


def require_safe(root: Path, path: Path, what: str, *, folder: bool = True) -> Path:
    """``path``, or :class:`ConfigError` naming it; ``folder`` also refuses an existing file there."""
    reason = unsafe_folder_reason(root, path) if folder else unsafe_reason(root, path)
    if reason is not None:
        raise ConfigError(
            f"{display_path(path)}: {what} {reason}; freezer writes only to real folders inside the registry",
            hint="remove or replace it with a real folder (git rm it if it is committed), then run again",
        )
    return path
