"""Copying the files of a frozen version out again, each one checked against the manifest as it is read.

``freezer next`` refills empty drafts from the latest version. That version
arrived in pull requests like everything else in the registry, so a file of
it may be a link (to a secret, to ``/dev/zero``), a FIFO that would block the
copy, a sparse giant, or bytes that no longer hash to what the manifest says.
Each is refused with a message naming the file; a file is copied only from a
regular file reached without a link, in bounded chunks, and its sha256 must
equal the manifest's once the last chunk is read.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path, PurePosixPath
from typing import Any

from freezer.domain.errors import IntegrityError
from freezer.domain.escape import visible
from freezer.domain.problems import display_path
from freezer.runtime.paths import unsafe_reason
from freezer.runtime.writing import write_all
from freezer.schema import schemas

CHUNK = 1 << 20
AUDIT = "run freezer audit on that version; next copies only a version whose files match its manifest"


def _refused(path: Path, why: str) -> IntegrityError:
    return IntegrityError(f"{display_path(path)}: {why}; nothing was copied into the drafts", hint=AUDIT)


def manifest_files(manifest: dict[str, Any], display: str) -> dict[str, str]:
    """The manifest's ``files`` (path -> sha256), once the manifest meets its schema and every path
    is a plain relative one (no ``..``, no empty or ``.`` part, no control character)."""
    if schemas.schema_errors(schemas.MANIFEST, manifest):
        raise IntegrityError(f"{display}: the manifest does not meet its schema; nothing was copied", hint=AUDIT)
    files: dict[str, str] = manifest["files"]
    for rel in files:
        parts = rel.split("/")
        if (
            PurePosixPath(rel).is_absolute()
            or any(part in ("", ".", "..") for part in parts)
            or visible(rel) != rel
            or "\\" in rel
        ):
            raise IntegrityError(
                f"{display}: the manifest lists {visible(rel)!r}, which is not a path inside the version; "
                "nothing was copied",
                hint=AUDIT,
            )
    return files


def copy_verified(root: Path, source: Path, target: Path, sha256: str, limit: int) -> None:
    """Copy ``source`` (a frozen file under the registry ``root``) to ``target``, a new file."""
    why = unsafe_reason(root, source.parent)
    if why is not None:
        raise _refused(source, f"its folder {why}")
    try:
        info = os.lstat(source)
    except FileNotFoundError:
        raise _refused(source, "listed in the manifest, but missing") from None
    except OSError as exc:
        raise _refused(source, f"cannot be inspected ({exc.strerror})") from None
    if stat.S_ISLNK(info.st_mode):
        raise _refused(source, "is a symbolic link; a frozen file is a regular file, and next never follows a link")
    if not stat.S_ISREG(info.st_mode):
        raise _refused(source, "is not a regular file (a FIFO, socket, device or folder)")
    if info.st_size > limit:
        raise _refused(source, f"is {info.st_size:,} bytes, over the suite's max_file_bytes ({limit:,})")
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        src = os.open(source, flags)
    except PermissionError:
        raise _refused(source, "cannot be read: permission denied") from None
    except OSError as exc:
        raise _refused(source, f"cannot be opened ({exc.strerror})") from None
    digest = hashlib.sha256()
    try:
        if not stat.S_ISREG(os.fstat(src).st_mode):  # replaced between the look and the open
            raise _refused(source, "is not a regular file (a FIFO, socket, device or folder)")
        dst = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o666)
        try:
            copied = 0
            while chunk := os.read(src, CHUNK):
                copied += len(chunk)
                if copied > limit:
                    raise _refused(source, f"grew past the suite's max_file_bytes ({limit:,}) while it was read")
                digest.update(chunk)
                write_all(dst, chunk)
        finally:
            os.close(dst)
    except OSError as exc:
        raise _refused(source, f"cannot be copied ({exc.strerror or exc})") from None
    finally:
        os.close(src)
    if digest.hexdigest() != sha256:
        raise _refused(
            source,
            f"its sha256 is {digest.hexdigest()[:16]}…, but the manifest says {sha256[:16]}…: "
            "the frozen file was changed after the cut",
        )
