"""How freezer's core runs work anywhere but in the calling thread.

Every stage above ``runtime`` goes through the runtime modules, never through ``os.fork``, a pool
or an executor of its own:

* :func:`freezer.runtime.bounded.call_bounded`: one call of untrusted work (a registry's METHOD.md
  template) in a forked child bounded in time and memory; ``BoundExceeded`` when it was stopped.
* :func:`freezer.runtime.bounded.map_bounded`: many calls of untrusted work (a suite's own schema on
  each fixture), each bounded, on every core; a stopped item comes back as ``Stopped``. Inside such
  a child, ``bounded.note`` says what the work is doing, for the message if it is stopped.
* :func:`map_on_cores` (here): trusted work on every core (forked workers that inherit every loaded
  module), serially when there is one core, few items, or forking is unsafe (:func:`cores`).
* :class:`freezer.runtime.hashing.PendingHashes` / ``hash_files``: sha256 of many files on every
  core, in the background.
* :func:`map_on_threads` (here): work that waits on other processes (one ``rg`` each), on threads.

Workers are forked: they inherit every loaded module, so a pool starts in tens of milliseconds
instead of re-importing freezer in each worker. Forking is only safe while this process runs a
single thread (a lock held by another thread stays locked forever in the child), which matters when
freezer is used as a library. Where fork is unavailable or unsafe, work runs serially.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor  # (the same ~13 ms as in fork_pool)

Item = TypeVar("Item")
Result = TypeVar("Result")
Progress = Callable[[int, int], None]
MAX_WORKERS = 8


def cores(tasks: int | None = None) -> int:
    """How many forked workers to use for ``tasks`` independent pieces of work (1: stay serial)."""
    # Not imported here: multiprocessing takes 15-30 ms to import, and every cut and audit asks this
    # (hashing). A process multiprocessing started has it loaded, so one without it is no worker.
    started_by = sys.modules.get("multiprocessing")
    if started_by is not None and started_by.parent_process() is not None:
        return 1  # already a worker: the other cores are taken
    if not hasattr(os, "fork") or threading.active_count() > 1:  # fork: multiprocessing's start method
        return 1
    count = min(os.cpu_count() or 1, MAX_WORKERS)
    return count if tasks is None else max(1, min(count, tasks))


def fork_pool(count: int) -> ProcessPoolExecutor:
    # concurrent.futures.process (with multiprocessing) costs ~13 ms at start-up: only when a pool is forked.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor  # (the same ~13 ms)

    return ProcessPoolExecutor(max_workers=count, mp_context=multiprocessing.get_context("fork"))


def map_on_cores(
    function: Callable[[Item], Result],
    items: Sequence[Item],
    *,
    workers: int | None = None,
    chunksize: int = 1,
    progress: Progress | None = None,
) -> list[Result]:
    """``function(item)`` for every item, in input order: on ``workers`` forked workers
    (:func:`cores` of them by default), or here when that is fewer than two. ``progress`` is told
    (done, total) after each result, in order."""
    count = cores(len(items)) if workers is None else workers
    results: list[Result] = []
    if count < 2:
        for item in items:
            results.append(function(item))
            if progress is not None:
                progress(len(results), len(items))
        return results
    with fork_pool(count) as pool:
        for result in pool.map(function, items, chunksize=chunksize):
            results.append(result)
            if progress is not None:
                progress(len(results), len(items))
    return results


def map_on_threads(function: Callable[[Item], Result], items: Sequence[Item]) -> list[Result]:
    """``function(item)`` for every item on one thread per core, in input order: for work that
    waits on another process (threads, so nothing is forked or pickled)."""
    if len(items) < 2:
        return [function(item) for item in items]
    # concurrent.futures.thread costs ~4 ms at start-up, and only a search of many patterns needs it.
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return list(pool.map(function, items))
