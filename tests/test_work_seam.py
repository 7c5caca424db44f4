"""The runtime's work modules (work, bounded, hashing): the only places the core forks, pools and threads."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from freezer.runtime import bounded, hashing, work


def _square(value: int) -> int:
    return value * value


def _pid(_: int) -> int:
    return os.getpid()


def _slow(_: int) -> int:
    while True:
        pass


def test_map_on_cores_keeps_the_order_and_reports_progress() -> None:
    seen: list[tuple[int, int]] = []
    items = list(range(40))
    assert work.map_on_cores(_square, items, workers=2, progress=lambda d, t: seen.append((d, t))) == [
        i * i for i in items
    ]
    assert seen == [(n, 40) for n in range(1, 41)]


def test_map_on_cores_forks_only_with_two_workers_or_more() -> None:
    assert set(work.map_on_cores(_pid, [1, 2, 3], workers=1)) == {os.getpid()}
    if work.cores() >= 2:
        assert os.getpid() not in work.map_on_cores(_pid, list(range(8)), workers=2)


def test_map_on_threads_keeps_the_order() -> None:
    assert work.map_on_threads(_square, [3, 1, 2]) == [9, 1, 4]
    assert work.map_on_threads(_square, []) == []


def test_run_bounded_stops_a_runaway_call() -> None:
    assert bounded.call_bounded(_square, 7, seconds=5, memory=256 << 20) == 49
    with pytest.raises(bounded.BoundExceeded):
        bounded.call_bounded(_slow, 1, seconds=0.3, memory=256 << 20)


def test_map_bounded_reports_a_stopped_item() -> None:
    results = bounded.map_bounded(_square, [1, 2], seconds=5, memory=256 << 20)
    assert results == [1, 4]
    [stopped] = bounded.map_bounded(_slow, [1], seconds=0.3, memory=256 << 20)
    assert isinstance(stopped, bounded.Stopped)


def test_hashing_in_the_background_agrees_with_hash_files(tmp_path: Path) -> None:
    (tmp_path / "a").write_bytes(b"alpha")
    paths = {"a": str(tmp_path / "a"), "gone": str(tmp_path / "gone")}
    digests, unreadable = hashing.hash_files(paths)
    assert digests == {"a": hashlib.sha256(b"alpha").hexdigest()} and set(unreadable) == {"gone"}
    assert hashing.PendingHashes(paths).result() == (digests, unreadable)
