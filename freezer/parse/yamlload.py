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

import codecs
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from freezer.domain.escape import unsafe_char
from freezer.domain.problems import Problem
from freezer.parse import yamlfast, yamlhazards
from freezer.parse.document import YamlDocument
from freezer.parse.yamllocate import DEFAULT_LIMITS, FastLoader, Limits, located
from freezer.parse.yamlscalars import NO_WILDCARD_RESOLVER, RESOLVED_FIRST, resolve
from freezer.runtime.reading import ReadRefused, read_bounded

# The located reading, under its old name (the agreement tests compare it with the fast path).
_located = located

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


class LoadResult(NamedTuple):
    """One YAML file read: its document, or the problems that kept it from being read."""

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


def load_file(path: Path, display: str | None = None, limits: Limits = DEFAULT_LIMITS) -> LoadResult:
    display = display if display is not None else str(path)
    raw, problem = read_bytes(path, display, limits.max_bytes)
    if raw is None:
        assert problem is not None
        return LoadResult(None, [problem])
    return load_bytes(raw, display, limits)


def too_large(raw: bytes, display: str, limits: Limits) -> Problem | None:
    """The problem of a document over ``limits.max_bytes`` (read by the caller, whatever bound it read
    with: the drafts and a frozen version are parsed alike), or None."""
    if len(raw) <= limits.max_bytes:
        return None
    message = f"file is {len(raw):,} bytes, over the {limits.max_bytes:,}-byte limit of a document of fields"
    return Problem(display, None, None, (), message, "file")


def load_bytes(raw: bytes, display: str, limits: Limits = DEFAULT_LIMITS) -> LoadResult:
    if (large := too_large(raw, display, limits)) is not None:
        return LoadResult(None, [large])
    text, problem = decode(raw, display)
    if text is None:
        assert problem is not None
        return LoadResult(None, [problem])
    data = _fast_data(text, limits)
    if data is not yamlfast.GIVE_UP:
        return LoadResult(YamlDocument(display, data, source=text), [])
    builder = located(text, display, limits)
    if builder.problems:
        return LoadResult(None, builder.problems)
    return LoadResult(YamlDocument(display, builder.result, builder.marks), [])


def _fast_data(text: str, limits: Limits) -> Any:
    """The data without positions, or GIVE_UP when the located builder must read it (and say why)."""
    # unsafe_char also finds every line break that only YAML sees (NEL, LS, PS, a lone CR).
    if not NO_WILDCARD_RESOLVER or unsafe_char(text) is not None or text.endswith((" ", "\t")):
        return yamlfast.GIVE_UP
    if "?" in text and yamlhazards.may_hold_flow_question(text):
        return yamlfast.GIVE_UP
    parser = FastLoader(text)
    try:
        return yamlfast.build(
            parser.get_event, resolve, RESOLVED_FIRST, limits.max_nodes, limits.max_depth, "\\" in text
        )
    except (yaml.YAMLError, RecursionError):
        return yamlfast.GIVE_UP  # the located builder reports it
    finally:
        parser.dispose()
