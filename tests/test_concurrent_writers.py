"""Issue 23, class 5: parallel writers serialise on the registry lock, and rewrites keep the file's mode.

The parallel tests run the real CLI (``freezer.cli.main``) in separate processes forked together
from a server that imported everything first (tests/forkserver.py), so the commands overlap inside
their critical sections instead of in their interpreter start-ups.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import assert_clean_failure, run_forked, run_forked_together, run_inprocess
from registry_helpers import demo_signed_by_alice

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")


def race(root: Path, commands: list[list[str]]) -> list[tuple[int, str]]:
    """Run each command as its own process, all forked at the same moment; (exit code, output) each."""
    return [(ran.code, ran.text) for ran in run_forked_together(*commands, cwd=root)]


@pytest.fixture(scope="module")
def signed_demo(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> tuple[Path, Path]:
    return demo_signed_by_alice(tmp_path_factory.mktemp("concurrency"), demo_build)


@pytest.fixture
def reg(signed_demo: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.setenv("FREEZER_STATE_DIR", str(tmp_path / "state"))
    root = tmp_path / "demo"
    shutil.copytree(signed_demo[0], root, symlinks=True)
    return root, signed_demo[1]


def test_parallel_yanks_and_deprecations_all_land_on_one_chain(reg: tuple[Path, Path]) -> None:
    from freezer.trust import lifecycle

    root, key = reg
    k = ["--key", str(key)]
    commands = [
        ["yank", "graph_v1", "--reason", "one", *k],
        ["yank", "graph_v2", "--reason", "two", *k],
        ["yank", "api_v1", "--reason", "three", *k],
        ["deprecate", "graph_v1", "--superseded-by", "graph_v2", "--reason", "four", *k],
        ["yank", "graph_v2", "--reason", "five", *k],
        ["deprecate", "graph_v1", "--superseded-by", "graph_v2", "--reason", "six", *k],
    ]
    results = race(root, commands)
    assert [code for code, _ in results] == [0] * len(commands), results
    view = lifecycle.status_log(root)
    assert not view.problems, view.problems
    assert sorted(str(e.change.reason) for e in view.events) == sorted(["one", "two", "three", "four", "five", "six"])
    assert view.of("graph_v1").status == view.of("graph_v2").status == view.of("api_v1").status == "yanked"
    assert run_inprocess("audit", "--no-code", cwd=root).code == 0
    # The chain is whole, so the next writer is not refused.
    assert run_inprocess("yank", "graph_v1", "--reason", "seven", "--key", str(key), cwd=root).code == 0
    assert stat.S_IMODE((root / "status.jsonl").stat().st_mode) == 0o644


def test_parallel_checkpoints_all_succeed_and_leave_one_that_verifies(reg: tuple[Path, Path]) -> None:
    root, key = reg
    (root / "checkpoint.json").write_text("{}")  # not a checkpoint yet: replaced, as a broken one is
    (root / "checkpoint.json").chmod(0o640)
    results = race(root, [["checkpoint", "--key", str(key)]] * 4)
    assert [code for code, _ in results] == [0] * 4, results
    assert stat.S_IMODE((root / "checkpoint.json").stat().st_mode) == 0o640
    assert run_inprocess("audit", "--no-code", cwd=root).code == 0
    assert not [p for p in root.iterdir() if p.name.startswith(".checkpoint.json.")]  # no temporary debris


def test_parallel_status_writers_and_checkpoints_together(reg: tuple[Path, Path]) -> None:
    from freezer.registry import config
    from freezer.trust import checkpoint, lifecycle

    root, key = reg
    k = ["--key", str(key)]
    commands = [["yank", "graph_v1", "--reason", str(n), *k] for n in range(3)] + [["checkpoint", *k]] * 2
    results = race(root, commands)
    assert [code for code, _ in results] == [0] * len(commands), results
    assert len(lifecycle.status_log(root).events) == 3 and not lifecycle.status_log(root).problems
    assert checkpoint.verify(config.load(root))[0] == []


def test_a_writer_waits_for_the_lock_then_proceeds(reg: tuple[Path, Path]) -> None:
    from freezer.runtime.lock import registry_lock

    root, key = reg
    with ThreadPoolExecutor(1) as waiter:  # it waits for the yank's process while this thread holds the lock
        with registry_lock(root):
            waiting = waiter.submit(run_forked, "yank", "graph_v1", "--reason", "waited", "--key", str(key), cwd=root)
            time.sleep(3)
            assert not waiting.done(), waiting.result()  # still waiting for the lock
            assert not (root / "status.jsonl").exists()
        yanked = waiting.result(timeout=60)
    assert yanked.code == 0, yanked.text


def test_a_writer_gives_up_after_the_timeout_with_a_clear_message(reg: tuple[Path, Path]) -> None:
    from freezer.runtime.lock import registry_lock

    root, key = reg
    (root / "checkpoint.json").write_bytes(b"unchanged")
    with registry_lock(root):
        started = time.monotonic()
        gave_up = run_forked(
            "yank", "graph_v1", "--reason", "x", "--key", str(key), cwd=root, env={"FREEZER_LOCK_SECONDS": "1"}
        )
        elapsed = time.monotonic() - started
        checkpointed = run_forked("checkpoint", "--key", str(key), cwd=root, env={"FREEZER_LOCK_SECONDS": "0.5"})
    assert_clean_failure(gave_up)
    assert "held the registry lock" in gave_up.err and "gave up waiting" in gave_up.err
    assert "FREEZER_LOCK_SECONDS" in gave_up.err
    assert elapsed >= 1
    assert_clean_failure(checkpointed)
    assert not (root / "status.jsonl").exists() and (root / "checkpoint.json").read_bytes() == b"unchanged"


@pytest.mark.parametrize("value", ["soon", "-1", "nan", "1e9"])
def test_a_bad_lock_timeout_is_a_usage_error(reg: tuple[Path, Path], value: str) -> None:
    root, key = reg
    refused = run_forked(
        "yank", "graph_v1", "--reason", "x", "--key", str(key), cwd=root, env={"FREEZER_LOCK_SECONDS": value}
    )
    assert_clean_failure(refused, code=2)
    assert "FREEZER_LOCK_SECONDS" in refused.err


def test_the_lock_without_wait_fails_at_once_as_the_cut_needs_and_is_reentrant(tmp_path: Path) -> None:
    from freezer.domain.errors import LockBusy
    from freezer.runtime.lock import registry_lock

    outcome: dict[str, tuple[str, float]] = {}

    def other(wait: float | None) -> None:
        started = time.monotonic()
        try:
            with registry_lock(tmp_path, wait=wait):
                outcome[str(wait)] = ("held", time.monotonic() - started)
        except LockBusy as exc:
            outcome[str(wait)] = (exc.message, time.monotonic() - started)

    with registry_lock(tmp_path):
        with registry_lock(tmp_path, wait=5):  # nested in the same thread: already held, no deadlock
            pass
        for wait in (None, 0.3):
            thread = threading.Thread(target=other, args=(wait,))
            thread.start()
            thread.join(timeout=30)
    message, seconds = outcome["None"]
    assert "holds the registry lock" in message and seconds < 0.25
    message, seconds = outcome["0.3"]
    assert "gave up waiting" in message and seconds >= 0.3
    other(0.1)
    assert outcome["0.1"][0] == "held"


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o600, 0o664])
def test_every_rewrite_keeps_the_mode_of_the_file(reg: tuple[Path, Path], mode: int) -> None:
    root, key = reg
    assert run_inprocess("yank", "graph_v1", "--reason", "x", "--key", str(key), cwd=root).code == 0
    assert run_inprocess("checkpoint", "--key", str(key), cwd=root).code == 0
    for name in ("status.jsonl", "checkpoint.json"):
        (root / name).chmod(mode)
    assert run_inprocess("yank", "graph_v2", "--reason", "y", "--key", str(key), cwd=root).code == 0
    assert run_inprocess("deprecate", "graph_v1", "--superseded-by", "graph_v2", "--key", str(key), cwd=root).code == 0
    assert run_inprocess("checkpoint", "--key", str(key), cwd=root).code == 0
    for name in ("status.jsonl", "checkpoint.json"):
        assert stat.S_IMODE((root / name).stat().st_mode) == mode, name


def test_new_files_get_0644_less_the_umask(reg: tuple[Path, Path]) -> None:
    root, key = reg
    previous = os.umask(0o027)
    try:
        assert run_inprocess("yank", "graph_v1", "--reason", "x", "--key", str(key), cwd=root).code == 0
        assert run_inprocess("checkpoint", "--key", str(key), cwd=root).code == 0
        assert run_inprocess("sign", "graph_v1", "--key", str(key), cwd=root).code == 0  # via replace_file too
    finally:
        os.umask(previous)
    for name in ("status.jsonl", "checkpoint.json", "signatures/graph_v1.dsse.json"):
        assert stat.S_IMODE((root / name).stat().st_mode) == 0o640, name


def test_write_atomically_refuses_what_is_not_a_regular_file(tmp_path: Path) -> None:
    from freezer.domain.errors import FreezerError
    from freezer.runtime.writing import replace_file, write_atomically

    outside = tmp_path / "outside"
    outside.write_text("precious")
    root = tmp_path / "root"
    root.mkdir()
    (root / "link").symlink_to(outside)
    os.mkfifo(root / "fifo")
    (root / "folder").mkdir()
    for name in ("link", "fifo", "folder"):
        with pytest.raises(FreezerError):
            write_atomically(root / name, b"new")
    with pytest.raises(FreezerError, match="symbolic link"):
        replace_file(root, root / "link", "new", "the file")
    assert outside.read_text() == "precious" and (root / "link").is_symlink()
    assert sorted(p.name for p in root.iterdir()) == ["fifo", "folder", "link"]  # no temporary left behind
    write_atomically(root / "bytes", b"\x00\xff")
    write_atomically(root / "text", "é")
    assert (root / "bytes").read_bytes() == b"\x00\xff" and (root / "text").read_bytes() == "é".encode()
    write_atomically(root / "private", b"x", mode=0o600)
    (root / "private").chmod(0o640)
    write_atomically(root / "private", b"y")
    assert stat.S_IMODE((root / "private").stat().st_mode) == 0o640


def test_parallel_commands_on_a_registry_without_a_work_folder(reg: tuple[Path, Path]) -> None:
    """Two commands making .freezer/ at once must not trip over each other's .gitignore."""
    root, key = reg
    shutil.rmtree(root / ".freezer")
    results = race(root, [["yank", f"graph_v{n}", "--reason", "x", "--key", str(key)] for n in (1, 2)])
    assert [code for code, _ in results] == [0, 0], results
    assert json.loads(run_inprocess("list", "--format", "json", cwd=root).out)["ok"]
