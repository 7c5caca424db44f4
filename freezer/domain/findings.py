"""A finding: where something is wrong, at which value, what, and how bad.

The one shape every check reports in. :class:`freezer.domain.problems.Problem` (validate,
config, status log, checkpoint) and :class:`freezer.registry.verdict.Failure` (audit) are built on
it, each keeping its own printed form and JSON fields; a reader that handles findings in general
reads :attr:`Finding.where`, :attr:`Finding.path`, :attr:`Finding.message` and
:attr:`Finding.severity`.
"""

from typing import Literal, NamedTuple

JsonPath = tuple[str | int, ...]
Severity = Literal["error", "warning"]


def format_json_path(path: JsonPath) -> str:
    """Render a path tuple as ``$.a.b[0]``; odd keys are quoted as ``$['a b']``."""
    out = ["$"]
    for part in path:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif part.isascii() and part.isidentifier():  # [A-Za-z_][A-Za-z0-9_]*, without a pattern to compile
            out.append(f".{part}")
        else:
            escaped = part.replace("\\", "\\\\").replace("'", "\\'")
            out.append(f"['{escaped}']")
    return "".join(out)


class Location(NamedTuple):
    """A place in a file: the file as shown, and the 1-based line and column when known."""

    file: str
    line: int | None = None
    col: int | None = None

    def __str__(self) -> str:
        """``file``, ``file:line`` or ``file:line:col``: as compilers and editors write it."""
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
            if self.col is not None:
                where += f":{self.col}"
        return where


class Finding(NamedTuple):
    """Where (file, line, column), at which value (a JSON path into the file's data), what, which check
    found it (``layer``: schema, yaml, rule, ...), how bad. Compared and sorted field by field.

    A NamedTuple, as every record on the hooks' paths is: a hook builds those classes at each start,
    and a frozen dataclass costs three to six times as much (docs/benchmarks.md, "Start-up of the hooks";
    tests/test_startup_imports.py keeps ``dataclasses`` off both paths)."""

    file: str
    line: int | None = None
    col: int | None = None
    path: JsonPath = ()
    message: str = ""
    layer: str = "rule"
    severity: Severity = "error"

    @property
    def where(self) -> Location:
        return Location(self.file, self.line, self.col)

    def location(self) -> str:
        return str(self.where)

    def path_text(self) -> str:
        return format_json_path(self.path)

    def __str__(self) -> str:
        return f"{self.location()}: {self.path_text()}: {self.message}"
