"""Whether a METHOD.md names, in its §Delta, every dimension its delta.json records as moved or unknown.

This reads the rendered Markdown, whatever template rendered it, so it holds for every version,
including those cut before freezer owned §Delta: a template that says "Nothing moved" while
delta.json says the surface moved is caught here.
"""

from __future__ import annotations

import re

from freezer.domain.jsontypes import JsonValue

# An ATX heading (CommonMark: up to three spaces, 1-6 #, then a space or the end of the line).
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$")
# What the filters escape, undone, so a name reads as typed: a backslash before ASCII punctuation,
# and the three entities they write.
BACKSLASH_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_ENTITIES = (("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&"))


def recorded_dimensions(delta: JsonValue) -> list[str]:
    """The dimensions ``delta`` (a delta.json of any format) records as moved or unknown, in its order."""
    if not isinstance(delta, dict):
        return []
    moved, unknown = delta.get("moved"), delta.get("unknown")
    named: list[str] = [d for d in moved if isinstance(d, str)] if isinstance(moved, list) else []
    for entry in unknown if isinstance(unknown, list) else []:
        dimension = entry.get("dimension") if isinstance(entry, dict) else None
        if isinstance(dimension, str) and dimension not in named:
            named.append(dimension)
    return named


def delta_sections(method: str) -> list[str]:
    """The plain text of every section of ``method`` whose heading says Delta, sub-sections included."""
    sections: list[list[str]] = []
    level = 0  # the open Delta section's heading level; 0: none open
    for line in method.split("\n"):
        heading = _HEADING.match(line)
        if heading and level and len(heading.group(1)) <= level:
            level = 0
        if heading and not level and re.search(r"\bDelta\b", heading.group(2) or "", re.IGNORECASE):
            level = len(heading.group(1))
            sections.append([])
        if level:
            sections[-1].append(line)
    return [_plain("\n".join(lines)) for lines in sections]


def _plain(markdown: str) -> str:
    text = BACKSLASH_ESCAPE.sub(r"\1", markdown)
    for entity, char in _ENTITIES:
        text = text.replace(entity, char)
    return text


def unnamed_dimensions(method: str, delta: JsonValue) -> list[str]:
    """The dimensions delta.json records as moved or unknown that no §Delta section of ``method`` names."""
    text = "\n".join(delta_sections(method))
    return [
        dimension
        for dimension in recorded_dimensions(delta)
        if not re.search(r"(?<![\w-])" + re.escape(dimension) + r"(?![\w-])", text)
    ]
