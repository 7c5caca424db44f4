"""All YAML reading in freezer goes through this module.

A file is read bounded (``freezer.runtime.reading``), decoded, checked for line
breaks that only YAML sees, and built from the event stream of libyaml's
parser, never with ``yaml.load``: first by the fast path
(``freezer.parse.yamlfast``: data alone, for the valid files that are almost all
of them), and when that gives up by the located builder
(``freezer.parse.yamlbuild``), which reports every problem where it is written.
Both resolve scalars through ``freezer.parse.yamlscalars``; what is refused
outright is in ``freezer.parse.yamlhazards``.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from freezer.domain.escape import unsafe_char
from freezer.domain.problems import JsonPath, Problem
from freezer.parse import yamlfast, yamlhazards
from freezer.parse.document import YamlDocument
from freezer.parse.yamlbuild import LocatedBuilder
from freezer.parse.yamlscalars import NO_WILDCARD_RESOLVER, RESOLVED_FIRST, resolve
from freezer.runtime.reading import ReadRefused, read_bounded

# libyaml's C parser when PyYAML was built with it; the pure-Python one otherwise.
_FastLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

YAML_SUFFIXES = (".yaml", ".yml")
MAX_BYTES = 1 << 20
MAX_NODES = 100_000
MAX_DEPTH = 64

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
    lines = text.split("\n")  # libyaml's lines: the file has no other line break by now
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
    # unsafe_char also finds every line break that only YAML sees (NEL, LS, PS, a lone CR).
    if not NO_WILDCARD_RESOLVER or unsafe_char(text) is not None or text.endswith((" ", "\t")):
        return yamlfast.GIVE_UP
    if "?" in text and yamlhazards.may_hold_flow_question(text):
        return yamlfast.GIVE_UP
    parser = _FastLoader(text)
    try:
        return yamlfast.build(
            parser.get_event, resolve, RESOLVED_FIRST, limits.max_nodes, limits.max_depth, "\\" in text
        )
    except (yaml.YAMLError, RecursionError):
        return yamlfast.GIVE_UP  # the located builder reports it
    finally:
        parser.dispose()


def _located(text: str, display: str, limits: Limits) -> LocatedBuilder:
    """Read ``text`` recording every position; problems (a syntax error too) are on the builder."""
    builder = LocatedBuilder(display, text, limits.max_nodes, limits.max_depth)
    found = yamlhazards.text_hazard(text)
    if found is not None:  # parsed, it would not read as it looks, and lines would drift from grep -n
        builder.add(*found[:2], (), found[2])
        return builder
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
        elif exc.context in ("while scanning an anchor", "while scanning an alias"):
            what += f"; {yamlhazards.SYNTAX_HINT}"
        builder.add(line, col, (), f"YAML syntax: {what}")
    except yaml.reader.ReaderError as exc:
        before = text[: exc.position]
        line, col = before.count("\n") + 1, exc.position - (before.rfind("\n") + 1) + 1
        char = exc.character if isinstance(exc.character, str) else chr(exc.character)
        builder.add(line, col, (), f"YAML: character #x{ord(char):04x} is not allowed ({exc.reason})")
    except yaml.YAMLError as exc:
        builder.add(1, 1, (), f"YAML: {' '.join(str(exc).split())}")
    except RecursionError:  # pragma: no cover - libyaml bounds nesting itself
        builder.add(None, None, (), "YAML nested too deeply")
    finally:
        parser.dispose()
    return builder
