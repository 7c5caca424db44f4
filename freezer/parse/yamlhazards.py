"""YAML that reads other than it looks: what freezer refuses outright, and the words it says.

* Anchors and aliases. ``symbol: &mut deterministic(`` loads as ``deterministic(``:
  ``&mut`` is an anchor that nothing refers to, and Rust writes ``&mut``,
  ``&self`` and ``&str`` everywhere. No file freezer reads needs one, so every
  anchor, alias and merge key is refused (which also ends alias bombs).
* Tags. No tag may construct an object or change what a value is
  (``!!bool 1`` would be false), so every tag is refused, ``!!str`` included.
* Directives. ``%YAML`` and ``%TAG`` change nothing freezer reads, which is the
  part of YAML on which 1.1 and 1.2 agree, so a file stating otherwise is refused.
* Where libyaml misreads YAML 1.2 (from the official YAML test suite): ``[?x]``
  and ``{?x: 1}`` (the ``?`` taken as a key indicator, where 1.2 reads the
  text ``?x``), and a file ending in a line of only spaces with no newline
  (a block scalar before it keeps other whitespace).
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


def text_hazard(text: str) -> tuple[int, int, str] | None:
    """What makes the whole file read other than it looks, before it is parsed: line, column, message."""
    found = _line_break(text)
    if found is None and text.endswith((" ", "\t")):
        start = text.rfind("\n") + 1
        if not text[start:].strip(" \t"):
            message = (
                "the file ends in a line of only spaces with no newline after it: libyaml reads a block scalar "
                "before it unlike YAML 1.2 (the YAML test suite's JEF9 and L24T); end the file with a newline"
            )
            return text.count("\n") + 1, 1, message
    return found


def _line_break(text: str) -> tuple[int, int, str] | None:
    """The first character that libyaml takes as a line break and ``grep -n`` does not."""
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


# A "?" before a node in a flow collection: libyaml (and PyYAML) take it as a key indicator where YAML
# 1.2 reads "?x" as text. The fast path gives up on any "?" that could be one; the located builder refuses
# only a node that really follows a "?". The search starts at the "?" (a literal prefix is what keeps it
# cheap: most fixtures hold a question mark in prose).
_QUESTION_BEFORE_NODE = re.compile(r"\?[^\s,\[\]{}]")


def may_hold_flow_question(text: str) -> bool:
    for match in _QUESTION_BEFORE_NODE.finditer(text):
        start = match.start()
        if start == 0 or text[start - 1] in " \t\n\r[{,?:":
            return True
    return False


def flow_question_message(written: str) -> str:
    return (
        f"{shown('?' + written)} in a flow collection: libyaml reads the ? as a key indicator (a key "
        f"{shown(written)}), YAML 1.2 as the text {shown('?' + written)} (the YAML test suite's 652Z and HM87); "
        "quote it for text, or put a space after the ? for a key"
    )
