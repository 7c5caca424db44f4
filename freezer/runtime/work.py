"""The one seam through which freezer's core runs work anywhere but in the calling thread.

Every stage above ``runtime`` goes through these functions, never through ``os.fork``, a pool or
an executor of its own:

* :func:`run_bounded`: one call of untrusted work (a registry's METHOD.md template) in a forked
  child bounded in time and memory; :class:`BoundExceeded` when it was stopped.
* :func:`map_bounded`: many calls of untrusted work (a suite's own schema on each fixture), each
  bounded, on every core; a stopped item comes back as :class:`Stopped`. Inside such a child,
  :func:`note` says what the work is doing, for the message if it is stopped.
* :func:`map_on_cores`: trusted work on every core (forked workers that inherit every loaded
  module), serially when there is one core, few items, or forking is unsafe (:func:`cores`).
* :func:`start_hashing` / :func:`hash_files`: sha256 of many files on every core, in the background.
* :func:`map_on_threads`: work that waits on other processes (one ``rg`` each), on threads.

The implementations stay where they were: :mod:`freezer.runtime.bounded` (rlimited children over
a pipe), :mod:`freezer.runtime.parallel` (the fork pool and when to use one) and
:mod:`freezer.runtime.hashing` (forked hashers on a queue).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from freezer.runtime import bounded, hashing, parallel
from freezer.runtime.bounded import BoundExceeded as BoundExceeded
from freezer.runtime.bounded import Stopped as Stopped
from freezer.runtime.bounded import note as note
from freezer.runtime.hashing import PendingHashes as PendingHashes

Item = TypeVar("Item")
Result = TypeVar("Result")
Progress = Callable[[int, int], None]


def cores(tasks: int | None = None) -> int:
    """How many forked workers to use for ``tasks`` independent pieces of work (1: stay serial)."""
    return parallel.workers(tasks)


def run_bounded(function: Callable[..., Result], *args: Any, seconds: float, memory: int) -> Result:
    """``function(*args)`` in a forked child within ``seconds`` and ``memory`` more bytes; its
    exception is re-raised here, or :class:`BoundExceeded` says why it was stopped."""
    return bounded.call_bounded(function, *args, seconds=seconds, memory=memory)


def map_bounded(
    function: Callable[[Item], Result],
    items: Sequence[Item],
    *,
    seconds: float,
    memory: int,
    workers: int = 1,
    max_stops: int = 3,
    progress: Progress | None = None,
) -> list[Result | Stopped]:
    """``function(item)`` for every item in forked children, each item bounded; in input order
    (see :func:`freezer.runtime.bounded.map_bounded`)."""
    return bounded.map_bounded(
        function, items, seconds=seconds, memory=memory, workers=workers, max_stops=max_stops, progress=progress
    )


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
    with parallel.fork_pool(count) as pool:
        for result in pool.map(function, items, chunksize=chunksize):
            results.append(result)
            if progress is not None:
                progress(len(results), len(items))
    return results


def start_hashing(paths: dict[str, str]) -> PendingHashes:
    """Start hashing ``paths`` (relative path → file) on every core; ``.result()`` collects them."""
    return hashing.PendingHashes(paths)


def hash_files(paths: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """sha256 by relative path, and why each file that could not be read failed."""
    return hashing.hash_files(paths)


def map_on_threads(function: Callable[[Item], Result], items: Sequence[Item]) -> list[Result]:
    """``function(item)`` for every item on one thread per core, in input order: for work that
    waits on another process (threads, so nothing is forked or pickled)."""
    if len(items) < 2:
        return [function(item) for item in items]
    # concurrent.futures.thread costs ~4 ms at start-up, and only a search of many patterns needs it.
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return list(pool.map(function, items))
