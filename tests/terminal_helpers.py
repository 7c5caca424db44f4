"""Running a real process on a pseudo-terminal, for what freezer draws only on a terminal."""

from __future__ import annotations

import os
import select
import sys
from pathlib import Path

from freezer.cli.terminal import PROGRESS_AFTER_VARIABLE


def on_terminal(argv: list[str], after: str, cwd: Path | None = None) -> tuple[int, bytes]:
    """Run Python with ``argv`` and stdin, stdout and stderr on a pseudo-terminal, the bar asked for
    after ``after`` seconds and colour allowed; its exit code and everything it wrote there."""
    pid, fd = os.forkpty()
    if pid == 0:  # pragma: no cover - the child's coverage is not collected
        if cwd is not None:
            os.chdir(cwd)
        os.environ.pop("NO_COLOR", None)
        os.environ[PROGRESS_AFTER_VARIABLE] = after
        os.execv(sys.executable, [sys.executable, *argv])
    seen = b""
    while True:
        ready, _, _ = select.select([fd], [], [], 120)
        if not ready:
            break
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), seen
