"""PyYAML's pure-Python reader pattern, compiled when first used instead of when yaml is imported.

``import yaml`` compiles ``yaml.reader.Reader.NON_PRINTABLE``, a negated class of wide Unicode
ranges: 57 M instructions (about 15 ms of an idle core), 15% of what the validate hook spent on
imports. freezer parses with libyaml (``yaml.CParser``), which checks printability in C; the
pure-Python loader, the pattern's one user, runs only where freezer needs character offsets
(``freezer.freeze.versionedit``). So yaml is imported with a stand-in for that one pattern, which
compiles the same text on its first use.

``re.compile`` answers from ``re``'s cache before it compiles, keyed by the pattern's type, text and
flags; the stand-in sits in that cache only while yaml is imported, so no other caller can receive
it. Where ``re`` has no such cache, or yaml is already imported, yaml is imported as it is.
"""

from __future__ import annotations

import re
import sys
from typing import Any

# yaml/reader.py's Reader.NON_PRINTABLE (PyYAML 5.1 to 6.0), character for character.
NON_PRINTABLE = "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
_KEY = (str, NON_PRINTABLE, 0)
_CACHES = ("_cache", "_cache2")  # where re keeps compiled patterns (3.10-3.11: _cache; 3.12+: both)


class DeferredPattern:
    """A pattern compiled on its first use; from then on it is the compiled pattern's attributes."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        if self._compiled is None:
            self._compiled = re.compile(self._text)  # the stand-in has left re's cache by now
        return getattr(self._compiled, name)


def import_yaml() -> None:
    """Import yaml with its reader pattern deferred (see the module's docstring)."""
    cache = getattr(re, "_cache", None)
    if "yaml" in sys.modules or not isinstance(cache, dict) or _KEY in cache:
        return
    stand_in = DeferredPattern(NON_PRINTABLE)
    cache[_KEY] = stand_in
    try:
        import yaml  # noqa: F401  start-up time: this import is the one this function exists to make
    finally:
        for name in _CACHES:
            held = getattr(re, name, None)
            if isinstance(held, dict) and held.get(_KEY) is stand_in:
                del held[_KEY]
