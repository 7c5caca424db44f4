"""Relative paths that come from data: a manifest's file list, the pages of the site.

Such a path may only name a file inside its folder: relative, POSIX, each part a real name.
An absolute path, a ``..`` or ``.`` part, an empty part (``a//b``), a backslash (a separator
on Windows) or a control character is refused, whatever the file system would make of it.
"""

from __future__ import annotations

from freezer.domain.escape import visible


def relative_parts(rel: str) -> tuple[str, ...]:
    """The parts of ``rel``; :class:`ValueError` saying why it could name a file outside its folder."""
    if not isinstance(rel, str) or not rel:
        raise ValueError("is empty")
    if visible(rel) != rel or "\\" in rel:
        raise ValueError("holds a control character or a backslash")
    if rel.startswith("/"):
        raise ValueError("is absolute")
    parts = tuple(rel.split("/"))
    if any(part in ("", ".", "..") for part in parts):
        raise ValueError("has an empty, '.' or '..' part")
    return parts
