"""The escaping rules: what data may look like once freezer prints or renders it.

Data (fixture text, YAML keys, file names, commit subjects, paths from the
command line) can hold characters that a terminal or a reader acts on:
ESC and the other C0 and C1 controls, DEL, the bidirectional overrides and
isolates that reorder what a reader sees (Trojan Source), the Unicode line
and paragraph separators, and bytes that are not UTF-8. One rule shows each
of them visibly (``\\x1b``, ``\\u202e``, ``\\n``) wherever freezer prints to a
terminal; JSON output escapes the same characters as ``\\uXXXX``, and a page
of the site shows them escaped too. JSON fixture data (a record) may hold them
as escapes and is frozen as written; YAML and TOML data holding any of them is
refused at validation (:func:`unsafe_char`). Either way none reaches an
output raw.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_BIDI_AND_SEPARATORS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029"
# Tab is the one control character that is harmless everywhere; newline is data's, not ours.
_UNSAFE = re.compile(f"[\x00-\x08\x0a-\x1f\x7f-\x9f{_BIDI_AND_SEPARATORS}\udc80-\udcff]")
_UNSAFE_IN_TEXT = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI_AND_SEPARATORS}]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\x1b": "\\x1b"}


def _shown(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, kept by surrogateescape
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` as one safe line for a terminal: every unsafe character, newline included, shown escaped."""
    return _UNSAFE.sub(_shown, text)


def visible_block(text: str) -> str:
    """A multi-line document (METHOD.md, JSON) for a terminal: newlines kept, everything else as :func:`visible`."""
    return "\n".join(visible(line) for line in text.split("\n"))


def json_safe(text: str) -> str:
    """JSON text with every unsafe character inside its strings written as a ``\\uXXXX`` escape."""
    return _UNSAFE_IN_TEXT.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def unsafe_char(text: str) -> str | None:
    """The first character data may not hold (newline and tab are allowed), described; or None."""
    match = _UNSAFE_IN_TEXT.search(text)
    if match is None:
        return None
    return f"U+{ord(match.group()):04X} ({_shown(match)})"


def github_data(text: str) -> str:
    """A GitHub workflow command's message: its own escapes, then :func:`visible`."""
    return visible(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def github_property(text: str) -> str:
    """A GitHub workflow command's property value (file=...): ``,`` and ``:`` end it unless escaped."""
    return github_data(text).replace(":", "%3A").replace(",", "%2C")


def quoted(value: object, limit: int = 60) -> str:
    """A value from data inside a message: its ``repr``, clipped to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def clipped(text: str, limit: int) -> str:
    """``text`` from data, cut to ``limit`` characters (the cut marked "...")."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def quoted_names(names: Iterable[object], shown: int = 6, limit: int = 40) -> str:
    """Names from data inside a message (the keys of a file's object): the first ``shown``, each
    :func:`clipped` to ``limit`` characters, then how many more were left out; "none" when there are none."""
    items = list(names)
    parts = [clipped(str(name), limit) for name in items[:shown]]
    more = len(items) - len(parts)
    return (", ".join(parts) or "none") + (f" and {more} more" if more > 0 else "")
