"""Which program freezer runs (git, ssh-keygen): an absolute path, found on the absolute entries of ``PATH``.

An empty or relative ``PATH`` entry names the current folder, which may be a checkout of a pull
request: a ``git`` or ``ssh-keygen`` committed there must never be the one freezer runs, so such
entries are dropped, for the search and for the ``PATH`` a started program sees.
"""

from __future__ import annotations

import functools
import os


def trusted_path(value: str | None = None) -> str:
    """``PATH`` (or ``value``) without empty or relative entries: those name the current folder."""
    entries = (os.environ.get("PATH", os.defpath) if value is None else value).split(os.pathsep)
    return os.pathsep.join(entry for entry in entries if os.path.isabs(entry))


def find_program(name: str) -> str | None:
    """The absolute path of the program ``name`` on the trusted ``PATH``, resolved once per ``PATH``."""
    return _which(name, trusted_path())


@functools.cache
def _which(name: str, search: str) -> str | None:
    # shutil.which's POSIX search, for a bare program name: shutil (with the zlib, bz2 and lzma it
    # loads) would be 5% of a pre-commit hook's start-up, for this loop.
    for entry in search.split(os.pathsep) if search else ():
        candidate = os.path.join(entry, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    return None
