"""All YAML reading in freezer goes through this module.

The loader is built on the event stream of PyYAML's parser (libyaml's C
parser when available) instead of ``yaml.load``, because ``yaml.load``
silently keeps the last of two duplicate keys, expands alias bombs without
bound and forgets where each value came from. Building values from events
lets us reject duplicates, bound depth and alias expansion, refuse every
tag that would construct something other than plain data, and remember the
line and column of each value for error messages.
"""

from __future__ import annotations

import codecs
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from yaml import events as ev
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.nodes import ScalarNode
from yaml.resolver import Resolver

from freezer import yamlfast
from freezer.document import YamlDocument
from freezer.escape import unsafe_char
from freezer.problems import JsonPath, Problem
from freezer.reading import ReadRefused, read_bounded

# libyaml's C parser when PyYAML was built with it; the pure-Python one otherwise.
_FastLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

YAML_SUFFIXES = (".yaml", ".yml")
MAX_BYTES = 1 << 20
MAX_NODES = 100_000
MAX_DEPTH = 64

_RESOLVER = Resolver()
# First characters for which an implicit resolver exists; a None key would mean "any first character".
_RESOLVED_FIRST = frozenset(key for key in Resolver.yaml_implicit_resolvers if key is not None)
_NO_WILDCARD_RESOLVER = None not in Resolver.yaml_implicit_resolvers
_CONSTRUCTOR = SafeConstructor()
_TAG = "tag:yaml.org,2002:"
_PLAIN_TAGS = {_TAG + t for t in ("str", "int", "float", "bool", "null", "timestamp")}
_COLLECTION_TAGS = frozenset({_TAG + "map", _TAG + "seq"})
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


@dataclass(frozen=True)
class Limits:
    """Bounds that keep a hostile file from exhausting time or memory."""

    max_bytes: int = MAX_BYTES
    max_nodes: int = MAX_NODES
    max_depth: int = MAX_DEPTH


@dataclass
class LoadResult:
    document: YamlDocument | None
    problems: list[Problem]


def read_bytes(path: Path, display: str, max_bytes: int) -> tuple[bytes | None, Problem | None]:
    """Read a regular file without ever blocking on a FIFO or device."""
    try:
        return read_bounded(path, max_bytes), None
    except ReadRefused as exc:
        message = str(exc).replace("expected a file", "expected a YAML file")
        return None, Problem(display, None, None, (), message, "file")


def decode(data: bytes, display: str) -> tuple[str | None, Problem | None]:
    """UTF-8 (with or without BOM) or UTF-16/32 with a BOM; anything else is refused."""
    encoding = "utf-8"
    for bom, name in _BOMS:
        if data.startswith(bom):
            encoding = name
            break
    try:
        return data.decode(encoding), None
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        col = exc.start - (before.rfind(b"\n") + 1) + 1
        bad = data[exc.start : exc.start + 1].hex()
        message = f"not valid {encoding.upper()}: byte 0x{bad} at offset {exc.start}; save the file as UTF-8"
        return None, Problem(display, line, col, (), message, "yaml")


def load_file(path: Path, display: str | None = None, limits: Limits = Limits()) -> LoadResult:
    display = display if display is not None else str(path)
    raw, problem = read_bytes(path, display, limits.max_bytes)
    if raw is None:
        assert problem is not None
        return LoadResult(None, [problem])
    return load_bytes(raw, display, limits)


def _tab_indented(text: str, line_index: int) -> bool:
    lines = text.splitlines()
    if not 0 <= line_index < len(lines):
        return False
    line = lines[line_index]
    return "\t" in line[: len(line) - len(line.lstrip(" \t"))]


def load_bytes(raw: bytes, display: str, limits: Limits = Limits()) -> LoadResult:
    text, problem = decode(raw, display)
    if text is None:
        assert problem is not None
        return LoadResult(None, [problem])
    data = _fast_data(text, limits)
    if data is not yamlfast.GIVE_UP:
        return LoadResult(YamlDocument(display, data, source=text), [])
    builder = _located(text, display, limits)
    if builder.problems:
        return LoadResult(None, builder.problems)
    return LoadResult(YamlDocument(display, builder.result, builder.marks), [])


def positions(text: str) -> dict[JsonPath, tuple[int, int]]:
    """Line and column of every value in ``text``, which loaded before; for YamlDocument.locate."""
    return _located(text, "", Limits()).marks


def _fast_data(text: str, limits: Limits) -> Any:
    """The data without positions, or GIVE_UP when the located builder must read it (and say why)."""
    if not _NO_WILDCARD_RESOLVER or unsafe_char(text) is not None:
        return yamlfast.GIVE_UP
    parser = _FastLoader(text)
    try:
        return yamlfast.build(
            parser.get_event,
            _resolve,
            _RESOLVED_FIRST,
            _COLLECTION_TAGS,
            limits.max_nodes,
            limits.max_depth,
            "\\" in text,
        )
    except (yaml.YAMLError, RecursionError):
        return yamlfast.GIVE_UP  # the located builder reports it
    finally:
        parser.dispose()


def _located(text: str, display: str, limits: Limits) -> _Builder:
    """Read ``text`` recording every position; problems (a syntax error too) are on the builder."""
    builder = _Builder(display, limits)
    parser = _FastLoader(text)
    try:
        # The parser is driven directly: yaml.parse's generator costs ~10% of loading a fixture.
        next_event, feed = parser.get_event, builder.feed
        while not builder.fatal and (event := next_event()) is not None:
            feed(event)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = " ".join(p for p in (exc.context, exc.problem) if p) or "YAML syntax error"
        line, col = (mark.line + 1, mark.column + 1) if mark else (None, None)
        if mark and _tab_indented(text, mark.line):
            what = "a tab in the indentation: YAML indents with spaces only (replace the tab with spaces)"
        builder.problems.append(Problem(display, line, col, (), f"YAML syntax: {what}", "yaml"))
    except yaml.reader.ReaderError as exc:
        before = text[: exc.position]
        line, col = before.count("\n") + 1, exc.position - (before.rfind("\n") + 1) + 1
        char = exc.character if isinstance(exc.character, str) else chr(exc.character)
        message = f"YAML: character #x{ord(char):04x} is not allowed ({exc.reason})"
        builder.problems.append(Problem(display, line, col, (), message, "yaml"))
    except yaml.YAMLError as exc:
        builder.problems.append(Problem(display, 1, 1, (), f"YAML: {' '.join(str(exc).split())}", "yaml"))
    except RecursionError:  # pragma: no cover - libyaml bounds nesting itself
        builder.problems.append(Problem(display, None, None, (), "YAML nested too deeply", "yaml"))
    finally:
        parser.dispose()
    return builder


class _Frame:
    __slots__ = ("anchor", "container", "firsts", "is_map", "key", "key_mark", "path", "weight")

    def __init__(self, container: Any, path: JsonPath, anchor: str | None) -> None:
        self.container = container
        self.path = path
        self.key: Any = _NO_KEY
        self.key_mark: tuple[int, int] = (0, 0)
        self.anchor = anchor
        self.weight = 1
        self.is_map = isinstance(container, dict)
        self.firsts: dict[str, int] = {}


_NO_KEY = object()


class _Builder:
    """Turns parser events into plain Python data, checking as it goes."""

    def __init__(self, display: str, limits: Limits) -> None:
        self.display = display
        self.limits = limits
        self.problems: list[Problem] = []
        self.stack: list[_Frame] = []
        self.anchors: dict[str, tuple[Any, int]] = {}
        self.marks: dict[JsonPath, tuple[int, int]] = {}
        self.nodes = 0
        self.documents = 0
        self.result: Any = None
        self.fatal = False

    def _problem(self, mark: Any, path: JsonPath, message: str) -> None:
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (None, None)
        self.problems.append(Problem(self.display, line, col, path, message, "yaml"))

    def _stop(self, mark: Any, path: JsonPath, message: str) -> None:
        self._problem(mark, path, message)
        self.fatal = True

    def _child_path(self) -> JsonPath | None:
        if not self.stack:
            return ()
        top = self.stack[-1]
        if top.is_map:
            if top.key is _NO_KEY:
                return None  # this value is a key
            return (*top.path, top.key)
        return (*top.path, len(top.container))

    def _count(self, weight: int, mark: Any) -> bool:
        self.nodes += weight
        if self.nodes > self.limits.max_nodes:
            self._stop(
                mark,
                self._child_path() or (),
                f"document expands to more than {self.limits.max_nodes} values "
                "(alias bomb or oversized data); refusing to load it",
            )
            return False
        return True

    def feed(self, event: Any) -> None:
        if isinstance(event, ev.ScalarEvent):
            self._scalar(event)
        elif isinstance(event, (ev.MappingStartEvent, ev.SequenceStartEvent)):
            self._start(event)
        elif isinstance(event, (ev.MappingEndEvent, ev.SequenceEndEvent)):
            frame = self.stack.pop()
            if frame.anchor is not None:
                self.anchors[frame.anchor] = (frame.container, frame.weight)
            self._attach(frame.container, frame.weight, event.start_mark, None)
        elif isinstance(event, ev.AliasEvent):
            found = self.anchors.get(event.anchor or "")
            if found is None:  # pragma: no cover - the parser rejects these first
                self._stop(event.start_mark, (), f"unknown alias *{event.anchor}")
                return
            value, weight = found
            if self._count(weight, event.start_mark):
                self._attach(value, weight, event.start_mark, event.start_mark)
        elif isinstance(event, ev.DocumentStartEvent):
            self.documents += 1
            if self.documents > 1:
                self._stop(event.start_mark, (), "expected one YAML document, found several")

    def _start(self, event: Any) -> None:
        tag = event.tag
        if tag is not None and tag not in _COLLECTION_TAGS:
            self._stop(event.start_mark, self._child_path() or (), _tag_message(tag))
            return
        if len(self.stack) >= self.limits.max_depth:
            self._stop(
                event.start_mark,
                self._child_path() or (),
                f"nested deeper than {self.limits.max_depth} levels",
            )
            return
        if not self._count(1, event.start_mark):
            return
        path = self._child_path()
        if path is None:
            self._stop(event.start_mark, self.stack[-1].path, "a mapping key must be a plain string")
            return
        self.marks.setdefault(path, (event.start_mark.line + 1, event.start_mark.column + 1))
        container: Any = {} if isinstance(event, ev.MappingStartEvent) else []
        self.stack.append(_Frame(container, path, event.anchor))

    def _scalar(self, event: Any) -> None:
        value = self._resolve(event)
        if self.fatal or not self._count(1, event.start_mark):
            return
        if isinstance(value, str):
            bad = unsafe_char(value)
            if bad is not None:
                path = self._child_path()
                what = "text" if path is not None else "key"
                self._problem(
                    event.start_mark,
                    path if path is not None else (*self.stack[-1].path, value),
                    f"the {what} holds the control character {bad}; freezer refuses control, bidirectional "
                    "and separator characters in data (they can forge terminal output or hide text)",
                )
        elif isinstance(value, float) and not math.isfinite(value):
            self._problem(
                event.start_mark,
                self._child_path() or (),
                f"{event.value!r} is not a finite number: NaN and infinities cannot be recorded",
            )
        if event.anchor is not None:
            self.anchors[event.anchor] = (value, 1)
        self._attach(value, 1, event.start_mark, event.start_mark)

    def _resolve(self, event: Any) -> Any:
        value, refusal = _resolve(event)
        if refusal is not None:
            self._stop(event.start_mark, self._child_path() or (), refusal)
            return None
        return value

    def _attach(self, value: Any, weight: int, mark: Any, value_mark: Any) -> None:
        if not self.stack:
            self.result = value
            if value_mark is not None:
                self.marks[()] = (value_mark.line + 1, value_mark.column + 1)
            return
        top = self.stack[-1]
        top.weight += weight
        if not top.is_map:
            if value_mark is not None:
                item_path = (*top.path, len(top.container))
                self.marks[item_path] = (value_mark.line + 1, value_mark.column + 1)
            top.container.append(value)
            return
        if top.key is _NO_KEY:
            self._set_key(top, value, mark)
            return
        top.container[top.key] = value
        top.key = _NO_KEY

    def _set_key(self, top: _Frame, key: Any, mark: Any) -> None:
        line = mark.line + 1
        if not isinstance(key, str):
            kind = "a boolean" if isinstance(key, bool) else type(key).__name__
            if key is None:
                kind = "null"
            self._problem(mark, top.path, f"mapping key {key!r} was read as {kind}; quote it to make it a string")
            key = str(key)
        if key in top.firsts:
            self._problem(
                mark,
                (*top.path, key),
                f"duplicate key {key!r} (first defined on line {top.firsts[key]}); "
                "YAML would silently keep only the last one",
            )
        else:
            top.firsts[key] = line
        top.key = key
        top.key_mark = (line, mark.column + 1)
        self.marks.setdefault((*top.path, key), top.key_mark)


def _resolve(event: Any) -> tuple[Any, str | None]:
    """A scalar's plain value, or why it is refused (a tag that builds something other than data)."""
    tag = event.tag
    value = event.value
    if tag is None:
        if not event.implicit[0] or (_NO_WILDCARD_RESOLVER and value and value[0] not in _RESOLVED_FIRST):
            # What Resolver.resolve would answer, without its per-scalar list building: quoted and
            # block scalars are strings, and so is a plain one whose first character starts no
            # implicit type.
            return value, None
        # A plain scalar's value depends on its text alone, and fixtures repeat the same short
        # words (keys, statuses, classes) thousands of times: resolve each text once.
        known = _PLAIN_VALUES.get(value)
        if known is not None:
            return known
        resolved = _resolve_tagged(None, value, event.implicit)
        if len(value) <= 64 and len(_PLAIN_VALUES) < 4096:
            _PLAIN_VALUES[value] = resolved
        return resolved
    return _resolve_tagged(tag, value, event.implicit)


_PLAIN_VALUES: dict[str, tuple[Any, str | None]] = {}


def _resolve_tagged(tag: str | None, value: str, implicit: tuple[bool, bool]) -> tuple[Any, str | None]:
    if tag is None or tag == "!":
        tag = _RESOLVER.resolve(ScalarNode, value, implicit)  # type: ignore[no-untyped-call]
    if tag not in _PLAIN_TAGS:
        return None, _tag_message(tag)
    if tag == _TAG + "str" or tag == _TAG + "timestamp":
        return value, None
    if tag == _TAG + "null":
        return None, None
    if tag == _TAG + "bool":
        return value.lower() in ("yes", "true", "on", "y"), None
    try:
        node = ScalarNode(tag, value)
        if tag == _TAG + "int":
            return _CONSTRUCTOR.construct_yaml_int(node), None
        return _CONSTRUCTOR.construct_yaml_float(node), None
    except (ConstructorError, ValueError):
        return None, f"{value!r} is not a {tag[len(_TAG) :]}"


def _tag_message(tag: str) -> str:
    shown = tag.replace(_TAG, "!!")
    return f"YAML tag {shown} is not allowed: fixture files hold plain data only"
