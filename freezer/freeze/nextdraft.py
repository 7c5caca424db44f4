"""``freezer next``: start the drafts of the next version from the latest frozen one.

version.yaml is edited where the YAML parser says its fields are
(:mod:`freezer.freeze.versionedit`), so the author's comments and layout survive:
the version is bumped, the tool-surface commits are emptied (they are the
commits since the previous build, so none carry over), and the pinned SHA
gets a TODO, since only the author knows which commit the new fixtures were
written against. A drafts folder that is missing or empty is first filled
with the frozen drafts (version.yaml, fixtures, assets), each file checked
against the manifest while it is copied (:mod:`freezer.registry.frozencopy`).

Everything is built under the registry lock in ``.freezer/staging/`` and
renamed into place only once all of it is built: a refused or failed next
leaves the drafts exactly as they were. ``versions/`` is only read.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import uuid
from dataclasses import dataclass
from pathlib import Path

from freezer.domain.errors import FreezerError, IntegrityError, InvalidInput, UsageError
from freezer.domain.manifest import EXECUTABLE
from freezer.domain.problems import display_path
from freezer.freeze.snapshot import FsOps, clear_stale_staging
from freezer.freeze.versionedit import TODO, next_version_text
from freezer.parse.yamlload import read_bytes
from freezer.registry import registry
from freezer.registry.config import SuiteConfig
from freezer.registry.frozencopy import copy_verified, manifest_files
from freezer.registry.model import Suite
from freezer.runtime.limits import MAX_DOCUMENT_BYTES
from freezer.runtime.lock import registry_lock, work_dir
from freezer.runtime.paths import require_safe
from freezer.runtime.writing import replace_file, write_new
from freezer.validate.drafts import RESERVED, VERSION_NAME

__all__ = ["TODO", "NextResult", "start_next"]


@dataclass
class NextResult:
    """``freezer next``'s outcome: the drafts started for the next version."""

    number: int
    drafts: Path
    copied: int  # files copied from the latest frozen version (0 when the drafts were kept)
    title_before: str | None = None
    title_after: str | None = None  # None: the title names no version number, so it was kept
    ok: bool = True  # drafts that cannot be started raise instead

    def to_json(self) -> dict[str, object]:
        return {
            "version": self.number,
            "drafts": display_path(self.drafts),
            "copied": self.copied,
            "title": {"before": self.title_before, "after": self.title_after},
        }


def _sync_tree(folder: Path) -> None:
    """Every byte under ``folder`` on disk before a rename makes it visible (one syncfs where there is one)."""
    fs = FsOps()
    if fs.syncfs(folder):
        return
    for here, _dirs, names in os.walk(folder):
        for name in names:
            fs.fsync_path(Path(here) / name)
        fs.fsync_path(Path(here))


def _read_version(path: Path, display: str) -> bytes:
    raw, problem = read_bytes(path, display, MAX_DOCUMENT_BYTES)
    if raw is None:
        assert problem is not None
        raise InvalidInput(f"{display}: cannot be read", [problem])
    return raw


def _copy_drafts(root: Path, suite: SuiteConfig, frozen: registry.FrozenVersion, staging: Path) -> int:
    """The frozen drafts of ``frozen`` copied into ``staging``, each file matching the manifest."""
    files = manifest_files(frozen.manifest(), display_path(frozen.path / registry.MANIFEST))
    names = sorted(rel for rel in files if rel not in RESERVED)
    if VERSION_NAME not in names:
        raise IntegrityError(
            f"{display_path(frozen.path / registry.MANIFEST)}: lists no {VERSION_NAME}; nothing was copied",
            hint="run freezer audit on that version",
        )
    executable = {rel for rel, mode in frozen.manifest_model().modes.items() if mode == EXECUTABLE}
    for rel in names:
        target = require_safe(root, staging / rel, "a staged draft file", folder=False)
        folder = require_safe(root, target.parent, "a staged drafts folder")
        folder.mkdir(parents=True, exist_ok=True)
        copy_verified(root, frozen.path / rel, target, files[rel], suite.max_file_bytes)
        if rel in executable:
            # git's 100755, as the manifest records it: a refilled tests/test.sh that lost its
            # execute bits would read as changed to git and freeze as 100644 in the next cut.
            mode = stat.S_IMODE(os.stat(target).st_mode)
            os.chmod(target, mode | (mode & 0o444) >> 2)
    return len(names)


def _missing_levels(root: Path, folder: Path) -> list[Path]:
    """The folders from ``root`` down to ``folder`` that do not exist yet, top first."""
    return [level for level in reversed([folder, *folder.parents]) if level.is_relative_to(root) and not level.exists()]


def _fill(
    root: Path, suite: SuiteConfig, latest: registry.FrozenVersion, upcoming: int, drafts: Path, staging: Path
) -> NextResult:
    staging.mkdir()
    copied = _copy_drafts(root, suite, latest, staging)
    version = staging / VERSION_NAME
    edited = next_version_text(
        _read_version(version, display_path(version)),
        display_path(latest.path / VERSION_NAME),
        latest.number,
        latest.name,
        upcoming,
    )
    os.unlink(version)
    write_new(version, edited.text)
    _sync_tree(staging)
    made: list[Path] = []
    try:
        for level in _missing_levels(root, drafts.parent):
            require_safe(root, level, "a folder of the drafts").mkdir()
            made.append(level)
        require_safe(root, drafts, "the drafts folder")
        os.rename(staging, drafts)  # onto a missing path or an empty folder, never onto a file or a link
    except OSError as exc:
        for level in reversed(made):
            level.rmdir()
        if exc.errno in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR):
            raise FreezerError(
                f"{display_path(drafts)} changed while freezer next ran; it was left as it is", hint="run it again"
            ) from None
        raise FreezerError(f"{display_path(drafts)}: cannot be written ({exc.strerror or exc}); nothing was") from None
    FsOps().fsync_path(drafts.parent)
    return NextResult(upcoming, drafts, copied, edited.title_before, edited.title_after)


def _bump(root: Path, latest: registry.FrozenVersion, upcoming: int, drafts: Path, staging: Path) -> NextResult:
    version_file = drafts / VERSION_NAME
    display = display_path(version_file)
    try:
        info = os.lstat(version_file)
    except FileNotFoundError:
        raise UsageError(f"{display} is missing; the drafts folder is not empty, so it is kept") from None
    if not stat.S_ISLNK(info.st_mode) and not stat.S_ISREG(info.st_mode):
        raise UsageError(f"{display}: is not a regular file (a FIFO, socket, device or folder)", hint="replace it")
    require_safe(root, version_file, "the drafts' version.yaml", folder=False)
    edited = next_version_text(_read_version(version_file, display), display, latest.number, latest.name, upcoming)
    replace_file(root, version_file, edited.text, "the drafts' version.yaml", mode=stat.S_IMODE(info.st_mode))
    return NextResult(upcoming, drafts, 0, edited.title_before, edited.title_after)


def _latest(suite: SuiteConfig, *, again: bool = False) -> tuple[registry.FrozenVersion, int]:
    """The latest frozen version, and the number the next one gets (``again``: list the folder anew)."""
    owner = Suite.of(suite)
    if again:
        owner.forget()
    latest = owner.latest()
    if latest is None:
        raise UsageError(f"suite {suite.name!r} has no frozen version yet; cut v1 first")
    return latest, owner.next_number()


def _has_entries(drafts: Path) -> bool:
    try:
        with os.scandir(drafts) as entries:
            return any(True for _ in entries)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise FreezerError(f"{display_path(drafts)}: cannot be read ({exc.strerror})") from None


def start_next(root: Path, suite: SuiteConfig) -> NextResult:
    """Start the next version's drafts; ``root`` is the registry's, where every write must stay."""
    _latest(suite)  # refused before anything is written, the lock's folder included
    require_safe(root, suite.drafts, "the drafts folder")
    with registry_lock(root):
        clear_stale_staging(root)
        latest, upcoming = _latest(suite, again=True)  # read again under the lock: a cut may have finished meanwhile
        drafts = require_safe(root, suite.drafts, "the drafts folder")
        staging_root = require_safe(root, work_dir(root) / "staging", "the staging folder")
        staging = staging_root / f"next-{suite.name}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        try:
            if _has_entries(drafts):
                return _bump(root, latest, upcoming, drafts, staging)
            return _fill(root, suite, latest, upcoming, drafts, staging)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
