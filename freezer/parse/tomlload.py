"""Reading TOML (a Harbor ``task.toml``) into the same loaded document the YAML loader gives.

The text goes through the standard library's ``tomllib`` (Python 3.11+), under the
bounds freezer puts on YAML (:class:`freezer.parse.yamllocate.Limits`): the file is
read bounded, from a regular file only; it is UTF-8 without a byte-order mark, as
TOML says (``tomllib`` refuses one too, so the benchmark's own tool could not read
it); no value nests deeper than ``max_depth`` containers (a table header such as
``[a.a.a...]`` nests without recursion, an inline ``[[[...]]]`` with it: both are
caught); the document holds at most ``max_nodes`` keys and values; no text or key
holds a character that :func:`freezer.domain.escape.unsafe_char` refuses (TOML lets
an escape such as ``"\\u001b"`` make one, and takes a bidirectional override as
written); no float is NaN or infinite and no integer leaves TOML's 64 bits (what
freezer cannot record, or another TOML reader would refuse). TOML has no tags,
anchors or directives. A date or time becomes its ISO 8601 text
(``datetime.isoformat()``), as a date stays text in YAML; the frozen bytes keep
its spelling. A syntax error becomes one :class:`~freezer.domain.problems.Problem`
at the line and column ``tomllib`` names.

``tomllib`` gives no positions, so a value's line is worked out from the text the
first time a problem must be placed (:func:`positions`), by a line scan that
knows table headers, arrays of tables and dotted keys: a key is placed where it
is written; a value inside an inline table or array, or a line of a multi-line
string, is placed at the key that holds it (``YamlDocument.locate`` falls back to
the nearest parent).
"""

from __future__ import annotations

import datetime
import math
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from freezer.domain.escape import unsafe_char
from freezer.domain.findings import JsonPath
from freezer.domain.problems import Problem
from freezer.parse.document import YamlDocument
from freezer.parse.yamlload import LoadResult, too_large
from freezer.parse.yamllocate import DEFAULT_LIMITS, Limits
from freezer.runtime.limits import MAX_LISTED_PROBLEMS
from freezer.runtime.reading import ReadRefused, read_bounded

if sys.version_info >= (3, 11):
    import tomllib

    _loads: Callable[[str], dict[str, Any]] | None = tomllib.loads
    _DecodeError: type[ValueError] = tomllib.TOMLDecodeError
else:  # pragma: no cover - the lead decides whether Python 3.10 stays supported
    _loads, _DecodeError = None, ValueError

TOML_SUFFIXES = (".toml",)
_INT64 = (-(1 << 63), (1 << 63) - 1)
_AT = re.compile(r"\s*\(at (?:line (\d+), column (\d+)|end of document)\)$")
_LONG_DIGITS = re.compile(r"[0-9_]{4300,}")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
# What a line scan must step over: strings (whose brackets, '=' and '#' are text), comments, brackets.
_TOKEN = re.compile(r'"""|\'\'\'|"(?:\\.|[^"\\\n])*"|\'[^\'\n]*\'|#[^\n]*|[\[\]{}]')


class TomlDocument(YamlDocument):
    """A :class:`YamlDocument` read from TOML: its positions come from the TOML text, when first needed."""

    def __init__(self, display: str, data: Any, toml: str) -> None:
        super().__init__(display, data)
        self.toml: str | None = toml

    def locate(self, path: JsonPath) -> tuple[int | None, int | None]:
        if self.toml is not None:
            self.marks, self.toml = positions(self.toml), None
        return super().locate(path)


def load_file(path: Path, display: str | None = None, limits: Limits = DEFAULT_LIMITS) -> LoadResult:
    display = display if display is not None else str(path)
    try:
        raw = read_bounded(path, limits.max_bytes)
    except ReadRefused as exc:
        message = str(exc).replace("expected a file", "expected a TOML file")
        return LoadResult(None, [Problem(display, None, None, (), message, "file")])
    return load_bytes(raw, display, limits)


def load_bytes(raw: bytes, display: str, limits: Limits = DEFAULT_LIMITS) -> LoadResult:
    if (large := too_large(raw, display, limits)) is not None:
        return LoadResult(None, [large])
    if raw.startswith(b"\xef\xbb\xbf"):
        message = "starts with a byte-order mark: TOML is UTF-8 without one (tomllib refuses it); save it without"
        return LoadResult(None, [Problem(display, 1, 1, (), message, "toml")])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        line, col = before.count(b"\n") + 1, exc.start - (before.rfind(b"\n") + 1) + 1
        message = f"not valid UTF-8: byte 0x{raw[exc.start]:02x} at offset {exc.start}; save the file as UTF-8"
        return LoadResult(None, [Problem(display, line, col, (), message, "toml")])
    data, problem = _parse(text, display, limits)
    if problem is not None:
        return LoadResult(None, [problem])
    document = TomlDocument(display, data, toml=text)
    problems = _Walk(document, limits).run()
    return LoadResult(None if problems else document, problems)


def _parse(text: str, display: str, limits: Limits) -> tuple[Any, Problem | None]:
    if _loads is None:  # pragma: no cover - Python 3.10
        return None, Problem(display, None, None, (), "reading TOML needs Python 3.11 or newer (tomllib)", "toml")
    try:
        return _loads(text), None
    except _DecodeError as exc:
        what = str(exc)
        found = _AT.search(what)
        if found is None:
            line, col = None, None
        elif found.group(1) is not None:
            line, col = int(found.group(1)), int(found.group(2))
        else:  # at the end of the document
            line, col = text.count("\n") + 1, len(text) - (text.rfind("\n") + 1) + 1
        message = what[: found.start()] if found else what
        return None, Problem(display, line, col, (), f"TOML syntax: {message}", "toml")
    except RecursionError:
        line, col = _too_deep_at(text, limits.max_depth - 1)  # the root table is a level
        return None, Problem(display, line, col, (), f"nested deeper than {limits.max_depth} levels", "toml")
    except ValueError:  # an integer of more digits than Python converts
        long = _LONG_DIGITS.search(text)
        line, col = _line_col(text, long.start()) if long else (None, None)
        message = "an integer of more than 4300 digits: TOML integers are 64-bit; write it as text"
        return None, Problem(display, line, col, (), message, "toml")


def _line_col(text: str, index: int) -> tuple[int, int]:
    return text.count("\n", 0, index) + 1, index - (text.rfind("\n", 0, index) + 1) + 1


def _too_deep_at(text: str, max_depth: int) -> tuple[int | None, int | None]:
    """Where inline arrays and tables first nest deeper than ``max_depth`` (strings and comments skipped)."""
    depth = 0
    for token in _TOKEN.finditer(text):
        char = token.group()
        if char in "[{":
            depth += 1
            if depth > max_depth:
                return _line_col(text, token.start())
        elif char in "]}":
            depth -= 1
    return None, None


class _Walk:
    """Checks the loaded data, without recursion (a table header can nest thousands deep), in place:
    dates and times become text."""

    def __init__(self, document: TomlDocument, limits: Limits) -> None:
        self.document, self.limits = document, limits
        self.problems: list[Problem] = []
        self.nodes = 0

    def add(self, path: JsonPath, message: str) -> bool:
        """Record a problem; False once there are too many to go on."""
        if len(self.problems) >= MAX_LISTED_PROBLEMS:
            return False
        self.problems.append(self.document.problem(path[: self.limits.max_depth + 1], message, "toml"))
        return True

    def run(self) -> list[Problem]:
        stack: list[tuple[Any, JsonPath]] = [(self.document.data, ())]
        while stack:
            container, path = stack.pop()
            if len(path) >= self.limits.max_depth:
                message = f"nested deeper than {self.limits.max_depth} levels"
                line, col = _too_deep_at(self.document.toml or "", self.limits.max_depth - 1 - len(self._table(path)))
                if line is None:  # deep through table headers: at the header
                    self.add(path, message)
                else:  # deep through inline arrays and tables: at the bracket
                    self.problems.append(Problem(self.document.display, line, col, path, message, "toml"))
                return self.problems
            items = container.items() if isinstance(container, dict) else enumerate(container)
            children: list[tuple[Any, JsonPath]] = []
            for key, value in list(items):
                self.nodes += 2 if isinstance(key, str) else 1
                if self.nodes > self.limits.max_nodes:
                    message = f"document holds more than {self.limits.max_nodes} values; refusing to load it"
                    self.add(path, message + " (split the data)")
                    return self.problems
                where = (*path, key)
                if isinstance(key, str) and (bad := unsafe_char(key)) is not None:
                    self.add(where, _control("key", bad))
                if isinstance(value, (dict, list)):
                    children.append((value, where))
                elif not self._value(container, key, value, where):
                    return self.problems
            stack.extend(reversed(children))  # in the order written: problems come out in that order
        return self.problems

    def _table(self, path: JsonPath) -> JsonPath:
        """The part of ``path`` that table headers or dotted keys make: up to the first array."""
        cut = next((index for index, part in enumerate(path) if isinstance(part, int)), len(path))
        return path[: max(0, cut - 1)]

    def _value(self, container: Any, key: Any, value: Any, where: JsonPath) -> bool:
        if isinstance(value, str):
            bad = unsafe_char(value)
            return bad is None or self.add(where, _control("text", bad))
        if isinstance(value, float) and not math.isfinite(value):
            return self.add(where, f"{value!r} is not a finite number: NaN and infinities cannot be recorded")
        if isinstance(value, int) and not isinstance(value, bool) and not _INT64[0] <= value <= _INT64[1]:
            return self.add(where, "an integer beyond TOML's 64 bits (other TOML readers refuse it); write it as text")
        if isinstance(value, (datetime.date, datetime.time)):  # datetime is a date too
            container[key] = value.isoformat()
        return True


def _control(what: str, bad: str) -> str:
    return (
        f"the {what} holds the control character {bad}; freezer refuses control, bidirectional "
        "and separator characters in data (they can forge terminal output or hide text)"
    )


# -- positions ---------------------------------------------------------------------------------


def positions(text: str) -> dict[JsonPath, tuple[int, int]]:
    """Line and column of each table and key written in ``text`` (which loaded), for locate."""
    marks: dict[JsonPath, tuple[int, int]] = {(): (1, 1)}
    table: JsonPath = ()
    arrays: dict[JsonPath, int] = {}  # an array of tables (its path, indices included) -> tables so far
    closing: str | None = None  # the delimiter that ends the multi-line string we are in
    depth = 0  # of the brackets of a value written over several lines
    for number, line in enumerate(text.split("\n"), 1):
        if closing is not None or depth:
            closing, depth = _scan(line, closing, depth)
            continue
        stripped = line.lstrip(" \t")
        col = len(line) - len(stripped) + 1
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("["):
            own = stripped.startswith("[[")
            end = stripped.find("]]" if own else "]", 2 if own else 1)
            keys = _keys(stripped[2 if own else 1 : end]) if end > 0 else None
            if keys:
                table = _table_path(keys, arrays, own)
                for cut in range(1, len(table)):
                    marks.setdefault(table[:cut], (number, col))
                marks[table] = (number, col)
            continue
        equals = _equals(stripped)
        keys = _keys(stripped[:equals]) if equals > 0 else None
        if not keys:
            continue
        for cut in range(1, len(keys) + 1):
            marks.setdefault((*table, *keys[:cut]), (number, col))
        closing, depth = _scan(stripped[equals + 1 :], None, 0)
    return marks


def _table_path(keys: list[str], arrays: dict[JsonPath, int], own: bool) -> JsonPath:
    """The JSON path of a ``[a.b]`` (or, ``own``, ``[[a.b]]``) header: each array of tables on the way
    stands for its last table."""
    path: list[str | int] = []
    for index, key in enumerate(keys):
        path.append(key)
        if index == len(keys) - 1 and own:
            count = arrays.get(tuple(path), 0)
            arrays[tuple(path)] = count + 1
            path.append(count)
        elif tuple(path) in arrays:
            path.append(arrays[tuple(path)] - 1)
    return tuple(path)


def _scan(text: str, closing: str | None, depth: int) -> tuple[str | None, int]:
    """After ``text``: the multi-line string still open (its delimiter) and the bracket depth."""
    position = 0
    while True:
        if closing is not None:
            end = text.find(closing, position)
            if end < 0:
                return closing, depth
            position, closing = end + 3, None
        for token in _TOKEN.finditer(text, position):
            found = token.group()
            if found in ('"""', "'''"):
                closing, position = found, token.end()
                break
            if found in "[{":
                depth += 1
            elif found in "]}":
                depth = max(0, depth - 1)
        else:
            return None, depth


def _equals(text: str) -> int:
    """The index of the ``=`` that ends the key of a key/value line, or -1."""
    quote: str | None = None
    escaped = False
    for index, char in enumerate(text):
        if escaped:
            escaped = False
        elif quote is not None:
            if char == quote:
                quote = None
            elif char == "\\" and quote == '"':
                escaped = True
        elif char in "\"'":
            quote = char
        elif char == "=":
            return index
        elif char == "#":
            return -1
    return -1


def _keys(text: str) -> list[str] | None:
    """The parts of a dotted key as TOML reads them, or None when it is not one."""
    parts = [part.strip(" \t") for part in text.split(".")]
    if all(_BARE_KEY.fullmatch(part) for part in parts):
        return parts
    if _loads is None:  # pragma: no cover - Python 3.10, where no TOML file loads
        return None
    try:
        value: Any = _loads(f"{text.strip()} = 0")
    except (RecursionError, ValueError):  # TOMLDecodeError is a ValueError
        return None
    keys: list[str] = []
    while isinstance(value, dict) and len(value) == 1:
        key, value = next(iter(value.items()))
        keys.append(key)
    return keys or None
