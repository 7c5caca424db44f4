"""SIGKILL real cuts at random moments and count the debris (the bar is 0).

    python tests/hostile/kill_campaign.py [--kills 200] [--seed 1] [--races 20]

After each kill: the version directory is either absent or complete (its audit
passes), and the next cut is neither blocked by a stale lock nor left with
staging debris. Then ``--races`` rounds start four cuts of the same version at
once while the lock file is deleted under them ("a broken lock"): exactly one
must win, and nothing may be left behind. Prints a JSON summary.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from registry_helpers import make_registry  # noqa: E402

ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def freezer(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "freezer", *args], cwd=root, env=ENV, capture_output=True, text=True)


def clear(version: Path) -> None:
    for path in version.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    shutil.rmtree(version)


def kills(root: Path, count: int, rng: random.Random) -> dict[str, int]:
    target = root / "versions" / "graph_v1"
    start = time.monotonic()
    freezer(root, "cut", "v1", "--dry-run")
    typical = time.monotonic() - start
    if target.exists():
        clear(target)
    stats: dict[str, Any] = {
        "kills": 0,
        "complete_after_kill": 0,
        "absent_after_kill": 0,
        "debris": 0,
        "stale_lock_blocks": 0,
        "debris_kinds": {},
    }

    def debris(kind: str) -> None:
        stats["debris"] += 1
        stats["debris_kinds"][kind] = stats["debris_kinds"].get(kind, 0) + 1

    for _ in range(count):
        proc = subprocess.Popen(
            [sys.executable, "-m", "freezer", "cut", "v1"],
            cwd=root,
            env=ENV,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(0, typical * 1.3))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        stats["kills"] += 1
        versions = root / "versions"
        entries = [p.name for p in versions.iterdir()] if versions.exists() else []
        if entries not in ([], ["graph_v1"]):
            debris(f"versions holds {entries}")
        if target.exists():
            audited = freezer(root, "audit", "--no-code")
            if audited.returncode != 0:
                debris("incomplete version: " + audited.stdout.strip().splitlines()[-2][:160])
            stats["complete_after_kill"] += 1
            clear(target)
        else:
            stats["absent_after_kill"] += 1
        follow = freezer(root, "cut", "v1")
        if "holds the registry lock" in follow.stderr:
            stats["stale_lock_blocks"] += 1
        elif follow.returncode != 0:
            debris("next cut failed: " + follow.stderr.strip()[:160])
        staging = root / ".freezer" / "staging"
        if staging.exists() and any(staging.iterdir()):
            debris("staging left after the next cut")
        if target.exists():
            clear(target)
    return stats


def races(root: Path, rounds: int, rng: random.Random) -> dict[str, int]:
    stats = {"races": 0, "racers": 0, "rounds_with_exactly_one_winner": 0, "debris": 0}
    lock = root / ".freezer" / "lock"
    for _ in range(rounds):
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "freezer", "cut", "v1"],
                cwd=root,
                env=ENV,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(4)
        ]
        for _ in range(20):
            time.sleep(rng.uniform(0, 0.05))
            with contextlib.suppress(FileNotFoundError):
                lock.unlink()  # break the lock under the racers
        outputs = [p.communicate() for p in procs]
        winners = sum("✓ froze graph_v1" in out for out, _ in outputs)
        stats["races"] += 1
        stats["racers"] += len(procs)
        stats["rounds_with_exactly_one_winner"] += winners == 1
        if freezer(root, "audit", "--no-code").returncode != 0:
            stats["debris"] += 1
        staging = root / ".freezer" / "staging"
        if staging.exists() and any(staging.iterdir()):
            stats["debris"] += 1
        clear(root / "versions" / "graph_v1")
    return stats


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--races", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="freezer-kills-"))
    try:
        root = make_registry(work, work / "cache")
        summary = {"kills": kills(root, args.kills, rng), "races": races(root, args.races, rng)}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(summary, indent=2))
    bad = summary["kills"]["debris"] + summary["kills"]["stale_lock_blocks"] + summary["races"]["debris"]
    bad += summary["races"]["races"] - summary["races"]["rounds_with_exactly_one_winner"]
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
