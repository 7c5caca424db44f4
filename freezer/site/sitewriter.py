"""Writing the static site: every path checked before a byte is written, the whole site swapped in.

The site's file names come from data (task ids, version and suite names), mapped by
:func:`freezer.domain.taskid.safe_file_name`; this writer is the second wall behind that mapping.
It takes relative POSIX paths only, and refuses the whole site, before it writes anything,
when one of them is absolute, holds ``..``, ``.``, an empty part, a backslash or a control
character, or collides with another when case is ignored (macOS and Windows). The site is
built in a fresh staging folder beside the output folder: every folder on the way to a file
is one this writer made, each file is created new (never through a link), and its resolved
path is checked to stay under the staging root. The staging folder then takes the output
folder's place in one rename (an exchange on Linux), so a reader sees the old site or the new
one. A folder that holds anything but a site freezer built is refused, never emptied. When
the output folder lies inside the registry, the write takes the registry lock and goes
through the in-registry path guard, and may not land in a suite's drafts or versions.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import sys
import tempfile
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from freezer.domain.errors import FreezerError, UsageError
from freezer.domain.escape import visible
from freezer.domain.problems import display_path
from freezer.runtime.relpaths import relative_parts
from freezer.runtime.writing import output_place, write_new

MARKER = ".freezer-site"


class UnsafeSitePath(FreezerError):
    """A path of the site would leave its folder or clash with another; nothing was written."""


def site_path_parts(rel: str) -> tuple[str, ...]:
    """The parts of ``rel``, a relative POSIX path that stays inside its folder; else :class:`UnsafeSitePath`."""
    try:
        return relative_parts(rel)
    except ValueError as exc:
        raise UnsafeSitePath(f"the site path '{visible(str(rel))}' {exc}: it could leave the site's folder") from None


def _folded(rel: str) -> str:
    # How a case-insensitive, normalisation-insensitive disk (APFS, NTFS) compares names.
    return unicodedata.normalize("NFC", rel).casefold()


def check_site_paths(paths: Sequence[str]) -> None:
    """Refuse the whole set when any path is unsafe, or two name the same file on a case-insensitive disk,
    or one is a file where another needs a folder."""
    files: dict[str, str] = {}
    folders: dict[str, str] = {}
    for rel in paths:
        parts = site_path_parts(rel)
        folded = _folded(rel)
        if folded in files:
            raise UnsafeSitePath(f"the site paths '{visible(files[folded])}' and '{visible(rel)}' name the same file")
        files[folded] = rel
        for end in range(1, len(parts)):
            folders.setdefault(_folded("/".join(parts[:end])), rel)
    for folded, rel in files.items():
        if folded in folders:
            raise UnsafeSitePath(
                f"the site path '{visible(rel)}' is both a file and a folder of '{visible(folders[folded])}'"
            )


def _check_destination(out: Path) -> bool:
    """Whether ``out`` holds a site to replace; refuse a link, a file, or a folder freezer did not make."""
    try:
        info = os.lstat(out)
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(info.st_mode):
        raise UsageError(
            f"{display_path(out)} is not a folder but a symbolic link; freezer never writes through one",
            hint="name a new folder for the site, or remove the link",
        )
    if not stat.S_ISDIR(info.st_mode):
        raise UsageError(f"{display_path(out)} is not a folder", hint="name a new folder for the site")
    if not any(out.iterdir()):
        return True
    try:
        marker = os.lstat(out / MARKER)
    except FileNotFoundError:
        marker = None
    if marker is None or not stat.S_ISREG(marker.st_mode):
        raise UsageError(
            f"{display_path(out)} is not empty and holds no site built by freezer",
            hint="name a new or empty folder; freezer never empties one it did not make",
        )
    return True


def _write_new(root: Path, parts: tuple[str, ...], data: bytes) -> None:
    """Create ``root/parts`` as a new file, in folders made here, never through a link."""
    folder = root
    for part in parts[:-1]:
        folder = folder / part
        try:
            os.mkdir(folder, 0o777)
        except FileExistsError:
            if not stat.S_ISDIR(os.lstat(folder).st_mode):
                raise UnsafeSitePath(f"{display_path(folder)} is not a folder this build made") from None
    target = folder / parts[-1]
    real_root, real_folder = os.path.realpath(root), os.path.realpath(folder)
    if real_folder != real_root and not real_folder.startswith(real_root + os.sep):
        raise UnsafeSitePath(f"{display_path(target)} would be written outside the site")
    write_new(target, data)


def _exchange_function() -> Callable[[Path, Path], bool] | None:
    """renameat2(RENAME_EXCHANGE) on Linux: two folders trade places in one step."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        # ctypes.util costs ~35 ms at start-up (it brings subprocess and friends): only when a site is swapped in.
        import ctypes
        import ctypes.util  # (the same)

        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return None
    at_fdcwd, rename_exchange = -100, 2

    def exchange(a: Path, b: Path) -> bool:
        if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
            return True
        code = ctypes.get_errno()
        if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
            return False  # the file system cannot exchange: fall back to two renames
        raise OSError(code, os.strerror(code), str(b))

    return exchange


_EXCHANGE = _exchange_function()


def _swap_in(staging: Path, out: Path, replacing: bool) -> None:
    if not replacing:
        os.rename(staging, out)
        return
    if _EXCHANGE is not None and _EXCHANGE(staging, out):
        shutil.rmtree(staging)  # it now holds the old site
        return
    retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
    os.replace(out, retired / "site")
    os.replace(staging, out)
    shutil.rmtree(retired)


def write_site(
    out: Path, files: Mapping[str, bytes], *, registry_root: Path | None = None, protected: Sequence[Path] = ()
) -> None:
    """Write ``files`` (relative POSIX path to bytes) as the folder ``out``, as a whole or not at all."""
    check_site_paths(list(files))
    with output_place(out, registry_root, protected, "the site", folder=True):
        replacing = _check_destination(out)
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
        except OSError as exc:
            raise FreezerError(f"cannot create the site beside {display_path(out)}: {exc.strerror}") from None
        try:
            # mkdtemp makes its folder private; the site gets the mode any new folder would.
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(staging, 0o777 & ~umask)
            for rel, data in sorted(files.items()):
                _write_new(staging, site_path_parts(rel), data)
            _swap_in(staging, out, replacing)
        except OSError as exc:
            raise FreezerError(
                f"cannot write the site to {display_path(out)}: {exc.strerror or exc}",
                hint="nothing was changed; free space or fix the permissions, then run again",
            ) from None
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)
