"""Reading YAML text with the line and column of every value (and every problem).

The located builder (``freezer.parse.yamlbuild``) driven by libyaml's parser: what
:mod:`freezer.parse.yamlload` falls back to when the fast path gives up, and what a
:class:`freezer.parse.document.YamlDocument` reads its positions with the first time a
problem must be placed. Kept apart from the loader so that the document can import it
without the loader importing the document back.
"""

from typing import Any, NamedTuple

import yaml

from freezer.domain.findings import JsonPath
from freezer.parse import yamlhazards
from freezer.parse.yamlbuild import LocatedBuilder
from freezer.runtime.limits import MAX_DOCUMENT_BYTES, MAX_DOCUMENT_DEPTH, MAX_DOCUMENT_NODES

# libyaml's C parser when PyYAML was built with it; the pure-Python one otherwise.
FastLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

YAML_SUFFIXES = (".yaml", ".yml")


class Limits(NamedTuple):
    """Bounds that keep a hostile file from exhausting time or memory."""

    max_bytes: int = MAX_DOCUMENT_BYTES
    max_nodes: int = MAX_DOCUMENT_NODES
    max_depth: int = MAX_DOCUMENT_DEPTH


DEFAULT_LIMITS = Limits()


def positions(text: str) -> dict[JsonPath, tuple[int, int]]:
    """Line and column of every value in ``text``, which loaded before; for YamlDocument.locate."""
    return located(text, "", DEFAULT_LIMITS).marks


def _tab_indented(text: str, line_index: int) -> bool:
    lines = text.split("\n")  # libyaml's lines: the file has no other line break by now
    if not 0 <= line_index < len(lines):
        return False
    line = lines[line_index]
    return "\t" in line[: len(line) - len(line.lstrip(" \t"))]


def located(text: str, display: str, limits: Limits) -> LocatedBuilder:
    """Read ``text`` recording every position; problems (a syntax error too) are on the builder."""
    builder = LocatedBuilder(display, text, limits.max_nodes, limits.max_depth)
    found = yamlhazards.text_hazard(text)
    if found is not None:  # parsed, it would not read as it looks, and lines would drift from grep -n
        builder.add(*found[:2], (), found[2])
        return builder
    parser = FastLoader(text)
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
