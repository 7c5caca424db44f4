"""Field changes a reader can tell apart (delta format 4).

Formats 2 and 3 show a changed value as clipped text with its whitespace collapsed
(:func:`freezer.compare.delta_v1._short`), so a prompt that only lost a blank line, a trailing
space, or an NFC/NFD re-encoding shows as ``X → X``. Format 4 keeps that plain text where it
already tells the two values apart, and otherwise escalates, for both values together:

1. plain: whitespace collapsed, clipped around the first difference;
2. marked: newlines, tabs and every invisible character escaped (``\\n``, ``\\u0301``), and
   spaces a reader cannot count (leading, trailing, doubled) shown as ``␠``;
3. JSON: the value as ASCII JSON, with the same space marks. This last one is injective, and the
   clip keeps the first difference in view, so two different values never render the same.

A multi-line string also gets a line diff (unified style, a few lines of context), each line
marked the same way, clipped for huge texts.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from difflib import SequenceMatcher
from typing import Any

from freezer.domain.canonical import SPACED, compact, dumps
from freezer.domain.jsontypes import JsonObject, JsonValue, json_list

SHOWN = 120  # the width delta_v1 clips a value to
LINE_WIDTH = 160
CONTEXT = 2
MAX_DIFF_LINES = 40
# Past this many lines on both sides together, difflib's quadratic worst case is cut short by its
# junk heuristic; the diff may then be less tight, never wrong.
_AUTOJUNK_OVER = 4000
_SPACE_MARK = "␠"
_DOUBLED_SPACES = re.compile(" {2,}")
_ASCII_CONTROL = re.compile("[\\x00-\\x1f\\x7f]")


def same(a: JsonValue, b: JsonValue) -> bool:
    """Equal as frozen JSON: ``1`` and ``true`` and ``1.0`` differ here, though Python says equal."""
    if a is b:
        return True
    if a != b:
        return False
    if _alike(a, b):
        return True
    try:
        return compact(a) == compact(b)
    except (TypeError, ValueError):  # a value JSON cannot hold (NaN): Python's equality decides
        return True


def _alike(a: JsonValue, b: JsonValue) -> bool:
    """Whether ``a`` and ``b``, already equal, are of one type node for node (only string keys, each
    float written alike): then their JSON is the same text. False means only "serialize and see".
    A SWE-bench record holds strings of tens of KB; serializing both to learn what equality and the
    types already say cost the most of comparing two versions of a records suite."""
    stack: list[tuple[Any, Any]] = [(a, b)]
    while stack:
        x, y = stack.pop()
        if x is y:
            continue  # one object: one text, or a value JSON cannot hold either way (same() says True)
        kind = type(x)
        if kind is not type(y):
            return False  # 1 and True and 1.0, a list and a tuple: let the text decide
        if kind in _ATOMS:
            continue  # equal, and of one type, so written alike
        if kind is float:
            if repr(x) != repr(y):  # 0.0 and -0.0 are equal but written apart
                return False
        elif kind is dict:
            if not all(type(key) is str for key in x):
                return False  # 1 and "1" and True as keys: the text decides
            stack.extend((value, y[key]) for key, value in x.items())
        elif kind is list:
            stack.extend(zip(x, y, strict=True))  # equal lists: one length
        else:
            return False
    return True


_ATOMS = (str, int, bool, type(None))


def _escape(char: str) -> str:
    code = ord(char)
    if char == "\n":
        return "\\n"
    if char == "\t":
        return "\\t"
    if char == "\r":
        return "\\r"
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _invisible(char: str, decomposed: bool) -> bool:
    if char == " ":
        return False  # spaces a reader cannot count are marked by position (_mark_spaces)
    if char == _SPACE_MARK:
        return True
    category = unicodedata.category(char)
    # Combining marks are ordinary in many scripts; they are shown escaped only in text that is
    # not NFC, where they are what differs from the composed form.
    return category[0] in "CZ" or (decomposed and category[0] == "M")


def _mark_spaces(text: str, leading: bool) -> str:
    """Trailing spaces marked; with ``leading``, leading and doubled spaces too. Worked out from the
    runs of spaces, in one pass: per character, looking at the rest of the text was quadratic."""
    if " " not in text:
        return text
    end = len(text.rstrip(" "))
    if not leading:
        return text[:end] + _SPACE_MARK * (len(text) - end)
    if end == 0:
        return _SPACE_MARK * len(text)
    start = len(text) - len(text.lstrip(" "))
    middle = _DOUBLED_SPACES.sub(lambda run: _SPACE_MARK * len(run.group()), text[start:end])
    return _SPACE_MARK * start + middle + _SPACE_MARK * (len(text) - end)


def marked(text: str, *, leading: bool = True) -> str:
    """``text`` with every character a reader cannot see escaped; ``leading`` marks leading and
    doubled spaces too (a diff line keeps its indentation, which a code block shows)."""
    if text.isascii():
        # The common case, one regex pass: in ASCII only the controls are invisible, and ASCII is NFC.
        return _mark_spaces(_ASCII_CONTROL.sub(lambda c: _escape(c.group()), text), leading)
    decomposed = unicodedata.normalize("NFC", text) != text
    escaped = "".join(_escape(c) if _invisible(c, decomposed) else c for c in text)
    return _mark_spaces(escaped, leading)


def _plain(value: JsonValue) -> str:
    text = value if isinstance(value, str) else repr(value)
    return " ".join(str(text).split())


def _marked(value: JsonValue) -> str:
    return marked(value) if isinstance(value, str) else _plain(value)


def _json(value: JsonValue) -> str:
    try:
        text = dumps(value, ascii_only=True, separators=SPACED, nan=True)
    except (TypeError, ValueError):  # no JSON value (a YAML date): unquoted, so it reads like no JSON text
        text = "<" + dumps(repr(value), ascii_only=True, separators=SPACED, nan=True)[1:-1] + ">"
    return _mark_spaces(text, True)


STYLES = (_plain, _marked, _json)


def _first_difference(a: str, b: str) -> int:
    for index, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return index
    return min(len(a), len(b))


def _clip(text: str, start: int, width: int | None) -> str:
    if width is None or (len(text) <= width and start == 0):
        return text
    body = text[start : start + width - (3 if start else 0) - 3]
    head = "..." if start else ""
    tail = "..." if start + len(body) < len(text) else ""
    return head + body + tail


def clip_pair(a: str, b: str, width: int | None) -> tuple[str, str]:
    """Both texts clipped to ``width`` around their first difference (from the start when it is in view)."""
    if width is None or (len(a) <= width and len(b) <= width):
        return a, b
    first = _first_difference(a, b)
    start = 0 if first < width - 3 - width // 3 else first - width // 3
    return _clip(a, start, width), _clip(b, start, width)


def _differing(a: str, b: str) -> tuple[str, str]:
    first = _first_difference(a, b)
    end = 0
    while end < min(len(a), len(b)) - first and a[-1 - end] == b[-1 - end]:
        end += 1
    return a[first : len(a) - end], b[first : len(b) - end]


def _ascii_letters(text: str) -> bool:
    return any(c.isascii() and c.isalpha() for c in text)


def _other_letters(text: str) -> bool:
    return any(not c.isascii() and c.isalpha() for c in text)


def tellable(a: str, b: str) -> bool:
    """Whether a reader sees ``a`` and ``b`` differ: not equal, not equal once normalised (NFC/NFD,
    compatibility forms), no invisible character where they differ, and no look-alike letters of
    another script in place of ASCII ones."""
    if a == b or unicodedata.normalize("NFKC", a) == unicodedata.normalize("NFKC", b):
        return False
    da, db = _differing(a, b)
    if any(c != " " and unicodedata.category(c)[0] in "CZM" for c in da + db):
        return False
    return not ((_ascii_letters(da) and _other_letters(db)) or (_other_letters(da) and _ascii_letters(db)))


def shown_pair(a: JsonValue, b: JsonValue, width: int | None = SHOWN) -> tuple[str, str]:
    """Two different values as texts a reader can tell apart, clipped to ``width``."""
    for style in STYLES:
        ra, rb = clip_pair(style(a), style(b), width)
        if style is _json or tellable(ra, rb):
            return ra, rb
    raise AssertionError("unreachable: the JSON style is always returned")


def shown_items(
    added: Sequence[JsonValue], removed: Sequence[JsonValue], width: int | None = SHOWN
) -> tuple[list[str], list[str]]:
    """Items gained and lost, each shown so that no gained item reads like a lost one (or like another)."""
    for style in STYLES:
        ra = [_clip(style(x), 0, width) for x in added]
        rb = [_clip(style(x), 0, width) for x in removed]
        distinct = len(set(ra + rb)) == len(ra) + len(rb)
        if style is _json:
            # Whole when clipping made two alike: the JSON of different values never is.
            return (ra, rb) if distinct else ([_json(x) for x in added], [_json(x) for x in removed])
        if distinct and all(tellable(x, y) for x in ra for y in rb):
            return ra, rb
    raise AssertionError("unreachable: the JSON style is always returned")


def _range(start: int, length: int) -> str:
    # As unified diffs write it: 1-based, and the line before an empty range.
    if length == 1:
        return f"{start + 1}"
    return f"{start + 1 if length else start},{length}"


def _diff_line(text: str) -> str:
    return marked(text, leading=False)


def _block(removed: list[str], added: list[str], width: int | None) -> list[str]:
    """A replaced block: paired lines clipped around their own difference; no removed line may
    read like an added one."""
    shown_old = [_diff_line(line) for line in removed]
    shown_new = [_diff_line(line) for line in added]
    for index in range(min(len(removed), len(added))):
        a, b = clip_pair(shown_old[index], shown_new[index], width)
        if not tellable(a, b):
            a, b = clip_pair(_json(removed[index]), _json(added[index]), width)
        shown_old[index], shown_new[index] = a, b
    for index in range(min(len(removed), len(added)), len(removed)):
        shown_old[index] = _clip(shown_old[index], 0, width)
    for index in range(min(len(removed), len(added)), len(added)):
        shown_new[index] = _clip(shown_new[index], 0, width)
    clash = set(shown_old) & set(shown_new)
    if clash:  # unpaired lines that clip alike: shown whole, as JSON (injective)
        shown_old = [_json(line) if s in clash else s for s, line in zip(shown_old, removed, strict=True)]
        shown_new = [_json(line) if s in clash else s for s, line in zip(shown_new, added, strict=True)]
    if set(shown_old) & set(shown_new):  # a JSON line met a line that reads like one: the whole block as JSON
        shown_old, shown_new = [_json(line) for line in removed], [_json(line) for line in added]
    return [f"-{s}" for s in shown_old] + [f"+{s}" for s in shown_new]


def multiline(value: JsonValue) -> bool:
    return isinstance(value, str) and "\n" in value


def line_diff(old: str | None, new: str | None, *, full: bool = False) -> tuple[str, ...]:
    """A unified-style line diff of two texts (None: the value is absent), ``CONTEXT`` lines of
    context; clipped to ``MAX_DIFF_LINES`` lines of ``LINE_WIDTH`` unless ``full``."""
    before = [] if old is None else old.split("\n")
    after = [] if new is None else new.split("\n")
    width = None if full else LINE_WIDTH
    matcher = SequenceMatcher(None, before, after, autojunk=len(before) + len(after) > _AUTOJUNK_OVER)
    out: list[str] = []
    for group in matcher.get_grouped_opcodes(CONTEXT):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{_range(i1, i2 - i1)} +{_range(j1, j2 - j1)} @@")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out.extend(" " + _clip(_diff_line(line), 0, width) for line in before[a1:a2])
            else:
                out.extend(_block(before[a1:a2], after[b1:b2], width))
    if not full and len(out) > MAX_DIFF_LINES:
        hidden = len(out) - MAX_DIFF_LINES
        out = [*out[:MAX_DIFF_LINES], f"... {hidden} more line(s) of the diff not shown"]
    return tuple(out)


def _one(value: JsonValue, full: bool) -> JsonValue:
    return value if full else _clip(_plain(value), 0, SHOWN)


def _lines(old: JsonValue, new: JsonValue, full: bool) -> JsonObject:
    if (
        (multiline(old) or multiline(new))
        and (old is None or isinstance(old, str))
        and (new is None or isinstance(new, str))
    ):
        return {"lines": json_list(line_diff(old, new, full=full))}
    return {}


def field_changes(before: JsonObject, after: JsonObject, *, full: bool = False) -> list[JsonObject]:
    """Format 4's field-level differences of two flattened records (see the module's docstring)."""
    changes: list[JsonObject] = []
    for path in sorted(set(before) | set(after)):
        if path not in before:
            new = after[path]
            changes.append({"path": path, "change": "added", "new": _one(new, full), **_lines(None, new, full)})
        elif path not in after:
            old = before[path]
            changes.append({"path": path, "change": "removed", "old": _one(old, full), **_lines(old, None, full)})
        elif not same(before[path], after[path]):
            a, b = before[path], after[path]
            if isinstance(a, list) and isinstance(b, list):
                added = [x for x in b if not any(same(x, y) for y in a)]
                removed = [x for x in a if not any(same(x, y) for y in b)]
                if added or removed:
                    if not full:
                        shown_added, shown_removed = shown_items(added, removed)
                        added, removed = json_list(shown_added), json_list(shown_removed)
                    changes.append({"path": path, "change": "items", "added": added, "removed": removed})
                    continue
                # Only the order or the repeats moved: no item to name, so both lists are shown.
            old, new = (a, b) if full else shown_pair(a, b)
            changes.append({"path": path, "change": "changed", "old": old, "new": new, **_lines(a, b, full)})
    return changes
