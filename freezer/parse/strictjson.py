"""JSON that reads one way only: a results line, or a signed file beside the versions.

A line of results gives the value, or where and why it is refused; :func:`loads` reads
a whole small document (status log, checkpoint) by the same rules.

Standard JSON only: no ``NaN`` or ``Infinity``, no number beyond a double's
range (``1e400``) or of more digits than Python converts, no key twice in one
object, no nesting deeper than :data:`MAX_DEPTH`, no lone surrogate, no
byte-order mark, UTF-8 only. The fast path is the C decoder with hooks that
raise on each of these; only a refused line is walked again here, to give the
column (in characters) and the JSON path of the first fault. The walk steps
over every value the C scanner accepts whole, so it costs about one step per
member on the way to the fault, and it gives up after :data:`_WALK_BUDGET`
steps (the refusal then names column 1).
"""

from __future__ import annotations

import json
import json.scanner
import re
from collections.abc import Iterator
from typing import Any

from freezer.domain.escape import quoted
from freezer.domain.findings import JsonPath

MAX_DEPTH = 100
_MAX_PATH_PARTS = 8  # a refusal's JSON path is cut here; the column says exactly where
_MAX_KEY_SHOWN = 60
_MAX_INT_DIGITS = 4300  # Python's own limit for turning digits into an int
_WALK_BUDGET = 100_000


class LineRefused(Exception):
    """A line that is not strict JSON: where (1-based column in characters, JSON path) and why."""

    def __init__(self, col: int, path: JsonPath, message: str) -> None:
        super().__init__(col, path, message)
        # Keys are data: a path through a 1 MiB key, or 100 levels deep, would flood the message.
        # The path stops before the first key too long to show; the column still says exactly where.
        kept: list[str | int] = []
        for part in path[:_MAX_PATH_PARTS]:
            if isinstance(part, str) and len(part) > _MAX_KEY_SHOWN:
                break
            kept.append(part)
        self.col = col
        self.path: JsonPath = tuple(kept)
        self.message = message


class _Fault(Exception):
    """Raised by the decoder's hooks: valid JSON syntax, but not strict JSON. The text says why."""


_NON_NUMBER = "{} is not JSON (JSON has no NaN or infinity): write a number"
_INFINITE = "this number is beyond the range of a double (it would be infinite)"


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    built = dict(pairs)
    if len(built) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Fault(f"key {quoted(key)} is given twice: give it once")
            seen.add(key)
    return built


def _float(text: str) -> float:
    value = float(text)
    if value - value != 0:  # inf (1e400); NaN cannot come from digits
        raise _Fault(_INFINITE)
    return value


def _constant(name: str) -> Any:
    raise _Fault(_NON_NUMBER.format(name))


_DECODER = json.JSONDecoder(object_pairs_hook=_object, parse_float=_float, parse_constant=_constant)
# The C scanners, without decode()'s whitespace handling: strict (the hooks above) and plain.
_SCAN = json.scanner.make_scanner(_DECODER)  # type: ignore[arg-type]
_PLAIN_SCAN = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]


def _decode(text: str) -> Any:
    try:
        value, end = _SCAN(text, 0)
    except StopIteration:
        end = -1
    if end != len(text):  # leading or trailing whitespace, or an error: decode() says which
        return _DECODER.decode(text)
    return value


def parse_line(raw: bytes, locate: bool = True) -> Any:
    """The value of one line; :class:`LineRefused` if it is not one strict JSON value. With
    ``locate`` False a refusal names no column or path, and costs no second walk."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        col = len(raw[: exc.start].decode("utf-8", "replace")) + 1
        raise LineRefused(col, (), f"not UTF-8: byte 0x{raw[exc.start]:02x}; save the file as UTF-8") from None
    if text.startswith("\ufeff"):
        raise LineRefused(1, (), "starts with a byte-order mark (U+FEFF); save the file as UTF-8 without one")
    try:
        value = _decode(text)
    except json.JSONDecodeError as exc:
        raise LineRefused(exc.colno, (), f"not JSON: {exc.msg.removesuffix(' at')}") from None
    except _Fault as exc:
        raise _refusal(text, str(exc), locate) from None
    except ValueError:  # an integer of more digits than Python converts
        raise _refusal(text, f"a number of more than {_MAX_INT_DIGITS} digits", locate) from None
    except RecursionError:
        raise _refusal(text, _TOO_DEEP, locate) from None
    if "\\u" in text and _SURROGATE_ESCAPE.search(text) and _has_lone_surrogate(value):
        raise _refusal(text, _LONE, locate)
    # Nesting deeper than MAX_DEPTH needs twice as many brackets; a short row cannot hold them.
    deep = len(raw) > 2 * MAX_DEPTH and raw.count(b"[") + raw.count(b"{") > MAX_DEPTH
    if deep and _deeper_than(text, MAX_DEPTH):
        raise _refusal(text, _TOO_DEEP, locate)
    return value


_TOO_DEEP = f"nested more than {MAX_DEPTH} levels deep"
_LONE = "a string holds a lone surrogate (\\ud800-\\udfff), which is no character"


def _deeper_than(text: str, limit: int) -> bool:
    """Whether the JSON ``text`` (valid) nests more than ``limit`` levels: brackets only, strings
    taken out, then each pass of the regex removes the innermost pairs, one level a pass."""
    skeleton = _NOT_A_BRACKET.sub("", _STRING.sub("", text))
    for _ in range(limit):
        skeleton = _INNERMOST.sub("", skeleton)
        if not skeleton:
            return False
    return bool(skeleton)


def _has_lone_surrogate(value: Any) -> bool:
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if _LONE_SURROGATE.search(node):
                return True
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def _refusal(text: str, message: str, locate: bool) -> LineRefused:
    """The refusal, at the first fault the walk finds; at column 1 when not asked to, or not found in budget."""
    fault = _first_fault(text) if locate else None
    return fault if fault is not None else LineRefused(1, (), message)


def value_column(text: str, path: JsonPath) -> int:
    """The 1-based column where the value at ``path`` starts in ``text``, a line that parsed (1 if not there)."""
    for event in _walk(text, path):
        if isinstance(event, tuple) and event[0] == path:
            return event[1] + 1
    return 1


def member_offsets(text: str, pos: int) -> dict[str | int, int]:
    """Where each member's value of the object or array at ``pos`` (in ``text``, which parsed) starts:
    key or index → offset. One step per member, each value stepped over by the C scanner, so a caller
    that locates many values of one container (a problem per member) reads it once, not once per value."""
    opening = text[pos : pos + 1]
    offsets: dict[str | int, int] = {}
    if opening not in ("{", "["):
        return offsets
    pos = skip_space(text, pos + 1)
    index = 0
    while pos < len(text) and text[pos] not in "]}":
        name: str | int = index
        if opening == "{":
            try:
                name, end = json.decoder.scanstring(text, pos + 1)  # type: ignore[attr-defined]
            except ValueError:
                return offsets
            pos = skip_space(text, skip_space(text, end) + 1)  # past the colon
        offsets.setdefault(name, pos)
        index += 1
        try:
            _, end = _PLAIN_SCAN(text, pos)
        except (StopIteration, ValueError, RecursionError):
            return offsets
        pos = skip_space(text, end)
        if text[pos : pos + 1] != ",":
            break
        pos = skip_space(text, pos + 1)
    return offsets


def _first_fault(text: str) -> LineRefused | None:
    for event in _walk(text):
        if isinstance(event, LineRefused):
            return event
    return None


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_A_BRACKET = re.compile(r"[^\[\]{}]+")
_INNERMOST = re.compile(r"\[\]|\{\}")
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_LITERALS = ("true", "false", "null")
_CONSTANTS = ("NaN", "Infinity", "-Infinity")


class _Open:
    """An array or object :func:`_walk` has entered and not yet closed."""

    def __init__(self, close: str, path: JsonPath) -> None:
        self.close = close
        self.path = path
        self.keys: dict[str, int] = {}
        self.index = 0


def _walk(text: str, target: JsonPath | None = None) -> Iterator[tuple[JsonPath, int] | LineRefused]:
    """Each value's (path, offset), in text order, until the first fault (a :class:`LineRefused`) or the end.

    Iterative, so nesting of any depth costs no stack; it stops at the first
    syntax error, which the C decoder has already described. A container the
    C scanner reads whole without a fault, or one off the way to ``target``,
    is stepped over, not walked.
    """
    stack: list[_Open] = []
    path: JsonPath = ()
    pos = skip_space(text, 0)
    for _step in range(_WALK_BUDGET):
        yield path, pos
        start = pos
        char = text[pos : pos + 1]
        end = _step_over(text, pos, path, len(stack), target) if char in ("[", "{") and char and stack else None
        if end is not None:
            pos = end
        elif char in ("[", "{") and char:
            if len(stack) >= MAX_DEPTH:
                yield LineRefused(pos + 1, (), _TOO_DEEP)
                return
            stack.append(_Open("]" if char == "[" else "}", path))
            pos = skip_space(text, pos + 1)
            if text[pos : pos + 1] == stack[-1].close:
                stack.pop()
                pos += 1
            else:
                step = _enter(text, pos, stack[-1])
                if not isinstance(step, tuple):
                    if step is not None:
                        yield step
                    return
                path, pos = step
                continue
        elif char == '"':
            try:
                string, pos = json.decoder.scanstring(text, pos + 1)  # type: ignore[attr-defined]
            except ValueError:
                return
            if _LONE_SURROGATE.search(string):
                yield _lone_surrogate(start, path)
                return
        elif constant := next((c for c in _CONSTANTS if text.startswith(c, pos)), None):
            yield LineRefused(pos + 1, path, _NON_NUMBER.format(constant))
            return
        elif number := _NUMBER.match(text, pos):
            fault = _number_fault(number.group())
            if fault:
                yield LineRefused(pos + 1, path, fault)
                return
            pos = number.end()
        elif literal := next((w for w in _LITERALS if text.startswith(w, pos)), None):
            pos += len(literal)
        else:
            return
        # After a value: close what ends here, then step to the next member or element.
        while True:
            pos = skip_space(text, pos)
            if not stack:
                return
            top = stack[-1]
            char = text[pos : pos + 1]
            if char == top.close:
                stack.pop()
                pos += 1
                continue
            if char != ",":
                return
            step = _enter(text, skip_space(text, pos + 1), top, next_item=True)
            if not isinstance(step, tuple):
                if step is not None:
                    yield step
                return
            path, pos = step
            break


def _step_over(text: str, pos: int, path: JsonPath, depth: int, target: JsonPath | None) -> int | None:
    """Where the container at ``pos`` ends, when the walk need not look inside it; else None."""
    if target is not None and path == target[: len(path)]:
        return None  # on the way to the target
    try:
        value, end = (_PLAIN_SCAN if target is not None else _SCAN)(text, pos)
    except (StopIteration, _Fault, ValueError, RecursionError):
        return None
    if target is None:  # looking for a fault: the scanner checks all but depth and surrogates
        inside = text[pos:end]
        if inside.count("[") + inside.count("{") > MAX_DEPTH - depth and _deeper_than(inside, MAX_DEPTH - depth):
            return None
        if _SURROGATE_ESCAPE.search(inside) and _has_lone_surrogate(value):
            return None
    return int(end)


def _enter(text: str, pos: int, container: _Open, next_item: bool = False) -> tuple[JsonPath, int] | LineRefused | None:
    """The path and offset of the next value inside ``container`` (a key is read first in an object)."""
    if container.close == "]":
        if next_item:
            container.index += 1
        return (*container.path, container.index), pos
    if text[pos : pos + 1] != '"':
        return None
    try:
        key, end = json.decoder.scanstring(text, pos + 1)  # type: ignore[attr-defined]
    except ValueError:
        return None
    if _LONE_SURROGATE.search(key):
        return _lone_surrogate(pos, container.path)
    if key in container.keys:
        first = container.keys[key]
        return LineRefused(
            pos + 1, (*container.path, key), f"key {quoted(key)} is given twice (first at column {first}): give it once"
        )
    container.keys[key] = pos + 1
    colon = skip_space(text, end)
    if text[colon : colon + 1] != ":":
        return None
    return (*container.path, key), skip_space(text, colon + 1)


def _lone_surrogate(pos: int, path: JsonPath) -> LineRefused:
    return LineRefused(pos + 1, path, _LONE)


def skip_space(text: str, pos: int) -> int:
    """The offset of the first character at or after ``pos`` that is not JSON whitespace."""
    match = _WHITESPACE.match(text, pos)
    return match.end() if match else pos


def _number_fault(token: str) -> str | None:
    digits = len(token.split(".")[0].split("e")[0].split("E")[0].lstrip("-"))
    if digits > _MAX_INT_DIGITS:
        return f"a number of {digits} digits is over the limit of {_MAX_INT_DIGITS}"
    if any(c in token for c in ".eE") and float(token) - float(token) != 0:
        return _INFINITE
    return None


class NotStrictJson(ValueError):
    """Why a whole document is not strict JSON; the text is meant for the user."""


def loads(data: bytes | str) -> Any:
    """One whole JSON document (a status-log line, a checkpoint, the machine's checkpoint record)
    by the same rules as a results line, or :class:`NotStrictJson` saying why not. Not located:
    these files are small, and the caller names the file and line."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    try:
        return parse_line(raw, locate=False)
    except LineRefused as exc:
        raise NotStrictJson(exc.message) from None
