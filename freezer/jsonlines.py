"""Reading a JSON Lines file strictly, line by line, in bounded memory.

A results file can come from anywhere, so it is read as a stream of lines,
each bounded, from a regular file only (a FIFO, a device such as /dev/zero or
a symbolic link is refused before a byte is read). A line ends at LF alone,
as JSON Lines says (a CR before it is dropped): U+2028, NEL or a form feed
inside a row are characters of that row, not line breaks, unlike
``str.splitlines``. Each line is standard JSON, strictly: no ``NaN`` or
``Infinity``, no number beyond a double's range, no key twice in one object,
no nesting deeper than :data:`MAX_DEPTH`, no byte-order mark, UTF-8 only. A
refusal says where, by column (in characters) and JSON path.

The fast path is the C JSON decoder with hooks; only a line it refuses is
walked again in Python (:func:`_first_fault`) to say where and why.
"""

from __future__ import annotations

import json
import json.scanner
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from freezer.problems import JsonPath
from freezer.schemas import _shown

MAX_FILE_BYTES = 1 << 30  # 1 GiB: ~6 million result rows
MAX_LINE_BYTES = 1 << 20  # a result row is a short object; 1 MiB leaves room for extra fields
MAX_LINES = 10_000_000
MAX_DEPTH = 100
_MAX_PATH_PARTS = 8  # a refusal's JSON path is cut here; the column says exactly where
_MAX_KEY_SHOWN = 60
_MAX_INT_DIGITS = 4300  # Python's own limit for turning digits into an int
_READ_CHUNK = 1 << 16  # small enough that a chunk of empty lines splits into few objects


class FileRefused(Exception):
    """The file as a whole cannot be read as JSON Lines; the text is meant for the user."""


@dataclass
class LineRefused(Exception):
    """A line that is not strict JSON: where (1-based column in characters, JSON path) and why."""

    col: int
    path: JsonPath
    message: str

    def __post_init__(self) -> None:
        # Keys are data: a path through a 1 MiB key, or 100 levels deep, would flood the message.
        # The path stops before the first key too long to show; the column still says exactly where.
        kept: list[str | int] = []
        for part in self.path[:_MAX_PATH_PARTS]:
            if isinstance(part, str) and len(part) > _MAX_KEY_SHOWN:
                break
            kept.append(part)
        self.path = tuple(kept)


@dataclass
class FileLines:
    """The lines of one file, read lazily: iterate once. ``identity`` tells whether a second read sees the same file."""

    path: Path
    identity: tuple[int, ...]
    _fd: int = field(repr=False)

    def __iter__(self) -> Iterator[tuple[int, bytes | None]]:
        """(line number, the line without its LF or CRLF), or None for a line over :data:`MAX_LINE_BYTES`."""
        try:
            yield from _split(self._fd)
        finally:
            self.close()

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def open_lines(path: Path) -> FileLines:
    """Open ``path`` for :class:`FileLines`; :class:`FileRefused` says why not."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise FileRefused("file not found (check the path)") from None
    except IsADirectoryError:
        raise FileRefused("is a folder; name the results files in it (e.g. runs/*.jsonl)") from None
    except OSError as exc:
        if os.path.islink(path):
            raise FileRefused("is a symbolic link; name the file it points to") from None
        raise FileRefused(f"cannot open: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise FileRefused("is a folder; name the results files in it (e.g. runs/*.jsonl)")
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused("is not a regular file (FIFO, socket or device); refusing to read it")
        if info.st_size > MAX_FILE_BYTES:
            raise FileRefused(
                f"file is {info.st_size} bytes, over the {MAX_FILE_BYTES}-byte limit for a results file; split it"
            )
    except BaseException:
        os.close(fd)
        raise
    return FileLines(Path(path), (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns), fd)


def _split(fd: int) -> Iterator[tuple[int, bytes | None]]:
    number = 0
    pending = b""
    overlong = False  # the current line passed the bound: drop it up to its LF
    read = 0
    while True:
        try:
            chunk = os.read(fd, _READ_CHUNK)
        except OSError as exc:
            raise FileRefused(f"cannot read: {exc.strerror or exc}") from None
        if not chunk:
            break
        read += len(chunk)
        if read > MAX_FILE_BYTES:
            raise FileRefused(f"file grew past the {MAX_FILE_BYTES}-byte limit while it was read")
        parts = chunk.split(b"\n")
        last = parts.pop()
        for part in parts:
            number += 1
            if number > MAX_LINES:
                raise FileRefused(f"more than {MAX_LINES} lines; split the file")
            line = pending + part
            pending = b""
            yield number, None if overlong or len(line) > MAX_LINE_BYTES else _without_cr(line)
            overlong = False
        if not overlong:
            pending += last
            if len(pending) > MAX_LINE_BYTES:
                overlong, pending = True, b""
    if pending or overlong:
        number += 1
        if number > MAX_LINES:
            raise FileRefused(f"more than {MAX_LINES} lines; split the file")
        yield number, None if overlong else _without_cr(pending)


def _without_cr(line: bytes) -> bytes:
    return line[:-1] if line.endswith(b"\r") else line


class _Fault(Exception):
    """Raised by the decoder's hooks: the line is valid JSON syntax but not strict JSON."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    built = dict(pairs)
    if len(built) != len(pairs):
        raise _Fault
    return built


def _float(text: str) -> float:
    value = float(text)
    if value - value != 0:  # inf (1e400); NaN cannot come from digits
        raise _Fault
    return value


def _constant(_name: str) -> Any:
    raise _Fault


_DECODER = json.JSONDecoder(object_pairs_hook=_object, parse_float=_float, parse_constant=_constant)
_SCAN = json.scanner.make_scanner(_DECODER)  # type: ignore[arg-type] # the C scanner, without decode()'s checks


def _decode(text: str) -> Any:
    try:
        value, end = _SCAN(text, 0)
    except StopIteration:
        end = -1
    if end != len(text):  # leading or trailing whitespace, or an error: decode() says which
        return _DECODER.decode(text)
    return value


def parse_line(raw: bytes) -> Any:
    """The value of one line; :class:`LineRefused` if it is not one strict JSON value."""
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
    except (_Fault, ValueError, RecursionError):
        # ValueError: an integer of more digits than Python converts; RecursionError: deep nesting.
        raise _refusal(text) from None
    if "\\u" in text and _SURROGATE_ESCAPE.search(text) and (fault := _first_fault(text)) is not None:
        raise fault
    # Nesting deeper than MAX_DEPTH needs twice as many brackets; a short row cannot hold them.
    deep = len(raw) > 2 * MAX_DEPTH and raw.count(b"[") + raw.count(b"{") > MAX_DEPTH
    if deep and isinstance(value, (dict, list)) and _too_deep(value):
        raise _refusal(text)
    return value


def _too_deep(value: Any) -> bool:
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        for child in node.values() if isinstance(node, dict) else node:
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1))
    return False


def _refusal(text: str) -> LineRefused:
    fault = _first_fault(text)
    if fault is None:  # pragma: no cover - the walk below finds whatever the decoder refused
        return LineRefused(1, (), "not strict JSON")
    return fault


def value_column(text: str, path: JsonPath) -> int:
    """The 1-based column where the value at ``path`` starts in ``text`` (1 if it is not there)."""
    for event in _walk(text):
        if isinstance(event, tuple) and event[0] == path:
            return event[1] + 1
    return 1


def _first_fault(text: str) -> LineRefused | None:
    for event in _walk(text):
        if isinstance(event, LineRefused):
            return event
    return None


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_LITERALS = ("true", "false", "null")
_CONSTANTS = ("NaN", "Infinity", "-Infinity")


@dataclass
class _Open:
    close: str
    path: JsonPath
    keys: dict[str, int] = field(default_factory=dict)
    index: int = 0


def _walk(text: str) -> Iterator[tuple[JsonPath, int] | LineRefused]:
    """Each value's (path, offset), in text order, until the first fault (a :class:`LineRefused`) or the end.

    Iterative, so nesting of any depth costs no stack; it stops at the first
    syntax error, which the C decoder has already described.
    """
    stack: list[_Open] = []
    path: JsonPath = ()
    pos = _skip(text, 0)
    while True:
        yield path, pos
        start = pos
        char = text[pos : pos + 1]
        if char in ("[", "{") and char:
            if len(stack) >= MAX_DEPTH:
                yield LineRefused(pos + 1, (), f"nested more than {MAX_DEPTH} levels deep")
                return
            stack.append(_Open("]" if char == "[" else "}", path))
            pos = _skip(text, pos + 1)
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
            yield LineRefused(pos + 1, path, f"{constant} is not JSON (JSON has no NaN or infinity): write a number")
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
            pos = _skip(text, pos)
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
            step = _enter(text, _skip(text, pos + 1), top, next_item=True)
            if not isinstance(step, tuple):
                if step is not None:
                    yield step
                return
            path, pos = step
            break


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
            pos + 1, (*container.path, key), f"key {_shown(key)} is given twice (first at column {first}): give it once"
        )
    container.keys[key] = pos + 1
    colon = _skip(text, end)
    if text[colon : colon + 1] != ":":
        return None
    return (*container.path, key), _skip(text, colon + 1)


def _lone_surrogate(pos: int, path: JsonPath) -> LineRefused:
    return LineRefused(pos + 1, path, "a string holds a lone surrogate (\\ud800-\\udfff), which is no character")


def _skip(text: str, pos: int) -> int:
    match = _WHITESPACE.match(text, pos)
    return match.end() if match else pos


def _number_fault(token: str) -> str | None:
    digits = len(token.split(".")[0].split("e")[0].split("E")[0].lstrip("-"))
    if digits > _MAX_INT_DIGITS:
        return f"a number of {digits} digits is over the limit of {_MAX_INT_DIGITS}"
    if any(c in token for c in ".eE") and float(token) - float(token) != 0:
        return "this number is beyond the range of a double (it would be infinite)"
    return None
