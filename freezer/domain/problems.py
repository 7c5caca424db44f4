"""Collected findings about input files, in one printable shape.

A :class:`Problem` is data, not an exception: validation gathers all of them so
the user can fix every mistake in one pass. The text form is
``file:line:col: $.json.path: message``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from freezer.domain.escape import visible

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # fullmatch only: "$" lets "a\n" by

JsonPath = tuple[str | int, ...]


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


def format_json_path(path: JsonPath) -> str:
    """Render a path tuple as ``$.a.b[0]``; odd keys are quoted as ``$['a b']``."""
    out = ["$"]
    for part in path:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif _IDENTIFIER.fullmatch(part):
            out.append(f".{part}")
        else:
            escaped = part.replace("\\", "\\\\").replace("'", "\\'")
            out.append(f"['{escaped}']")
    return "".join(out)


@dataclass(frozen=True, order=True)
class Problem:
    """One finding: where it is and what is wrong."""

    file: str
    line: int | None = None
    col: int | None = None
    path: JsonPath = field(default=())
    message: str = ""
    layer: str = "rule"

    def location(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
            if self.col is not None:
                where += f":{self.col}"
        return where

    def path_text(self) -> str:
        return format_json_path(self.path)

    def __str__(self) -> str:
        return f"{self.location()}: {format_json_path(self.path)}: {self.message}"

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "col": self.col,
            "json_path": format_json_path(self.path),
            "layer": self.layer,
            "message": self.message,
        }
