"""The located builder: plain data from parser events, the position of every value, and every problem.

Building values from events (instead of ``yaml.load``) lets freezer refuse
duplicate keys, which ``yaml.load`` silently resolves to the last; refuse
anchors, aliases, tags and directives (``freezer.parse.yamlhazards``) and scalars
that YAML 1.1 and 1.2 read differently (``freezer.parse.yamlscalars``) where they
are written; bound depth and size; and remember the line and column of each
value for messages. Problems are collected, not raised, so one pass shows
every mistake in a file (up to :data:`MAX_LISTED_PROBLEMS`).
"""

from __future__ import annotations

from typing import Any

from yaml import events as ev

from freezer.domain.escape import unsafe_char
from freezer.domain.findings import JsonPath
from freezer.domain.problems import Problem
from freezer.parse import yamlhazards
from freezer.parse.yamlscalars import resolve
from freezer.runtime.limits import MAX_LISTED_PROBLEMS


class _Frame:
    __slots__ = ("container", "firsts", "flow", "is_map", "key", "path")

    def __init__(self, container: Any, path: JsonPath, flow: bool) -> None:
        self.container = container
        self.path = path
        self.flow = flow
        self.key: Any = _NO_KEY
        self.is_map = isinstance(container, dict)
        self.firsts: dict[str, int] = {}


_NO_KEY = object()
_NODES = (ev.ScalarEvent, ev.MappingStartEvent, ev.SequenceStartEvent, ev.AliasEvent)


class LocatedBuilder:
    """Turns parser events into plain Python data, checking as it goes."""

    def __init__(self, display: str, text: str, max_nodes: int, max_depth: int) -> None:
        self.display = display
        self.text = text
        self.max_nodes = max_nodes
        self.max_depth = max_depth
        self.problems: list[Problem] = []
        self.stack: list[_Frame] = []
        self.marks: dict[JsonPath, tuple[int, int]] = {}
        self.nodes = 0
        self.documents = 0
        self.flow_depth = 0
        self.result: Any = None
        self.fatal = False

    def add(self, line: int | None, col: int | None, path: JsonPath, message: str) -> None:
        if len(self.problems) > MAX_LISTED_PROBLEMS:
            return
        if len(self.problems) == MAX_LISTED_PROBLEMS:
            message = f"more than {MAX_LISTED_PROBLEMS} problems in this file; stopped here (fix those above first)"
            self.fatal = True
        self.problems.append(Problem(self.display, line, col, path, message, "yaml"))

    def _problem(self, mark: Any, path: JsonPath, message: str) -> None:
        self.add(mark.line + 1, mark.column + 1, path, message)

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

    def _where(self, key: str | None = None) -> JsonPath:
        """The path of the node being read; a key is named by its own text."""
        path = self._child_path()
        if path is None:
            return (*self.stack[-1].path, key) if key is not None else self.stack[-1].path
        return path

    def _count(self, mark: Any) -> bool:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            self._stop(
                mark,
                self._child_path() or (),
                f"document holds more than {self.max_nodes} values; refusing to load it (split the data)",
            )
            return False
        return True

    def feed(self, event: Any) -> None:
        if self.flow_depth and isinstance(event, _NODES):
            self._flow_question(event)
        if isinstance(event, ev.ScalarEvent):
            self._scalar(event)
        elif isinstance(event, (ev.MappingStartEvent, ev.SequenceStartEvent)):
            self._start(event)
        elif isinstance(event, (ev.MappingEndEvent, ev.SequenceEndEvent)):
            frame = self.stack.pop()
            self.flow_depth -= frame.flow
            self._attach(frame.container, event.start_mark, None)
        elif isinstance(event, ev.AliasEvent):
            written = f"*{event.anchor}"  # never expanded: the alias stands for its own text
            self._problem(event.start_mark, self._where(written), yamlhazards.alias_message(event.anchor or ""))
            if self._count(event.start_mark):
                self._attach(written, event.start_mark, event.start_mark)
        elif isinstance(event, ev.DocumentStartEvent):
            self.documents += 1
            if self.documents > 1:
                self._stop(event.start_mark, (), "expected one YAML document, found several")
            elif event.version is not None or event.tags:
                self._problem(event.start_mark, (), yamlhazards.directive_message(event.version, event.tags))

    def _flow_question(self, event: Any) -> None:
        """A node right after a "?" in a flow collection: libyaml read the "?" as a key indicator."""
        start, end = event.start_mark, event.end_mark
        if start.index < 1 or self.text[start.index - 1] != "?":
            return
        if isinstance(event, ev.ScalarEvent) and not event.value and not event.style:
            return  # "[?]": an empty key, which YAML 1.2 reads alike
        if isinstance(event, ev.ScalarEvent) and start.line == end.line:
            written = self.text[start.index : end.index]
        else:  # a collection, or a scalar over several lines: what its line shows
            line_end = self.text.find("\n", start.index)
            written = self.text[start.index : line_end if line_end >= 0 else len(self.text)]
        where = self._where(event.value if isinstance(event, ev.ScalarEvent) else None)
        self.add(start.line + 1, start.column, where, yamlhazards.flow_question_message(written))

    def _start(self, event: Any) -> None:
        if len(self.stack) >= self.max_depth:
            self._stop(event.start_mark, self._child_path() or (), f"nested deeper than {self.max_depth} levels")
            return
        if not self._count(event.start_mark):
            return
        path = self._child_path()
        if path is None:
            self._stop(event.start_mark, self.stack[-1].path, "a mapping key must be a plain string")
            return
        if event.anchor is not None:
            self._problem(event.start_mark, path, yamlhazards.anchor_message(event.anchor, None, None))
        if event.tag is not None:
            self._problem(event.start_mark, path, yamlhazards.tag_message(event.tag, scalar=False))
        self.marks.setdefault(path, (event.start_mark.line + 1, event.start_mark.column + 1))
        container: Any = {} if isinstance(event, ev.MappingStartEvent) else []
        flow = bool(event.flow_style)
        self.flow_depth += flow
        self.stack.append(_Frame(container, path, flow))

    def _scalar(self, event: Any) -> None:
        if not self._count(event.start_mark):
            return
        value, refusal = resolve(event)
        if event.anchor is not None:
            plain = not event.style and event.tag is None and refusal is None
            self._problem(event.start_mark, self._where(event.value), self._anchor(event, value if plain else _NO_KEY))
        if refusal is not None:
            self._problem(event.start_mark, self._where(event.value), refusal)
        elif isinstance(value, str):
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
        self._attach(value, event.start_mark, event.start_mark)

    def _anchor(self, event: Any, value: Any) -> str:
        """The anchor's message; ``value`` is what a plain scalar would load as, or _NO_KEY."""
        if value is _NO_KEY:
            return yamlhazards.anchor_message(event.anchor, None, None)
        loads = "null" if value is None else yamlhazards.shown(value) if isinstance(value, str) else repr(value)
        start, end = event.start_mark, event.end_mark
        one_line = start.line == end.line and 0 <= start.index < end.index
        return yamlhazards.anchor_message(event.anchor, loads, self.text[start.index : end.index] if one_line else None)

    def _attach(self, value: Any, mark: Any, value_mark: Any) -> None:
        if not self.stack:
            self.result = value
            if value_mark is not None:
                self.marks[()] = (value_mark.line + 1, value_mark.column + 1)
            return
        top = self.stack[-1]
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
                f"duplicate key {shown_key(key)} (first defined on line {top.firsts[key]}); "
                "YAML would silently keep only the last one",
            )
        else:
            top.firsts[key] = line
        top.key = key
        self.marks.setdefault((*top.path, key), (line, mark.column + 1))


def shown_key(key: str) -> str:
    return yamlhazards.shown(key, 80)
