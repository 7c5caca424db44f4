"""A frozen file's own page, and the text of a fixture's files as its page shows them.

Each file a version's manifest lists gets a page (``<version>/files/<path>.html``) with its text in a
``<pre>`` (autoescaped, so a frozen ``.html`` or ``.svg`` is read, never run), or, for a binary or
very large file, its size and sha256 and a pointer to the version's archive. A page, never the raw
file, so the site stays script-free whatever a fixture set holds.

A folder task (``tasks/ID/``) often has no title field: its title is its instruction's first
heading, the way a reader of the folder would name it.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import TypedDict

from freezer.runtime.limits import MAX_DOCUMENT_BYTES
from freezer.runtime.reading import ReadRefused, read_bounded

# Text shown inline on a fixture's page; longer files are one click away on their own page.
INLINE_BYTES = 64 << 10
# The instruction files a folder task's title is read from, in the order they are tried.
_INSTRUCTIONS = ("instruction.md", "README.md", "task.md")


class FileContext(TypedDict):
    """Everything file.html.j2 shows of one frozen file (its variables)."""

    rel: str
    version: str
    sha256: str
    size: int | None
    text: str | None  # None: binary, too large, or not a plain file


def text_of(path: Path, limit: int = MAX_DOCUMENT_BYTES) -> str | None:
    """The text of a plain file of at most ``limit`` bytes, or None (binary, larger, unreadable, a link)."""
    try:
        data = read_bounded(path, limit)
    except ReadRefused:
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def file_context(folder: Path, version: str, rel: str, sha256: str, size: int | None) -> FileContext:
    return {"rel": rel, "version": version, "sha256": sha256, "size": size, "text": text_of(folder / rel)}


def folder_title(folder: Path, task_files: list[str]) -> str:
    """A folder task's title: the first heading (else first line) of its instruction, clipped; "" if none."""
    for name in _INSTRUCTIONS:
        for rel in task_files:
            if PurePosixPath(rel).name != name:
                continue
            text = text_of(folder / rel, INLINE_BYTES) or ""
            lines = [line.strip() for line in text.splitlines() if line.strip()]
            headings = [line.lstrip("#").strip() for line in lines if line.startswith("#")]
            line = next(iter(headings or lines), "")
            if line:
                return line if len(line) <= 140 else line[:139] + "…"
    return ""
