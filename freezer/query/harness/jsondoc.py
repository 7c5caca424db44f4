"""A harness's JSON file read whole and strictly, so that every refusal names ``file:line:col``.

lm-eval's results and Harbor's trial results are pretty-printed JSON documents, not JSON Lines:
a fault's place is a line and a column of the whole text. The same strict rules as a results row
hold (no NaN, no key given twice, freezer.parse.strictjson), and the file is read bounded, from a
regular file only (freezer.runtime.reading).
"""

from __future__ import annotations

import bisect
import itertools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from freezer.domain.findings import JsonPath
from freezer.domain.problems import Problem, display_path
from freezer.parse import strictjson
from freezer.runtime.limits import MAX_METADATA_BYTES
from freezer.runtime.reading import ReadRefused, read_below, read_bounded

LAYER = "import"


class DocumentRefused(Exception):
    """The file could not be read as one strict JSON document; ``problem`` says where and why."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


@dataclass(frozen=True)
class JsonDocument:
    """A harness's file, parsed. Problems are located from indexes built once per document: the
    members of each container a problem's path passes through, and the offsets of the newlines, so
    that thousands of problems (a task per member) cost one pass over the text, not one each."""

    shown: str  # the file as the user names it
    text: str
    value: Any
    _members: dict[JsonPath, dict[str | int, int]] = field(default_factory=dict, repr=False, compare=False)
    _newlines: list[int] = field(default_factory=list, repr=False, compare=False)

    def where(self, path: JsonPath) -> tuple[int, int]:
        """The line and column where the value at ``path`` starts (1, 1 when it is not there)."""
        offset: int | None = strictjson.skip_space(self.text, 0)
        for depth, part in enumerate(path):
            assert offset is not None
            members = self._members.get(path[:depth])
            if members is None:
                members = self._members[path[:depth]] = strictjson.member_offsets(self.text, offset)
            offset = members.get(part)
            if offset is None:
                return 1, 1
        assert offset is not None
        if not self._newlines:
            # Each line's newline offset; the last "line" ends past the text: the list is never empty again.
            self._newlines.extend(itertools.accumulate(len(line) + 1 for line in self.text.split("\n")))
            self._newlines[:] = [end - 1 for end in self._newlines]
        before = bisect.bisect_left(self._newlines, offset)
        start = self._newlines[before - 1] + 1 if before else 0
        return before + 1, offset - start + 1

    def problem(self, path: JsonPath, message: str) -> Problem:
        line, col = self.where(path)
        return Problem(self.shown, line, col, path, message, LAYER)


def file_problem(path: Path | str, message: str) -> Problem:
    return Problem(display_path(path), None, None, (), message, LAYER)


def _line_col(text: str, offset: int) -> tuple[int, int]:
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def read_file(path: Path, below: Path | None, limit: int) -> bytes:
    """The bytes of a harness's file, bounded and never through a link: the file itself when the
    user named it, else every folder from ``below`` (the folder they named) down to it as well."""
    if below is None:
        return read_bounded(path, limit)
    return read_below(below, path.relative_to(below).parts, limit)


def load(path: Path, below: Path | None = None) -> JsonDocument:
    """The strict JSON document of ``path`` (read as :func:`read_file`), or :class:`DocumentRefused`
    with its place."""
    try:
        raw = read_file(path, below, MAX_METADATA_BYTES)
    except ReadRefused as exc:
        raise DocumentRefused(file_problem(path, str(exc))) from None
    return parse(path, raw)


# The strict parser reads the document as one line: the place of a key's first copy is a column of
# the whole text, which in a pretty-printed file only a line and a column can show.
_FIRST_AT = re.compile(r"\(first at column (\d+)\)")


def parse(path: Path, raw: bytes) -> JsonDocument:
    """The strict JSON document of the bytes ``raw``, already read from ``path``, or
    :class:`DocumentRefused` with its place."""
    shown = display_path(path)
    value = check(shown, raw)  # first: it refuses bytes that are not UTF-8, with their place
    return JsonDocument(shown, raw.decode("utf-8"), value)


def check(shown: str, raw: bytes) -> Any:
    """The value of ``raw`` if it is one strict JSON document, else :class:`DocumentRefused` with its
    place (``shown``, as the user should see it, then the line and column). A caller that only
    needs the verdict drops the value: a part of a file that another reader parses afterwards (a
    member of an Inspect archive)."""
    try:
        return strictjson.parse_line(raw)
    except strictjson.LineRefused as exc:
        text = raw.decode("utf-8", "replace")
        try:
            json.loads(text)
        except json.JSONDecodeError as syntax:  # the strict parser keeps only the column of a syntax error
            where = (syntax.lineno, syntax.colno)
        except (ValueError, RecursionError):
            where = _line_col(text, exc.col - 1)
        else:
            where = _line_col(text, exc.col - 1)  # a strict fault: its column counts from the file's start
        message = _FIRST_AT.sub(
            lambda first: "(first at line {}, column {})".format(*_line_col(text, int(first[1]) - 1)), exc.message
        )
        raise DocumentRefused(Problem(shown, *where, exc.path, message, LAYER)) from None
