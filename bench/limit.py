"""The least work that does a benchmark's job, for bench/run.py's "limit" column.

    python bench/limit.py validate PROCS FOLDER   # libyaml + the compiled validator, every *.yaml
    python bench/limit.py hash PROCS FOLDER       # hashlib SHA-256 of every file under FOLDER
    python bench/limit.py folders PROCS FOLDER    # tomllib of every task.toml + SHA-256 of every file

No error reporting, no locations, no rules, no output: what is left is the
parsing, validating or hashing that no implementation can skip. ``PROCS`` > 1
splits the files over that many forked processes (the ceiling for that many
cores); 1 is the single-core limit. Exits 1 if any file is invalid.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

if sys.version_info >= (3, 11):  # as freezer's own TOML reading (freezer/parse/tomlload.py)
    import tomllib

    toml_load = tomllib.load
else:  # pragma: no cover - freezer reads no TOML before 3.11 either
    toml_load = None


def validate(files: list[str]) -> int:
    import yaml

    from freezer.schema._compiled.fixture import validate as compiled

    bad = 0
    for name in files:
        with open(name, "rb") as handle:
            data = yaml.load(handle.read(), Loader=yaml.CSafeLoader)
        try:
            compiled(data)  # type: ignore[no-untyped-call]
        except Exception:  # noqa: BLE001 - any refusal counts as invalid
            bad += 1
    return bad


def sha256(files: list[str]) -> int:
    buffer = bytearray(1 << 20)
    view = memoryview(buffer)
    for name in files:
        digest = hashlib.sha256()
        with open(name, "rb", buffering=0) as handle:
            while size := handle.readinto(buffer):
                digest.update(view[:size])
        digest.hexdigest()
    return 0


def folders(files: list[str]) -> int:
    """What a folders suite cannot skip: read each task file's fields, hash every file."""
    assert toml_load is not None, "the folders limit needs Python 3.11+ (tomllib)"
    for name in files:
        if name.endswith("/task.toml"):
            with open(name, "rb") as handle:
                toml_load(handle)
    return sha256(files)


def split(work: list[str], procs: int, job: object) -> int:
    """Run ``job`` over ``procs`` interleaved shares of ``work`` in forked children; 1 if any failed."""
    assert callable(job)
    if procs <= 1:
        return 1 if job(work) else 0
    children = []
    for share in range(procs):
        pid = os.fork()
        if pid == 0:
            os._exit(1 if job(work[share::procs]) else 0)
        children.append(pid)
    return max(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in children)


if __name__ == "__main__":
    mode, procs, folder = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
    if mode == "validate":
        names = sorted(str(p) for p in folder.rglob("*.yaml") if p.name != "version.yaml")
        sys.exit(split(names, procs, validate))
    names = sorted(str(p) for p in folder.rglob("*") if p.is_file())
    sys.exit(split(names, procs, folders if mode == "folders" else sha256))
