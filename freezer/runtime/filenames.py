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

from freezer.domain.taskid import page_stem


def safe_file_name(name: str) -> str:
    """One safe path component for ``name``: itself when plain, else slug + ``~`` + hash.

    The mapping is :func:`freezer.domain.taskid.page_stem`, kept there beside the task-id rule so a
    task id and every other name become file names by one rule."""
    return page_stem(name)
