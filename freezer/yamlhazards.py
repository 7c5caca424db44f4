"""YAML that reads other than it looks: what freezer refuses outright, and the words it says.

* Anchors and aliases. ``symbol: &mut deterministic(`` loads as ``deterministic(``:
  ``&mut`` is an anchor that nothing refers to, and Rust writes ``&mut``,
  ``&self`` and ``&str`` everywhere. No file freezer reads needs one, so every
  anchor, alias and merge key is refused (which also ends alias bombs).
* Tags. No tag may construct an object or change what a value is
  (``!!bool 1`` would be false), so every tag is refused, ``!!str`` included.
* Directives. ``%YAML`` and ``%TAG`` change nothing freezer reads, which is the
  part of YAML on which 1.1 and 1.2 agree, so a file stating otherwise is refused.
* Line breaks that only YAML sees. NEL, LS and PS are line breaks to YAML 1.1
  (libyaml) and not to YAML 1.2, grep or most editors, and a CR not followed by
  LF is one to libyaml but not to ``grep -n``: ``a: 1 # x<NEL>b: 2`` holds a key
  ``b`` that a reviewer reads as part of a comment. Such a file is refused,
  before it is parsed, at the line and column ``grep -n`` would show.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_TAG = "tag:yaml.org,2002:"
_QUOTE_HINT = "quote a value that starts with & or * (symbol: '{example}')"
_LINE_BREAKS = re.compile("[\x85\u2028\u2029]|\r(?!\n)")
_BREAK_NAMES = {
    "\x85": "U+0085 (NEL, next line)",
    "\u2028": "U+2028 (LS, line separator)",
    "\u2029": "U+2029 (PS, paragraph separator)",
    "\r": "a carriage return not followed by a newline",
}


def shown(text: str, limit: int = 40) -> str:
    """``text`` quoted for a message, cut short when long (a hostile value can be a megabyte)."""
    return repr(text if len(text) <= limit else text[:limit] + "…")


def tag_message(tag: str, scalar: bool = True) -> str:
    fix = "remove the tag (quote the value to make it text)" if scalar else "remove the tag"
    return (
        f"YAML tag {shown(tag.replace(_TAG, '!!'))[1:-1]} is not allowed: fixture files hold plain data only, "
        f"and no tag may construct an object or change a value; {fix}"
    )


def anchor_message(name: str, loads_as: str | None, written: str | None) -> str:
    """An anchor; ``loads_as`` describes the plain scalar it is attached to, ``written`` is its source."""
    what = f"YAML anchor &{shown(name)[1:-1]} is not allowed: freezer refuses anchors and aliases"
    if loads_as is not None:
        what += f" (this value would load as {loads_as}, without the anchor)"
    if written is not None and len(written) <= 60 and "'" not in written:
        return f"{what}; quote a value that starts with & or * ('{written}')"
    return f"{what}; remove the anchor, or {_QUOTE_HINT.format(example='&mut self')}"


def alias_message(name: str) -> str:
    return (
        f"YAML alias *{shown(name)[1:-1]} is not allowed: freezer refuses anchors and aliases; "
        f"write the value out, or {_QUOTE_HINT.format(example='*const u8')}"
    )


SYNTAX_HINT = "a value that starts with & or * is an anchor or an alias to YAML: quote it"


def directive_message(version: tuple[int, int] | None, tags: Mapping[str, str] | None) -> str:
    named = ([f"%YAML {version[0]}.{version[1]}"] if version else []) + [f"%TAG {shown(h)[1:-1]}" for h in tags or {}]
    return (
        f"YAML directive {', '.join(named)} is not allowed: freezer reads every file as the part of YAML "
        "on which 1.1 and 1.2 agree, and refuses tags; remove the directive"
    )


def line_break(text: str) -> tuple[int, int, str] | None:
    """The first character that libyaml takes as a line break and ``grep -n`` does not: line, column, message."""
    match = _LINE_BREAKS.search(text)
    if match is None:
        return None
    start = match.start()
    line_start = text.rfind("\n", 0, start) + 1
    line = text.count("\n", 0, start) + 1
    more = sum(1 for _ in _LINE_BREAKS.finditer(text, start + 1))
    also = f" (and {more} more in the file)" if more else ""
    message = (
        f"{_BREAK_NAMES[match.group()]}{also}: YAML 1.1 reads it as a line break where grep, diff and most "
        "editors see none, so the file would not read as it looks (text after it in a comment becomes data, "
        "and line numbers drift); replace it with a newline, or save the file with LF or CRLF line endings"
    )
    return line, start - line_start + 1, message
