"""lm-evaluation-harness task YAML as data: YAML in which a ``!function module.name`` scalar is a
:class:`FunctionRef` (never imported, never executed); every other tag is refused as in any YAML
freezer reads (:mod:`freezer.parse.yamlhazards`). What the tags and ``include:`` name is resolved
by :mod:`freezer.parse.lmeval`.
"""

from pathlib import Path
from typing import Any, NamedTuple

import yaml
from yaml import events as ev

from freezer.domain.escape import unsafe_char
from freezer.domain.findings import JsonPath
from freezer.domain.problems import Problem, display_path
from freezer.parse import yamlhazards, yamlload
from freezer.parse.document import YamlDocument
from freezer.parse.yamlbuild import LocatedBuilder
from freezer.parse.yamllocate import DEFAULT_LIMITS, FastLoader, Limits, located

FUNCTION_TAG = "!function"
_ALLOWED = yamlhazards.tag_message(FUNCTION_TAG)


class FunctionRef(NamedTuple):
    """A ``!function module.name`` tag, as written (``raw``); never imported."""

    module: str  # "" when the tag names no module
    name: str
    raw: str

    @classmethod
    def parse(cls, raw: str) -> "FunctionRef":
        module, _, name = raw.rpartition(".")
        return cls(module, name, raw)

    def as_json(self) -> dict[str, str]:
        """The reference as JSON: how it is hashed, diffed and shown (:func:`freezer.kinds.lmeval.as_json`)."""
        return {FUNCTION_TAG: self.raw}


# -- YAML with !function -----------------------------------------------------------------------


class _FunctionBuilder(LocatedBuilder):
    """The located builder, taking a ``!function`` scalar as a :class:`FunctionRef`; every other tag
    is refused as before."""

    def feed(self, event: Any) -> None:
        if not isinstance(event, ev.ScalarEvent) or event.tag != FUNCTION_TAG:
            super().feed(event)
            return
        if self.flow_depth:
            self._flow_question(event)
        mark = event.start_mark
        if not self._count(mark):
            return
        if self._child_path() is None:
            self._problem(mark, self._where(event.value), "a !function cannot be a mapping key; remove the tag")
            self._attach(event.value, mark, mark)
            return
        path = self._where(event.value)
        if event.anchor is not None:
            self._problem(mark, path, yamlhazards.anchor_message(event.anchor, None, None))
        bad = unsafe_char(event.value)
        if bad is not None:
            self._problem(mark, path, f"the !function name holds the control character {bad}")
        self._attach(FunctionRef.parse(event.value), mark, mark)


def load_bytes(raw: bytes, display: str, limits: Limits = DEFAULT_LIMITS) -> yamlload.LoadResult:
    """:func:`freezer.parse.yamlload.load_bytes`, with ``!function`` scalars read as :class:`FunctionRef`."""
    if (large := yamlload.too_large(raw, display, limits)) is not None:
        return yamlload.LoadResult(None, [large])
    text, problem = yamlload.decode(raw, display)
    if text is None:
        assert problem is not None
        return yamlload.LoadResult(None, [problem])
    if FUNCTION_TAG not in text:  # the common file: the fast path
        return yamlload.load_bytes(raw, display, limits)
    if yamlhazards.text_hazard(text) is None:
        builder: LocatedBuilder | None = _FunctionBuilder(display, text, limits.max_nodes, limits.max_depth)
        parser = FastLoader(text)
        try:
            while builder is not None and not builder.fatal and (event := parser.get_event()) is not None:
                builder.feed(event)
        except (yaml.YAMLError, RecursionError):
            builder = None  # the located reading below words it
        finally:
            parser.dispose()
        if builder is not None:
            if builder.problems:
                return yamlload.LoadResult(None, builder.problems)
            return yamlload.LoadResult(YamlDocument(display, builder.result, builder.marks), [])
    # A syntax error, or text that reads other than it looks: the plain located reading says where and
    # why; its refusal of the !function tags is not freezer's word on an lm-eval file.
    problems = [p for p in located(text, display, limits).problems if p.message != _ALLOWED]
    return yamlload.LoadResult(None, problems or [Problem(display, 1, 1, (), "YAML syntax error", "yaml")])


def load_file(path: Path, display: str | None = None, limits: Limits = DEFAULT_LIMITS) -> yamlload.LoadResult:
    display = display if display is not None else display_path(path)
    raw, problem = yamlload.read_bytes(path, display, limits.max_bytes)
    if raw is None:
        assert problem is not None
        return yamlload.LoadResult(None, [problem])
    return load_bytes(raw, display, limits)


def functions(data: Any) -> list[tuple[JsonPath, FunctionRef]]:
    """Every :class:`FunctionRef` in ``data`` with its path, in the order written (no recursion)."""
    found: list[tuple[JsonPath, FunctionRef]] = []
    stack: list[tuple[JsonPath, Any]] = [((), data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, FunctionRef):
            found.append((path, value))
        elif isinstance(value, dict):
            stack.extend(reversed([((*path, key), item) for key, item in value.items()]))
        elif isinstance(value, list):
            stack.extend(reversed([((*path, index), item) for index, item in enumerate(value)]))
    return found
