"""The in-registry path guard: every path freezer writes or deletes passes through here.

A registry is content that arrives in pull requests, so any folder on the way
to a place freezer writes may be a committed symbolic link, or a file where a
folder should be. A path is safe to write when it lies lexically under the
registry root and no component from the root down to it is a link; a
component that is a file, a FIFO or a device is refused too. The root itself
is resolved once, when the config is loaded.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

from freezer.domain.errors import ConfigError, FreezerError
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


def replace_file(root: Path, path: Path, data: str | bytes, what: str, *, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` inside the registry as one rename: a reader sees the old file or
    the new one, never half of either; the folder is created when missing. The file keeps its
    mode (see :func:`write_atomically`)."""
    target = require_safe(root, path, what, folder=False)
    folder = require_safe(root, target.parent, f"the folder of {what}")
    try:
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        raise FreezerError(f"{display_path(folder)}: cannot create the folder of {what}: {exc.strerror}") from None
    write_atomically(target, data, what=what, mode=mode)


def write_atomically(target: Path, data: str | bytes, *, what: str = "the file", mode: int | None = None) -> None:
    """Replace ``target`` by ``data`` in one rename, file and folder fsynced, never through a link.

    The new file gets ``mode`` when given, else the mode of the file it replaces, else 0644 less
    the umask, as any new file: a temporary file's private 0600 must not leak into the result.
    A link, a folder, a FIFO or a device at ``target`` is refused, never followed or replaced."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    shown = display_path(target)
    try:
        existing: int | None = os.lstat(target).st_mode
    except FileNotFoundError:
        existing = None
    except OSError as exc:
        raise FreezerError(f"{shown}: cannot inspect {what}: {exc.strerror}") from None
    if existing is not None and not stat.S_ISREG(existing):
        kind = "a symbolic link" if stat.S_ISLNK(existing) else "not a regular file"
        raise FreezerError(
            f"{shown}: {what} is {kind}; freezer replaces only regular files and never follows a link",
            hint="remove it, then run again",
        )
    wanted = mode if mode is not None else (stat.S_IMODE(existing) if existing is not None else None)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        # 0o644 goes through the umask like any new file; an explicit or kept mode is set exactly.
        fd = os.open(temporary, flags, 0o644 if wanted is None else 0o600)
        try:
            view = memoryview(payload)
            while view:
                view = view[os.write(fd, view) :]
            if wanted is not None:
                os.fchmod(fd, wanted)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise FreezerError(
            f"{shown}: cannot write {what}: {exc.strerror or exc}; it was left as it was",
            hint="check free space and permissions of its folder, then run again",
        ) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    sync_folder(target.parent)


def sync_folder(folder: Path) -> None:
    """fsync a folder, so a rename in it survives a crash (a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems refuse fsync on a folder; the rename itself has happened
    finally:
        os.close(fd)
