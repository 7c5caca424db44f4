"""Writing bytes to a file descriptor whole: the one loop every writer of frozen bytes uses."""

from __future__ import annotations

import os


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data``: os.write may write less than it was given."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
