"""Rendering METHOD.md with Jinja2.

The fixture data is passed to the template as variables and is never parsed
as template code, so ``{{ 7*7 }}`` in a fixture stays literal. Filters escape
every piece of data for the Markdown context it lands in: table cells cannot
gain columns or rows, prose cannot open headings, lists, tables or HTML, and
verbatim blocks use a fence longer than any backtick run inside them.
Rendering is a pure function of its inputs.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from freezer.errors import FreezerError

if TYPE_CHECKING:
    from jinja2 import Environment, Template


class TemplateProblem(FreezerError):
    """The METHOD.md template is broken or reaches for something it may not."""


_HTML = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_BLOCK_START = re.compile(r"^(\s*)([#>+*=|~`-]|\d+[.)])")


def cell(value: Any) -> str:
    """A value made safe for one Markdown table cell."""
    if value is None:
        return "—"
    text = str(value).translate(_HTML)
    text = text.replace("\\", "\\\\").replace("|", "\\|").replace("`", "\\`")
    return " ".join(text.split()) or "—"


def text(value: Any) -> str:
    """Free text made safe as Markdown prose: no line can start a block construct."""
    out = []
    for line in str(value).translate(_HTML).replace("\\", "\\\\").replace("`", "\\`").split("\n"):
        line = line.replace("|", "\\|")
        out.append(_BLOCK_START.sub(lambda m: m.group(1) + "\\" + m.group(2), line.lstrip()))
    return "\n".join(out)


def fence(value: Any, info: str = "") -> str:
    """A fenced block holding ``value`` byte for byte."""
    body = str(value)
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    marks = "`" * max(3, longest + 1)
    return f"{marks}{info}\n{body}\n{marks}"


def code(value: Any) -> str:
    """Inline code that no backtick inside can close early."""
    body = " ".join(str(value).split())
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    marks = "`" * (longest + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{marks}{pad}{body}{pad}{marks}"


def render_method(template_text: str, context: dict[str, Any], template_name: str = "METHOD.md.j2") -> str:
    """Render the template; a broken template raises :class:`TemplateProblem` naming the line."""
    from jinja2 import TemplateError, TemplateSyntaxError

    try:
        rendered: str = _compiled(template_text).render(**context)
    except TemplateSyntaxError as exc:
        raise TemplateProblem(f"{template_name}:{exc.lineno}: template syntax error: {exc.message}") from None
    except TemplateError as exc:
        raise TemplateProblem(f"{template_name}: template failed to render: {exc}") from None
    return rendered if rendered.endswith("\n") else rendered + "\n"


@lru_cache(maxsize=8)
def _compiled(template_text: str) -> Template:
    """The template compiled once per process: an audit re-renders every version, and versions
    almost always carry the same template (compiling it costs ~50 ms, rendering ~1 ms)."""
    return _environment().from_string(template_text)


@lru_cache(maxsize=1)
def _environment() -> Environment:
    from jinja2 import StrictUndefined
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    # The sandbox also covers a registry's own template: it may format data, not reach into Python.
    env = ImmutableSandboxedEnvironment(
        undefined=StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update({"cell": cell, "text": text, "fence": fence, "code": code})
    return env
