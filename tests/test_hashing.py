"""freezer.runtime.hashing: the same digests as hashlib, here or in forked children, and read errors reported."""

from __future__ import annotations

import hashlib
import os
import random
from pathlib import Path

import pytest

from freezer.runtime import hashing, work


def _files(folder: Path, count: int, seed: int = 7) -> dict[str, str]:
    rng = random.Random(seed)
    folder.mkdir()
    paths = {}
    for index in range(count):
        # Sizes straddle the one-read / chunked boundary, including empty files.
        size = rng.choice([0, 1, 4095, hashing.CHUNK - 1, hashing.CHUNK, hashing.CHUNK + 1, 3 * hashing.CHUNK + 17])
        path = folder / f"f{index:05d}.bin"
        path.write_bytes(rng.randbytes(size))
        paths[f"data/{path.name}"] = str(path)
    return paths


def _expected(paths: dict[str, str]) -> dict[str, str]:
    return {rel: hashlib.sha256(Path(path).read_bytes()).hexdigest() for rel, path in paths.items()}


@pytest.mark.parametrize("in_pool", [False, True])
def test_digests_match_hashlib(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_pool: bool) -> None:
    if in_pool and work.cores() < 2:
        pytest.skip("needs two cores and fork")
    paths = _files(tmp_path / "data", 60)
    if in_pool:
        # Threshold lowered so the children run on a small input.
        monkeypatch.setattr(hashing, "PARALLEL_FROM_FILES", 50)
    else:
        monkeypatch.setattr(hashing, "PARALLEL_FROM_FILES", 10**9)
        monkeypatch.setattr(hashing, "PARALLEL_FROM_BYTES", 1 << 62)
    digests, unreadable = hashing.hash_files(paths)
    assert unreadable == {}
    assert digests == _expected(paths)


@pytest.mark.skipif(work.cores() < 2, reason="needs two cores and fork")
def test_few_large_files_fork_by_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = _files(tmp_path / "data", 4)
    monkeypatch.setattr(hashing, "PARALLEL_FROM_BYTES", 1)
    pending = hashing.PendingHashes(paths)
    assert len(pending._children) == 2
    assert pending.result()[0] == _expected(paths)
    monkeypatch.setattr(hashing, "PARALLEL_FROM_BYTES", 1 << 40)
    assert hashing.PendingHashes(paths)._children == []


@pytest.mark.parametrize("count", [1, 7, 1_000, 1_001, 2_345])
def test_every_file_is_in_exactly_one_batch(tmp_path: Path, count: int) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    paths = {}
    for index in range(count):
        (folder / f"{index}").write_bytes(index.to_bytes(4, "little"))
        paths[f"{index}"] = str(folder / f"{index}")
    pending = hashing.PendingHashes(paths)
    batches = [hashing._batch(list(paths), pending._batches, i) for i in range(pending._batches)]
    assert sorted(rel for batch in batches for rel in batch) == sorted(paths)
    assert pending._batches <= hashing.MAX_BATCHES
    digests, unreadable = pending.result()
    assert unreadable == {} and digests == _expected(paths)


@pytest.mark.skipif(work.cores() < 2, reason="needs two cores and fork")
def test_a_child_that_dies_has_its_share_hashed_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = _files(tmp_path / "data", 10)
    monkeypatch.setattr(hashing, "PARALLEL_FROM_FILES", 2)
    # The fork inherits this: each child takes one batch from the queue, then dies without reporting it.
    monkeypatch.setattr(hashing, "_child", lambda _paths, _batches, queue, _fd: (os.read(queue, 4), os._exit(3)))
    pending = hashing.PendingHashes(paths)
    assert pending._children
    digests, unreadable = pending.result()
    assert unreadable == {}
    assert digests == _expected(paths)


@pytest.mark.parametrize("in_pool", [False, True])
def test_unreadable_files_are_reported_not_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_pool: bool
) -> None:
    if in_pool and work.cores() < 2:
        pytest.skip("needs two cores and fork")
    paths = _files(tmp_path / "data", 6)
    paths["gone.bin"] = str(tmp_path / "gone.bin")  # vanished between the listing and the hashing
    (tmp_path / "folder").mkdir()
    paths["folder"] = str(tmp_path / "folder")  # became a directory
    if in_pool:
        monkeypatch.setattr(hashing, "PARALLEL_FROM_FILES", 1)
    digests, unreadable = hashing.hash_files(paths)
    assert set(unreadable) == {"gone.bin", "folder"}
    assert "No such file" in unreadable["gone.bin"]
    assert unreadable["folder"] == "not a regular file"
    assert digests == _expected({rel: path for rel, path in paths.items() if rel not in unreadable})


def test_no_fork_while_another_thread_runs() -> None:
    import threading

    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert work.cores() == 1
    finally:
        release.set()
        other.join()


def _workers_seen_by_a_worker() -> int:
    return work.cores()


@pytest.mark.skipif(work.cores() < 2, reason="needs two cores and fork")
def test_a_worker_does_not_start_its_own_pool() -> None:
    assert work.cores(1) == 1 and work.cores(2) == 2
    with work.fork_pool(1) as pool:
        assert pool.submit(_workers_seen_by_a_worker).result() == 1


def test_a_file_swapped_for_a_fifo_or_a_link_is_unreadable_not_a_hang(tmp_path: Path) -> None:
    fifo, link, target = tmp_path / "fifo", tmp_path / "link", tmp_path / "target"
    os.mkfifo(fifo)  # nobody ever writes to it: opening it for reading must not wait for a writer
    target.write_bytes(b"elsewhere")
    link.symlink_to(target)
    digests, unreadable = hashing.hash_files({"fifo": str(fifo), "link": str(link)})
    assert digests == {}
    assert unreadable["fifo"] == "not a regular file"
    assert "symbolic links" in unreadable["link"] or "loop" in unreadable["link"].lower()
