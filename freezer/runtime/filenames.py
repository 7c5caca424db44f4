"""The one place where data becomes a file name.

Task ids, version names and suite names come from files a pull request can
write, so none of them may choose where freezer writes: ``../../index`` or
``a/b`` must never become a path. :func:`safe_file_name` maps any string to
one path component that is safe on every file system freezer's output is
read on (Linux, macOS's case-insensitive APFS, Windows checkouts), and that is
collision-free: two different names never map to the same file name.

A name that is already plain (lower-case letters, digits, ``.``, ``_``, ``-``,
not starting with a dot, not a Windows device name, at most 100 characters) is
its own file name, so ordinary task ids keep readable pages. Every other name
becomes a readable slug, ``~`` and 16 hex digits of the SHA-256 of the name.
``~`` never appears in a plain name, so a plain name can never be chosen to
equal another name's mapped form; two mapped forms collide only if SHA-256
does on 64 bits.
"""

from __future__ import annotations

import hashlib
import re

_PLAIN = re.compile(r"[a-z0-9_][a-z0-9._-]{0,99}")
_SLUG_UNSAFE = re.compile(r"[^a-z0-9._-]+")
# Names Windows reserves in every folder, whatever the extension.
_DEVICES = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))})
_SLUG_LENGTH = 60


def _plain(name: str) -> bool:
    return (
        _PLAIN.fullmatch(name) is not None
        and name.split(".", 1)[0] not in _DEVICES
        and not name.endswith(".")
        and ".." not in name
    )


def safe_file_name(name: str) -> str:
    """One safe path component for ``name``: itself when plain, else slug + ``~`` + hash."""
    if _plain(name):
        return name
    slug = _SLUG_UNSAFE.sub("-", name.lower()).strip(".-")[:_SLUG_LENGTH].rstrip(".-") or "x"
    if slug.split(".", 1)[0] in _DEVICES:
        slug = "_" + slug
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{slug}~{digest}"
