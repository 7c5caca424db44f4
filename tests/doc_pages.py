"""The documentation the tests hold to its word: README.md and the reference pages under docs/.

The README keeps what a newcomer needs and links the rest, so a test that checks a snippet or a list
reads it from the page it lives on; a moved section fails here with the page and the heading, not as
a bare ValueError from ``str.index``.
"""

from __future__ import annotations

import re

from conftest import REPO

DOCS = REPO / "docs"


def pages() -> list[str]:
    """Every page of prose the project publishes, as paths relative to the repository."""
    return ["README.md", *(f"docs/{path.name}" for path in sorted(DOCS.glob("*.md")))]


def page(name: str) -> str:
    """The text of ``name`` ("README.md", "docs/signing.md")."""
    path = REPO / name
    assert path.is_file(), f"{name} does not exist (README.md links the pages under docs/)"
    return path.read_text(encoding="utf-8")


def section(name: str, heading: str) -> str:
    """The section of ``name`` under the heading line ``heading`` (with its #s), up to the next heading of
    the same level or higher, outside code blocks."""
    lines = page(name).split("\n")
    assert heading in lines, f"{name} has no heading {heading!r}"
    start = lines.index(heading)
    level = len(heading) - len(heading.lstrip("#"))
    fenced = False
    for at in range(start + 1, len(lines)):
        line = lines[at]
        if line.startswith("```"):
            fenced = not fenced
        found = re.match(r"^(#{1,6}) ", line)
        if not fenced and found and len(found.group(1)) <= level:
            return "\n".join(lines[start:at])
    return "\n".join(lines[start:])
