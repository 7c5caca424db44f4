"""A loaded document: plain data plus the line and column of every value.

Kept apart from the YAML loader so that the rules and the code checks,
which only read documents, do not import PyYAML.
"""

from __future__ import annotations

from typing import Any

from freezer.domain.findings import JsonPath
from freezer.domain.problems import Problem


class YamlDocument:
    """Plain data read from one file, with the position of every value.

    A document read from YAML text keeps the text (``source``), and works out
    the positions from it the first time a problem must be located: most
    documents never need them, and a worker process sends the text back
    faster than a table of positions.
    """

    def __init__(
        self,
        display: str,
        data: Any,
        marks: dict[JsonPath, tuple[int, int]] | None = None,
        source: str | None = None,
    ) -> None:
        self.display = display
        self.data = data
        self.marks = {} if marks is None else marks
        self.source = source

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.display!r}, {self.data!r})"

    def locate(self, path: JsonPath) -> tuple[int | None, int | None]:
        """Line and column (1-based) of the value at ``path`` or its nearest parent."""
        if self.source is not None:
            # PyYAML costs ~15 ms at start-up: the rules, which only read documents, never import it otherwise.
            from freezer.parse.yamllocate import positions

            # Once: an empty document has no positions, and must not be read again for each problem.
            self.marks, self.source = positions(self.source), None
        for cut in range(len(path), -1, -1):
            mark = self.marks.get(tuple(path[:cut]))
            if mark is not None:
                return mark
        return (1, 1)  # an empty document: the problem is at its start

    def problem(self, path: JsonPath, message: str, layer: str) -> Problem:
        line, col = self.locate(path)
        return Problem(self.display, line, col, tuple(path), message, layer)
