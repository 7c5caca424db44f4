"""sha256 of many files, on every core.

Measured on the 2-core benchmark machine (10,000 files, 1 GB, page cache warm):
one process hashes at ~1,100 MB/s; two *threads* were slower than one (reads
from the page cache contend inside one process), two *processes* hashed at
~2,100 MB/s. So large inputs are handed to forked processes in small batches;
small inputs stay in this process, where a pool would cost more than it saves.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat

from freezer import parallel

# Below this much work a pool's start-up (~30 ms) costs more than the second core saves.
PARALLEL_FROM_BYTES = 64 << 20
PARALLEL_FROM_FILES = 2_000
BATCH_FILES = 64
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


def _parallel_worth_it(paths: dict[str, str]) -> bool:
    if len(paths) >= PARALLEL_FROM_FILES:
        return True
    # Few files: their sizes are cheap to learn and decide (a handful of huge files is worth a pool).
    total = 0
    for path in paths.values():
        try:
            total += os.stat(path).st_size
        except OSError:
            continue  # reported when it is hashed
    return total >= PARALLEL_FROM_BYTES


def hash_files(paths: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """sha256 by relative path, and why each file that could not be read failed."""
    workers = parallel.workers()
    rels = list(paths)
    if workers < 2 or not _parallel_worth_it(paths):
        groups = [rels]
        outcomes = [_digest_batch([paths[rel] for rel in rels])]
    else:
        # Small batches handed out as workers free up: sizes are not known in advance (no stat
        # per file), and a large file in one batch cannot hold the other workers up.
        size = max(1, min(BATCH_FILES, len(rels) // (workers * 4)))
        groups = [rels[start : start + size] for start in range(0, len(rels), size)]
        with parallel.fork_pool(workers) as pool:
            outcomes = list(pool.map(_digest_batch, [[paths[rel] for rel in group] for group in groups]))
    digests: dict[str, str] = {}
    unreadable: dict[str, str] = {}
    for group, outcome in zip(groups, outcomes, strict=True):
        for rel, (digest, error) in zip(group, outcome, strict=True):
            if digest is not None:
                digests[rel] = digest
            else:
                unreadable[rel] = error or "unreadable"
    return digests, unreadable
