"""Hostile input for init and next (issue 23, class 6): what a registry clone can hold to make them write or read
outside it, hang, or leave half-built drafts. Each case is data: a name, what to build, and what the
one clear message must say. ``tests/test_init_next_hostile.py`` runs them against real folders and links.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hostile.corpus import bind_socket

# The frozen file each next case spoils: the last in copy order, so every other file is copied first.
LAST_ASSET = "zz-assets/payload.bin"
FIRST_FIXTURE = "fixtures/impact-default-timeout-users.yaml"


@dataclass(frozen=True)
class InitLink:
    """A link inside the folder ``freezer init`` fills: ``link`` -> an outside folder (or file)."""

    id: str
    link: str
    to_file: bool = False  # the link stands where init writes a file (or a dangling one, if missing)


INIT_LINKS = [
    InitLink("freezer-dir", ".freezer"),
    InitLink("freezer-schemas", ".freezer/schemas"),
    InitLink("drafts", "drafts"),
    InitLink("drafts-suite", "drafts/bench"),
    InitLink("drafts-fixtures", "drafts/bench/fixtures"),
    InitLink("github", ".github"),
    InitLink("github-workflows", ".github/workflows"),
    InitLink("config-file", "freezer.yaml", to_file=True),
    InitLink("pre-commit-file", ".pre-commit-config.yaml", to_file=True),
    InitLink("workflow-file", ".github/workflows/freezer.yml", to_file=True),
    InitLink("gitignore-file", ".freezer/.gitignore", to_file=True),
]

# Suite names init must refuse: a trailing newline (which `$` lets through), controls, paths.
BAD_SUITES = ["bench\n", "bench\r", "bench\x1b[31m", "bench\t", "../x", "a/b", "..", "Bench", "", "b" * 61, "bénch"]


def _replace(rel: str, make: Callable[[Path, Path], None]) -> Callable[[Path, Path], None]:
    """Replace frozen file ``rel`` of graph_v1 (read-only, so unlinked first) by what ``make`` builds."""

    def build(version: Path, outside: Path) -> None:
        path = version / rel
        original = path.read_bytes()
        path.unlink()
        (outside / "copy-of-frozen-file").write_bytes(original)
        make(path, outside)

    return build


def _link_to(target: str) -> Callable[[Path, Path], None]:
    def make(path: Path, outside: Path) -> None:
        path.symlink_to(outside / "copy-of-frozen-file" if target == "outside" else target)

    return make


def _fifo(path: Path, _outside: Path) -> None:
    os.mkfifo(path)


def _socket(path: Path, _outside: Path) -> None:
    bind_socket(path)


def _device(path: Path, _outside: Path) -> None:
    os.mknod(path, stat.S_IFCHR | 0o644, os.makedev(1, 3))  # what /dev/null is


def _folder(path: Path, outside: Path) -> None:
    path.mkdir()


def _tampered(path: Path, outside: Path) -> None:
    data = bytearray((outside / "copy-of-frozen-file").read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def _sparse(path: Path, _outside: Path) -> None:
    with open(path, "wb") as handle:
        handle.truncate(3 << 20)  # over the case's max_file_bytes of 1 MiB


def _folder_link(version: Path, outside: Path) -> None:
    """The frozen fixtures folder becomes a link to an outside copy with identical bytes."""
    copy = outside / "fixtures"
    copy.mkdir()
    for path in sorted((version / "fixtures").iterdir()):
        (copy / path.name).write_bytes(path.read_bytes())
        path.unlink()
    (version / "fixtures").rmdir()
    (version / "fixtures").symlink_to(copy)


@dataclass(frozen=True)
class FrozenSpoil:
    """A frozen file of graph_v1 spoiled before ``freezer next`` refills empty drafts from it."""

    id: str
    names: str  # the frozen path the message must name, relative to the version
    says: str  # what the message must say
    build: Callable[[Path, Path], None]  # (the version folder, an outside folder)
    needs_mknod: bool = False


FROZEN_SPOILS = [
    FrozenSpoil("link-outside-same-bytes", LAST_ASSET, "is a symbolic link", _replace(LAST_ASSET, _link_to("outside"))),
    FrozenSpoil("link-dev-zero", LAST_ASSET, "is a symbolic link", _replace(LAST_ASSET, _link_to("/dev/zero"))),
    FrozenSpoil(
        "link-etc-passwd", FIRST_FIXTURE, "is a symbolic link", _replace(FIRST_FIXTURE, _link_to("/etc/passwd"))
    ),
    FrozenSpoil("link-dangling", LAST_ASSET, "is a symbolic link", _replace(LAST_ASSET, _link_to("/nonexistent/x"))),
    FrozenSpoil("tampered-asset", LAST_ASSET, "but the manifest says", _replace(LAST_ASSET, _tampered)),
    FrozenSpoil("tampered-fixture", FIRST_FIXTURE, "but the manifest says", _replace(FIRST_FIXTURE, _tampered)),
    FrozenSpoil("tampered-version", "version.yaml", "but the manifest says", _replace("version.yaml", _tampered)),
    FrozenSpoil("fifo", LAST_ASSET, "is not a regular file", _replace(LAST_ASSET, _fifo)),
    FrozenSpoil("socket", LAST_ASSET, "is not a regular file", _replace(LAST_ASSET, _socket)),
    FrozenSpoil("char-device", LAST_ASSET, "is not a regular file", _replace(LAST_ASSET, _device), needs_mknod=True),
    FrozenSpoil("folder", LAST_ASSET, "is not a regular file", _replace(LAST_ASSET, _folder)),
    FrozenSpoil("sparse-giant", LAST_ASSET, "over the suite's max_file_bytes", _replace(LAST_ASSET, _sparse)),
    FrozenSpoil("missing", LAST_ASSET, "listed in the manifest, but missing", _replace(LAST_ASSET, lambda p, o: None)),
    FrozenSpoil("fixtures-folder-link", FIRST_FIXTURE, "passes through a symbolic link", _folder_link),
]
