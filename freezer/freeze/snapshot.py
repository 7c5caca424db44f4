"""Writing a version directory atomically, under a registry lock.

A version is built in a staging directory next to the versions folder (same
filesystem), every file and directory is fsynced, and the staging directory
is renamed into place: a crash leaves either no version or a complete one.
Staging directories left by a killed cut are removed by the next cut, under
the lock. The lock is an ``flock`` on a file under ``.freezer/``: the kernel
releases it when its holder dies, so a killed cut never blocks the next.

The filesystem calls go through :class:`FsOps` so tests can make any single
step fail and check that nothing is left behind.
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import stat
import sys
import uuid
from collections.abc import Callable, Collection, Mapping
from pathlib import Path

from freezer.domain.errors import FreezerError
from freezer.domain.manifest import EXECUTABLE
from freezer.runtime.lock import work_dir
from freezer.runtime.paths import require_safe
from freezer.runtime.writing import write_all, write_new

READ_ONLY = stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH
# A frozen executable (git's 100755) stays one: read and execute, never write.
READ_EXECUTE = READ_ONLY | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH


def _load_syncfs() -> Callable[[int], int] | None:
    try:
        # ctypes.util costs ~35 ms at start-up (it brings subprocess and friends): only when a cut syncs.
        import ctypes
        import ctypes.util  # (the same)

        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        function: Callable[[int], int] = libc.syncfs
        return function
    except (OSError, AttributeError):
        return None


_SYNCFS = _load_syncfs() if sys.platform.startswith("linux") else None


class FsOps:
    """The filesystem steps of a cut; replaced in tests to inject faults."""

    def mkdir(self, path: Path) -> None:
        path.mkdir()

    def write(self, path: Path, data: bytes) -> None:
        write_new(path, data, 0o644)

    def copy(self, source: Path, path: Path, sha256: str) -> None:
        """Copy ``source`` in bounded chunks, hashing as it goes; it must still hash to ``sha256``."""
        digest = hashlib.sha256()
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        src = os.open(source, flags)
        try:
            dst = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o644)
            try:
                while chunk := os.read(src, 1 << 20):
                    digest.update(chunk)
                    write_all(dst, chunk)
            finally:
                os.close(dst)
        finally:
            os.close(src)
        if digest.hexdigest() != sha256:
            raise FreezerError(f"{source} changed while it was being frozen; nothing was written", hint="cut again")

    def fsync_fd(self, fd: int) -> None:
        os.fsync(fd)

    def fsync_path(self, path: Path) -> None:
        flags = os.O_RDONLY | (getattr(os, "O_DIRECTORY", 0) if path.is_dir() else 0)
        fd = os.open(path, flags)
        try:
            self.fsync_fd(fd)
        finally:
            os.close(fd)

    def syncfs(self, folder: Path) -> bool:
        """Flush the whole filesystem holding ``folder`` in one call; False where that is not available."""
        if _SYNCFS is None:
            return False
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            if _SYNCFS(fd) != 0:
                raise OSError(ctypes_errno(), "syncfs failed")
        finally:
            os.close(fd)
        return True

    def chmod(self, path: Path, mode: int) -> None:
        os.chmod(path, mode)

    def rename(self, source: Path, target: Path) -> None:
        os.rename(source, target)


def ctypes_errno() -> int:
    import ctypes  # ~2 ms at start-up: only after syncfs failed

    return ctypes.get_errno()


def _staging_root(root: Path) -> Path:
    path = require_safe(root, work_dir(root) / "staging", "the staging folder")
    path.mkdir(exist_ok=True)
    return path


def clear_stale_staging(root: Path) -> int:
    """Remove staging directories of cuts that died; call only while holding the lock."""
    staging = _staging_root(root)
    removed = 0
    with os.scandir(staging) as entries:
        for entry in entries:
            # A link is removed as a link: nothing it points at is ever touched.
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.unlink(entry.path)
            removed += 1
    return removed


def write_version(
    root: Path,
    target: Path,
    files: dict[str, bytes],
    fs: FsOps | None = None,
    copies: dict[str, tuple[Path, str]] | None = None,
    executable: Collection[str] = (),
) -> None:
    """Create ``target`` (inside the registry ``root``) holding exactly ``files`` and the ``copies``
    (rel -> (source, sha256), streamed and checked against the hash), or leave no trace. Every file
    is read-only; those named ``executable`` (the manifest's 100755) keep their execute bits."""
    fs = fs or FsOps()
    require_safe(root, target.parent, "the versions folder")
    if target.exists() or target.is_symlink():
        raise FreezerError(f"{target} already exists; a frozen version is never overwritten")
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = _staging_root(root) / f"{target.name}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    try:
        fs.mkdir(staging)
        folders = {staging}
        written = []
        streamed = copies or {}
        for rel in sorted([*files, *streamed]):
            path = staging / rel
            for parent in reversed(path.relative_to(staging).parents[:-1]):
                folder = staging / parent
                if folder not in folders:
                    fs.mkdir(folder)
                    folders.add(folder)
            if rel in files:
                fs.write(path, files[rel])
            else:
                fs.copy(streamed[rel][0], path, streamed[rel][1])
            fs.chmod(path, READ_EXECUTE if rel in executable else READ_ONLY)
            written.append(path)
        # Every byte must be on disk before the rename makes the version visible. One syncfs
        # does that for thousands of files at the cost of one call; elsewhere, fsync each.
        if not fs.syncfs(staging):
            for path in [*written, *sorted(folders, key=lambda p: -len(p.parts))]:
                fs.fsync_path(path)
        try:
            fs.rename(staging, target)
        except OSError as exc:
            if exc.errno in (errno.EEXIST, errno.ENOTEMPTY):
                raise FreezerError(f"{target} appeared during the cut; it was left untouched") from None
            raise
    except BaseException as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(exc, OSError):
            raise FreezerError(
                f"writing {target.name} failed ({exc.strerror or exc}); nothing was written",
                hint="check free space and permissions of the versions folder, then cut again",
            ) from None
        raise
    try:
        fs.fsync_path(target.parent)
    except BaseException as exc:
        # The rename may not be durable: take the version back out rather than leave it in doubt.
        shutil.rmtree(target, ignore_errors=True)
        if isinstance(exc, OSError):
            raise FreezerError(f"writing {target.name} failed ({exc.strerror or exc}); nothing was written") from None
        raise


def source_modes(paths: Mapping[str, Path]) -> dict[str, str]:
    """The files of ``paths`` (rel -> source) that are executable, as git tells one: the owner's
    execute bit makes a file 100755. The manifest lists them; every other file is 100644."""
    found = {}
    for rel, path in sorted(paths.items()):
        try:
            if os.lstat(path).st_mode & stat.S_IXUSR:
                found[rel] = EXECUTABLE
        except OSError as exc:
            raise FreezerError(f"{path} cannot be read ({exc.strerror or exc}); nothing was written") from None
    return found
