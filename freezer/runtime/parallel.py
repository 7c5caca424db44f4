"""When and how freezer uses more than one core.

Workers are forked: they inherit every loaded module, so a pool starts in
tens of milliseconds instead of re-importing freezer in each worker. Forking
is only safe while this process runs a single thread (a lock held by another
thread stays locked forever in the child), which matters when freezer is
used as a library. Where fork is unavailable or unsafe, work runs serially.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor  # (the same ~13 ms)

MAX_WORKERS = 8


def workers(tasks: int | None = None) -> int:
    """How many processes to use for ``tasks`` independent pieces of work (1: stay serial)."""
    import multiprocessing  # ~3 ms at start-up (every command imports this module): only when asked

    if multiprocessing.parent_process() is not None:
        return 1  # already a worker: the other cores are taken
    if "fork" not in multiprocessing.get_all_start_methods() or threading.active_count() > 1:
        return 1
    count = min(os.cpu_count() or 1, MAX_WORKERS)
    return count if tasks is None else max(1, min(count, tasks))


def fork_pool(count: int) -> ProcessPoolExecutor:
    # concurrent.futures.process (with multiprocessing) costs ~13 ms at start-up: only when a pool is forked.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor  # (the same ~13 ms)

    return ProcessPoolExecutor(max_workers=count, mp_context=multiprocessing.get_context("fork"))
