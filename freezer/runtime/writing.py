"""Every write freezer makes goes through here: whole, atomic, never through a link.

A registry is content that arrives in pull requests, so a file freezer replaces, or a folder on the
way to it, may be a committed symbolic link (freezer.runtime.paths says which are safe). A file is
replaced by writing a temporary file beside it and renaming it over: a reader sees the old file or
the new one, and a link is never followed, only refused. A place the user names for output
(:func:`output_place`: ``results import --out``, ``site --out``) is never reached through a link;
inside the registry it takes the registry lock and may never be a versions or drafts folder.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from freezer.domain.errors import FreezerError, UsageError
from freezer.domain.problems import display_path
from freezer.runtime.lock import WORK_DIR, registry_lock
from freezer.runtime.paths import require_safe


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data``: os.write may write less than it was given."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def write_new(path: Path | str, data: bytes, create_mode: int = 0o666, *, mode: int | None = None) -> None:
    """Create ``path`` (it must not exist, and a link there is never followed) holding ``data``:
    a file in a folder of freezer's own making. It gets ``create_mode`` less the umask, as any new
    file, or exactly ``mode``."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, create_mode if mode is None else 0o600)
    try:
        write_all(fd, data)
        if mode is not None:
            os.fchmod(fd, mode)
    finally:
        os.close(fd)


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


@contextmanager
def output_place(
    out: Path, registry_root: Path | None, protected: Iterable[Path], what: str, *, folder: bool = False
) -> Iterator[None]:
    """Hold the block while ``out``, a place the user named for output, may be written: when it lies
    in the registry (by its own path or where its links lead), no link may be on the way from the
    registry root, it may not be the root, a versions or drafts folder (``protected``), .git or
    .freezer, and the block holds the registry lock. Outside the registry the user's folders are
    their own; the writer still never writes through a link at ``out`` itself. ``folder``: ``out``
    is a folder, and an existing file there is refused too."""
    lexical = Path(os.path.abspath(out))
    resolved = out.resolve()
    if registry_root is None or not (_inside(lexical, registry_root) or _inside(resolved, registry_root)):
        yield
        return
    kept = [f for f in (*protected, registry_root / ".git", registry_root / WORK_DIR) if f != registry_root]
    for candidate in (lexical, resolved):
        owner = registry_root if candidate == registry_root else next((f for f in kept if _inside(candidate, f)), None)
        if owner is not None:
            where = "the registry" if owner == registry_root else f"inside {display_path(owner)}"
            raise UsageError(
                f"{display_path(out)} is {where}, where freezer keeps its own files (frozen versions, drafts, "
                f".git, .freezer); {what} is never written there",
                hint=f"name a place of its own for {what} (for example under runs/ or site/ at the registry root)",
            )
    inside = lexical if _inside(lexical, registry_root) else resolved
    require_safe(registry_root, inside, what, folder=folder)
    with registry_lock(registry_root):
        require_safe(registry_root, inside, what, folder=folder)  # again, now that no other writer runs
        yield


def write_output(out: Path, data: str | bytes, what: str, *, registry_root: Path, protected: Iterable[Path]) -> None:
    """Write a file the user named (``results import --out``) in one rename, in :func:`output_place`,
    never through a link at the file itself."""
    target = Path(os.path.abspath(out))
    with output_place(out, registry_root, protected, what):
        if not target.parent.is_dir():
            raise UsageError(
                f"{display_path(out)}: the folder of {what} does not exist", hint="create it, or name another file"
            )
        write_atomically(target, data, what=what)


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
    temporary = target.with_name(f".{target.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        # 0o644 goes through the umask like any new file; an explicit or kept mode is set exactly.
        fd = os.open(temporary, flags, 0o644 if wanted is None else 0o600)
        try:
            write_all(fd, payload)
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
