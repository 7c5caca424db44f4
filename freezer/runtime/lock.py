"""The registry lock and freezer's work folder, shared by every command that writes the registry.

The lock is an ``flock`` on a file under ``.freezer/``: the kernel releases it when its
holder dies, so a killed command never blocks the next.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from freezer.domain.errors import FreezerError, LockBusy, UsageError
from freezer.runtime.paths import require_safe

WORK_DIR = ".freezer"


def work_dir(root: Path) -> Path:
    """``.freezer/`` under the registry root, created with a .gitignore that hides it from git."""
    path = require_safe(root, root / WORK_DIR, "the work folder")
    if not path.is_dir():
        try:
            path.mkdir(exist_ok=True)
            with contextlib.suppress(FileExistsError):  # a parallel command made it first
                _write_new(path / ".gitignore", b"*\n")
        except OSError as exc:
            raise FreezerError(
                f"cannot create {path}: {exc.strerror}",
                hint="a cut writes its lock and staging there: run it where the registry is writable",
            ) from None
    return path


def _write_new(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


# How long a command that writes the registry (yank, deprecate, checkpoint, sign) waits for
# another to finish before it gives up; FREEZER_LOCK_SECONDS changes it.
LOCK_WAIT_SECONDS = 60.0
_MAX_LOCK_WAIT_SECONDS = 3600.0
_held = threading.local()


def lock_wait_seconds() -> float:
    """How long a writer waits for the registry lock: ``FREEZER_LOCK_SECONDS``, or 60 s."""
    text = os.environ.get("FREEZER_LOCK_SECONDS")
    if text is None or not text.strip():
        return LOCK_WAIT_SECONDS
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= _MAX_LOCK_WAIT_SECONDS:  # NaN fails this too
        raise UsageError(
            f"FREEZER_LOCK_SECONDS={text!r} is not a number of seconds from 0 to {_MAX_LOCK_WAIT_SECONDS:.0f}"
        )
    return seconds


@contextmanager
def registry_lock(root: Path, *, wait: float | None = None) -> Iterator[None]:
    """Hold the registry's lock for the block: an ``flock`` that dies with its holder.

    ``wait=None`` fails at once with :class:`LockBusy` when another process holds it (a cut:
    two cuts of the same version must not queue up); ``wait=N`` waits up to N seconds for the
    holder to finish, so parallel writers serialise, then fails with :class:`LockBusy`. A writer
    must re-read every file it changes inside the block. The lock is re-entrant within a thread:
    a block nested in another for the same registry holds it already."""
    lock_path = require_safe(root, work_dir(root) / "lock", "the lock file", folder=False)
    held: set[str] = _held.__dict__.setdefault("paths", set())
    key = str(lock_path)
    if key in held:
        yield
        return
    fd = _acquire(lock_path, wait)
    held.add(key)
    try:
        yield
    finally:
        held.discard(key)
        os.close(fd)


def _acquire(lock_path: Path, wait: float | None) -> int:
    deadline = time.monotonic() + (wait or 0.0)
    pause = 0.005
    replaced = 0
    while True:
        # O_NOFOLLOW: a link planted as the lock file must not make freezer create or open its target.
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(lock_path, flags, 0o644)
        except OSError as exc:
            raise FreezerError(f"cannot open the registry lock {lock_path}: {exc.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            if wait is None:
                raise LockBusy(
                    f"another freezer cut holds the registry lock ({lock_path})",
                    hint="wait for it to finish; the lock is released when that process exits",
                ) from None
            if time.monotonic() >= deadline:
                raise LockBusy(
                    f"another freezer command held the registry lock ({lock_path}) for {wait:g} s; gave up waiting",
                    hint="run again when it has finished (the lock is released when that process exits); "
                    "FREEZER_LOCK_SECONDS sets how long to wait",
                ) from None
            time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
            pause = min(pause * 2, 0.1)
            continue
        try:
            same = os.fstat(fd).st_ino == os.stat(lock_path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        # The lock file was removed or replaced while we waited: our lock guards nothing; retry.
        os.close(fd)
        replaced += 1
        if replaced >= 5:
            raise LockBusy(f"the registry lock {lock_path} keeps being replaced; is something deleting it?")
