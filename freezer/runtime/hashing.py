"""sha256 of many files, on every core, while the caller goes on with other work.

Measured on the 2-core benchmark machine (10,000 files, 1 GB, page cache warm):
one process hashes at ~1,100 MB/s; two *threads* were slower than one (reads
from the page cache contend inside one process), two *processes* hashed at
~2,100 MB/s. So large inputs are split over forked children, and small inputs
stay in this process, where forking would cost more than it saves.

The children are plain forks that write their results to a pipe, not a pool:
a pool runs a manager thread in the parent, and the parent must stay free to
fork again (a bounded template render) while the children hash. Audit starts
the hashing, re-renders METHOD.md meanwhile, then hashes alongside the
children until the queue is empty and collects the digests.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import signal
import stat
from collections.abc import Iterator

from freezer.runtime import work

# Below this much work forking costs more than the second core saves.
PARALLEL_FROM_BYTES = 64 << 20
PARALLEL_FROM_FILES = 2_000
MAX_BATCHES = 1_000
CHUNK = 1 << 20


def digest_file(path: str) -> str:
    """sha256 of one file, read in large chunks into one reused buffer."""
    digest = hashlib.sha256()
    # The walk saw a regular file; should it have been swapped for a FIFO or a link since, fail
    # (reported as unreadable) rather than block or follow it.
    flags = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        size = info.st_size
        if size < CHUNK:
            # One read (plus one to notice a file that grew) for the many small files.
            data = os.read(fd, size + 1)
            while data:
                digest.update(data)
                data = os.read(fd, CHUNK)
            return digest.hexdigest()
        buffer = bytearray(CHUNK)
        view = memoryview(buffer)
        with open(fd, "rb", buffering=0, closefd=False) as handle:
            while count := handle.readinto(buffer):
                digest.update(view[:count])
        return digest.hexdigest()
    finally:
        os.close(fd)


def _digest_batch(paths: list[str]) -> list[tuple[str | None, str | None]]:
    """(digest, None) or (None, why it could not be read) for each path of one batch."""
    results: list[tuple[str | None, str | None]] = []
    for path in paths:
        try:
            results.append((digest_file(path), None))
        except OSError as exc:
            results.append((None, exc.strerror or str(exc)))
    return results


def _child(paths: list[str], batches: int, queue: int, write_end: int) -> None:
    """In a forked child: hash the batches it takes from ``queue``, write the results as JSON, exit."""
    status = 1
    try:
        done = {index: _digest_batch(_batch(paths, batches, index)) for index in _take(queue)}
        data = json.dumps(done).encode("utf-8")
        view = memoryview(data)
        while view:
            view = view[os.write(write_end, view) :]
        status = 0
    finally:
        os._exit(status)


def _batch(paths: list[str], batches: int, index: int) -> list[str]:
    return paths[index::batches]


def _take(queue: int) -> Iterator[int]:
    """Batch numbers from the shared queue until it is empty. Every number is written as 4
    bytes and read 4 at a time; a pipe hands each read to one reader, so no batch is taken twice."""
    while len(item := os.read(queue, 4)) == 4:
        yield int.from_bytes(item, "little")


class PendingHashes:
    """Hashing under way: forked children take batches of files from a queue (a pipe) as they
    free up, so a few large files cannot hold one of them up, and :meth:`result` lets this
    process take batches too once it has nothing else to do."""

    def __init__(self, paths: dict[str, str]) -> None:
        self._rels = list(paths)
        self._paths = [paths[rel] for rel in self._rels]
        # At most MAX_BATCHES numbers, so the whole queue fits in a pipe's buffer (4 KiB) at once.
        self._batches = min(len(self._paths), MAX_BATCHES)
        self._children: list[tuple[int, int]] = []  # pid, read end of its results
        self._queue, queue_in = os.pipe()
        os.write(queue_in, b"".join(index.to_bytes(4, "little") for index in range(self._batches)))
        os.close(queue_in)
        workers = work.cores()
        if workers < 2 or not self._worth_forking():
            return
        for _ in range(workers):
            read_end, write_end = os.pipe()
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child's coverage is not collected
                os.close(read_end)
                _child(self._paths, self._batches, self._queue, write_end)
            os.close(write_end)
            self._children.append((pid, read_end))

    def _worth_forking(self) -> bool:
        if len(self._paths) >= PARALLEL_FROM_FILES:
            return True
        # Few files: their sizes are cheap to learn and decide (a handful of huge files is worth it).
        total = 0
        for path in self._paths:
            try:
                total += os.lstat(path).st_size
            except OSError:
                continue  # reported when it is hashed
        return total >= PARALLEL_FROM_BYTES

    def cancel(self) -> None:
        """Stop the children and close the queue (the caller returned early, or everything is in)."""
        for pid, read_end in self._children:
            os.kill(pid, signal.SIGKILL)
            os.close(read_end)
            os.waitpid(pid, 0)
        self._children = []
        if self._queue >= 0:
            os.close(self._queue)
            self._queue = -1

    def result(self) -> tuple[dict[str, str], dict[str, str]]:
        """sha256 by relative path, and why each file that could not be read failed."""
        done = {index: _digest_batch(_batch(self._paths, self._batches, index)) for index in _take(self._queue)}
        for pid, read_end in self._children:
            with open(read_end, "rb", closefd=False) as pipe:
                raw = pipe.read()
            _, status = os.waitpid(pid, 0)
            os.close(read_end)
            try:
                found = json.loads(raw) if os.waitstatus_to_exitcode(status) == 0 else {}
            except ValueError:
                found = {}
            done.update((int(index), [(d, e) for d, e in outcome]) for index, outcome in found.items())
        self._children = []
        self.cancel()
        digests: dict[str, str] = {}
        unreadable: dict[str, str] = {}
        for index in range(self._batches):
            # A batch that a child took and never reported (it died) is hashed here.
            outcome = done.get(index) or _digest_batch(_batch(self._paths, self._batches, index))
            for rel, (digest, error) in zip(_batch(self._rels, self._batches, index), outcome, strict=True):
                if digest is not None:
                    digests[rel] = digest
                else:
                    unreadable[rel] = error or "unreadable"
        return digests, unreadable


def hash_files(paths: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """sha256 by relative path, and why each file that could not be read failed."""
    return PendingHashes(paths).result()
