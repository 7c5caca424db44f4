"""Collected findings about input files, in one printable shape.

A :class:`Problem` is data, not an exception: validation gathers all of them so
the user can fix every mistake in one pass. The text form is
``file:line:col: $.json.path: message``.
"""

from __future__ import annotations

import os

from freezer.domain.escape import visible
from freezer.domain.findings import Finding, format_json_path
from freezer.domain.jsontypes import JsonObject


def display_path(path: os.PathLike[str] | str) -> str:
    """A path as the user should see it: relative to the working folder when inside it.

    Control characters and undecodable bytes are escaped, so a file name can
    neither break a message line nor forge an annotation.
    """
    text = os.fspath(path)
    if not os.path.isabs(text):
        # Already relative to the working folder: relpath(abspath(p)) is normpath(p) unless p climbs out.
        relative = os.path.normpath(text)
        if relative != ".." and not relative.startswith("../"):
            return visible(relative)
    absolute = os.path.abspath(text)
    relative = os.path.relpath(absolute)
    shown = absolute if relative.startswith("..") else relative
    return visible(shown)


class Problem(Finding):
    """One finding about an input file: where it is, what is wrong, and which check (``layer``) found it.

    Constructed as before, ``Problem(file, line, col, path, message, layer)``; printed as
    ``file:line:col: $.json.path: message`` (:class:`~freezer.domain.findings.Finding`'s form)."""

    __slots__ = ()

    def to_json(self) -> JsonObject:
        return {
            "file": self.file,
            "line": self.line,
            "col": self.col,
            "json_path": format_json_path(self.path),
            "layer": self.layer,
            "message": self.message,
        }
