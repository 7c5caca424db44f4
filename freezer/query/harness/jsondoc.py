"""A harness's JSON file read whole and strictly, so that every refusal names ``file:line:col``.

lm-eval's results and Harbor's trial results are pretty-printed JSON documents, not JSON Lines:
a fault's place is a line and a column of the whole text. The same strict rules as a results row
hold (no NaN, no key given twice, freezer.parse.strictjson), and the file is read bounded, from a
regular file only (freezer.runtime.reading).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from freezer.domain.problems import JsonPath, Problem, display_path
from freezer.parse import strictjson
from freezer.runtime.limits import MAX_METADATA_BYTES
from freezer.runtime.reading import ReadRefused, read_bounded

LAYER = "import"


class DocumentRefused(Exception):
    """The file could not be read as one strict JSON document; ``problem`` says where and why."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


@dataclass(frozen=True)
class JsonDocument:
    shown: str  # the file as the user names it
    text: str
    value: Any

    def where(self, path: JsonPath) -> tuple[int, int]:
        """The line and column where the value at ``path`` starts (1, 1 when it is not there)."""
        return _line_col(self.text, strictjson.value_column(self.text, path) - 1)

    def problem(self, path: JsonPath, message: str) -> Problem:
        line, col = self.where(path)
        return Problem(self.shown, line, col, path, message, LAYER)


def file_problem(path: Path | str, message: str) -> Problem:
    return Problem(display_path(path), None, None, (), message, LAYER)


def _line_col(text: str, offset: int) -> tuple[int, int]:
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def load(path: Path) -> JsonDocument:
    """The strict JSON document of ``path``, or :class:`DocumentRefused` with its place."""
    shown = display_path(path)
    try:
        raw = read_bounded(path, MAX_METADATA_BYTES)
    except ReadRefused as exc:
        raise DocumentRefused(file_problem(path, str(exc))) from None
    try:
        value = strictjson.parse_line(raw)
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
        raise DocumentRefused(Problem(shown, *where, exc.path, exc.message, LAYER)) from None
    return JsonDocument(shown, raw.decode("utf-8"), value)
