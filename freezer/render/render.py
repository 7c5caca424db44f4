"""Rendering METHOD.md with Jinja2.

The fixture data is passed to the template as variables and is never parsed
as template code, so ``{{ 7*7 }}`` in a fixture stays literal. Filters escape
every piece of data for the Markdown context it lands in: table cells cannot
gain columns or rows, prose cannot open headings, lists, tables or HTML, and
verbatim blocks use a fence longer than any backtick run inside them. Since
Markdown rules 3, neither can open any inline markup: no link, image,
autolink, reference definition, emphasis or code span, in CommonMark or in
GitHub's Markdown. Each version records the rules it was rendered with, so an
old METHOD.md re-renders byte for byte. Rendering is a pure function of its
inputs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from freezer.domain.errors import FreezerError
from freezer.domain.escape import visible
from freezer.domain.jsontypes import JsonValue
from freezer.runtime import bounded, resources
from freezer.runtime.limits import MAX_TEMPLATE_BYTES

if TYPE_CHECKING:
    from jinja2 import BaseLoader, Environment, Template


class TemplateProblem(FreezerError):
    """The METHOD.md template is broken or reaches for something it may not."""


_HTML = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_LINE_END = re.compile(r"\r\n|\r|\n")
_BLOCK_START = re.compile(r"^(\s*)([#>+*=|~`-]|\d+[.)])")


def cell(value: Any) -> str:
    """A value made safe for one Markdown table cell."""
    if value is None:
        return "—"
    text = visible(" ".join(str(value).split())).translate(_HTML)
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("`", "\\`") or "—"


def text(value: Any) -> str:
    """Free text made safe as Markdown prose: no line can start a block construct."""
    out = []
    # CommonMark ends a line at LF, CR or CRLF: a bare CR must not smuggle in a heading.
    for line in _LINE_END.split(str(value)):
        line = visible(line).translate(_HTML).replace("\\", "\\\\").replace("`", "\\`")
        line = line.replace("|", "\\|")
        out.append(_BLOCK_START.sub(lambda m: m.group(1) + "\\" + m.group(2), line.lstrip()))
    return "\n".join(out)


_ORDERED = re.compile(r"^(\s*\d+)([.)])")
_OTHER_BLOCK = re.compile(r"^(\s*)([#>+*=|~`-])")


def text_v2(value: Any) -> str:
    """Free text as Markdown prose, as versions cut by freezer 0.2 render it: no line can start a
    block construct, an ordered-list marker is escaped at its punctuation (``1\\.``, which
    CommonMark shows as "1."; 0.1 put the backslash before the digit, which shows), and each
    line break is a hard break, so a list typed as lines stays one item per line."""
    lines = []
    for line in _LINE_END.split(str(value)):
        line = visible(line).translate(_HTML).replace("\\", "\\\\").replace("`", "\\`").replace("|", "\\|")
        line = line.lstrip()
        line = _ORDERED.sub(lambda m: m.group(1) + "\\" + m.group(2), line)
        lines.append(_OTHER_BLOCK.sub(lambda m: m.group(1) + "\\" + m.group(2), line))
    out = []
    for index, line in enumerate(lines):
        follows = index + 1 < len(lines) and lines[index + 1] != ""
        out.append(line + ("\\" if line and follows else ""))
    return "\n".join(out)


# The Markdown rules newly cut versions render with, recorded in the manifest (checks.markdown_rules).
MARKDOWN_RULES = 4
# Rules a manifest can record (1 and 2 are never recorded: the manifest format implies them).
RECORDED_MARKDOWN_RULES = (3, 4)

# Every character that can open inline markup in CommonMark or in GitHub's Markdown, escaped
# where it could: backslash escapes, code spans, emphasis and strikethrough (``*``, ``~``, and
# ``_`` unless between two letters or digits, where CommonMark's flanking rules never let it open
# or close emphasis), links, images, footnotes and reference definitions (``[``, ``]``, and ``!``
# before ``[``), GitHub's math (``$``) and the table pipe. ``<``, ``>`` and ``&`` (autolinks, raw
# HTML, entities) become entities first. ``(`` opens nothing once no ``]`` can precede it.
_INLINE = re.compile(r"[\\`*~\[\]|$]|!(?=\[)|_(?:(?<![^\W_]_)|(?![^\W_]))")
# GitHub's bare-URL autolinks start at a scheme's "://" or at "www.": escaping that colon or dot
# keeps the text plain there and shows it unchanged.
_BARE_URL = re.compile(r":(?=//)|\.(?<=[wW]{3}\.)")


def _escaped(match: re.Match[str]) -> str:
    return "\\" + match.group()


def _inline_plain(line: str) -> str:
    text = visible(line).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    # Most values (a status, a class, a version name) hold nothing to escape: skip the substitution.
    if _INLINE.search(text):
        text = _INLINE.sub(_escaped, text)
    return _BARE_URL.sub(_escaped, text) if _BARE_URL.search(text) else text


def cell_v3(value: Any) -> str:
    """A value made safe for one Markdown table cell, as Markdown rules 3 render it: besides the
    pipe, every character that could open inline markup is escaped, so a cell never holds a link
    or an image."""
    if value is None:
        return "—"
    return _inline_plain(" ".join(str(value).split())) or "—"


def text_v3(value: Any) -> str:
    """Free text as Markdown prose, as Markdown rules 3 render it: :func:`text_v2`'s block rules
    (no line can start a block construct, each line break is a hard break), and no character can
    open inline markup, so the text never becomes a link, an image or an autolink."""
    lines = []
    for line in _LINE_END.split(str(value)):
        line = _inline_plain(line).lstrip()
        line = _ORDERED.sub(lambda m: m.group(1) + "\\" + m.group(2), line)
        lines.append(_OTHER_BLOCK.sub(lambda m: m.group(1) + "\\" + m.group(2), line))
    out = []
    for index, line in enumerate(lines):
        follows = index + 1 < len(lines) and lines[index + 1] != ""
        out.append(line + ("\\" if line and follows else ""))
    return "\n".join(out)


# Rules 4 escape only what would act: ``&`` where it would start an entity, ``<`` where it would
# open raw HTML or an autolink, a backslash where it would escape the next character (before ASCII
# punctuation, or at a line's end, a hard break); the rest of rules 3's set as before. A word that
# holds a backslash before punctuation (a regex, a path) becomes a code span instead: the raw text
# then reads exactly as it renders, with no doubled backslash.
_INLINE_V4 = re.compile(
    r"&(?=#?[0-9A-Za-z]+;)|<(?=[A-Za-z/!?])|\\(?=[!-/:-@\[-`{-~]|$)|[`*~\[\]|$]|!(?=\[)|_(?:(?<![^\W_]_)|(?![^\W_]))"
)
_ESCAPING_BACKSLASH = re.compile(r"\\[!-/:-@\[-`{-~]")
_WORDS = re.compile(r"(\s+)")
# Every character any of the three patterns above needs: a word (or a whole line) without one is
# left as it is, which is most of them (a METHOD.md of 10,000 fixtures escapes 500,000 values).
_MAY_ACT = re.compile(r"[&<\\`*~\[\]|$!_]|:(?=//)|(?<=[wW]{3})\.")


def _inline_v4(line: str) -> str:
    text = visible(line)
    if not _MAY_ACT.search(text):
        return text
    out = []
    for word in _WORDS.split(text):
        if not _MAY_ACT.search(word):
            out.append(word)
            continue
        # A backtick or a pipe inside a code span would need escaping there too: such a word stays prose.
        if _ESCAPING_BACKSLASH.search(word) and "`" not in word and "|" not in word:
            out.append(f"`{word}`")
            continue
        word = _INLINE_V4.sub(_escaped, word) if _INLINE_V4.search(word) else word
        out.append(_BARE_URL.sub(_escaped, word) if _BARE_URL.search(word) else word)
    return "".join(out)


def cell_v4(value: Any) -> str:
    """A value made safe for one Markdown table cell, as Markdown rules 4 render it: no markup can
    open, and the raw cell reads as the rendered one (no entities, no doubled backslashes)."""
    if value is None:
        return "—"
    escaped = _inline_v4(" ".join(str(value).split()))
    # A cell's value can open a list item's line, where ">" would start a block quote.
    return ("\\" + escaped if escaped.startswith(">") else escaped) or "—"


def text_v4(value: Any) -> str:
    """Free text as Markdown prose, as Markdown rules 4 render it: :func:`text_v3`'s block rules and
    hard breaks, with :func:`cell_v4`'s inline escaping."""
    lines = []
    for line in _LINE_END.split(str(value)):
        line = _inline_v4(line).lstrip()
        if not line.startswith("`"):  # a code span of ours: a single backtick opens no block
            line = _ORDERED.sub(lambda m: m.group(1) + "\\" + m.group(2), line)
            line = _OTHER_BLOCK.sub(lambda m: m.group(1) + "\\" + m.group(2), line)
        lines.append(line)
    out = []
    for index, line in enumerate(lines):
        follows = index + 1 < len(lines) and lines[index + 1] != ""
        out.append(line + ("\\" if line and follows else ""))
    return "\n".join(out)


def _recorded_rules(context: Any) -> Any:
    # From the render's arguments, not the template's own variables: a template cannot choose
    # weaker rules than its version records.
    return context.parent.get("markdown_rules", 1)


def _text_filter(context: Any, value: Any) -> str:
    """Versions record which Markdown rules rendered them, so an old METHOD.md re-renders unchanged."""
    rules = _recorded_rules(context)
    if rules >= 4:
        return text_v4(value)
    if rules >= 3:
        return text_v3(value)
    return text_v2(value) if context.get("markdown_rules", 1) >= 2 else text(value)


def _cell_filter(context: Any, value: Any) -> str:
    rules = _recorded_rules(context)
    if rules >= 4:
        return cell_v4(value)
    return cell_v3(value) if rules >= 3 else cell(value)


def fence(value: Any, info: str = "") -> str:
    """A fenced block holding ``value`` byte for byte."""
    body = str(value)
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    marks = "`" * max(3, longest + 1)
    return f"{marks}{info}\n{body}\n{marks}"


def code(value: Any) -> str:
    """Inline code that no backtick inside can close early."""
    body = visible(" ".join(str(value).split()))
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    marks = "`" * (longest + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{marks}{pad}{body}{pad}{marks}"


# Bounds for a template that did not ship with this freezer (a registry's own, or an old frozen copy).
RENDER_SECONDS = float(os.environ.get("FREEZER_RENDER_SECONDS", "20"))
RENDER_MEMORY = 512 << 20


def render_method(template_text: str, context: Mapping[str, JsonValue], template_name: str = "METHOD.md.j2") -> str:
    """Render the template; a broken or runaway template raises :class:`TemplateProblem` naming it.

    The shipped template renders in-process. Any other runs in a forked child bounded in time
    and memory (:mod:`freezer.runtime.bounded`), so a registry template cannot hang or exhaust a cut,
    an audit or the pre-merge check.
    """
    if len(template_text) > MAX_TEMPLATE_BYTES:
        raise TemplateProblem(f"{template_name}: the template is larger than {MAX_TEMPLATE_BYTES >> 10} KiB")
    if template_text == _shipped():
        rendered = _render(template_text, context, template_name)
    else:
        # Compiled in the child too: Jinja2 evaluates constant expressions while it compiles,
        # so compiling an untrusted template is as dangerous as rendering it.
        rendered = _bounded(template_text, context, template_name)
    return rendered if rendered.endswith("\n") else rendered + "\n"


def render_delta_block(template_text: str, context: Mapping[str, JsonValue], template_name: str = "delta.md.j2") -> str:
    """The §Delta block, rendered from freezer's own delta template, exactly as it comes out:
    METHOD.md places it where its template writes ``{{ delta_block }}``."""
    if len(template_text) > MAX_TEMPLATE_BYTES:
        raise TemplateProblem(f"{template_name}: the template is larger than {MAX_TEMPLATE_BYTES >> 10} KiB")
    if template_text == _shipped_delta():
        return _render(template_text, context, template_name)
    return _bounded(template_text, context, template_name)


def render_preview(template_text: str, context: Mapping[str, JsonValue], template_name: str) -> str:
    """The template rendered with what the drafts give (``context``) and nothing for the rest: a
    name the context lacks renders as empty. Always in a bounded child: it is a suite's template."""
    if len(template_text) > MAX_TEMPLATE_BYTES:
        raise TemplateProblem(f"{template_name}: the template is larger than {MAX_TEMPLATE_BYTES >> 10} KiB")
    return _bounded(template_text, context, template_name, lenient=True)


def _bounded(template_text: str, context: Mapping[str, JsonValue], template_name: str, lenient: bool = False) -> str:
    """A template that did not ship with freezer, rendered in a forked child bounded in time and memory."""
    try:
        rendered: str = bounded.call_bounded(
            _render, template_text, context, template_name, lenient, seconds=RENDER_SECONDS, memory=RENDER_MEMORY
        )
    except bounded.BoundExceeded as exc:
        raise TemplateProblem(f"{template_name}: the template render {exc}; it was stopped") from None
    return rendered


def _compile_or_report(template_text: str, template_name: str, lenient: bool = False) -> Template:
    from jinja2 import TemplateSyntaxError  # Jinja2 costs ~40 ms at start-up: only when a template renders

    try:
        return _compiled(template_text, lenient)
    except TemplateSyntaxError as exc:
        raise TemplateProblem(f"{template_name}:{exc.lineno}: template syntax error: {exc.message}") from None
    except RecursionError:
        raise TemplateProblem(f"{template_name}: the template nests too deeply to compile") from None


def _render(template_text: str, context: Mapping[str, JsonValue], template_name: str, lenient: bool = False) -> str:
    template = _compile_or_report(template_text, template_name, lenient)
    try:
        rendered: str = template.render(**context)
    except TemplateProblem as exc:
        raise TemplateProblem(f"{template_name}: {exc.message}") from None
    except MemoryError:
        raise TemplateProblem(f"{template_name}: the template render needs more memory than it may use") from None
    except RecursionError:
        raise TemplateProblem(f"{template_name}: template failed to render: it recurses too deeply") from None
    except Exception as exc:  # noqa: BLE001 - a registry's template can fail in any way; report, never crash
        raise TemplateProblem(f"{template_name}: template failed to render: {type(exc).__name__}: {exc}") from None
    return rendered


def is_shipped(template_text: str) -> bool:
    """Whether ``template_text`` is the METHOD.md template this freezer ships."""
    return template_text == _shipped()


@lru_cache(maxsize=1)
def _shipped() -> str:
    return resources.template_text("METHOD.md.j2")


@lru_cache(maxsize=1)
def _shipped_delta() -> str:
    return resources.template_text("delta.md.j2")


@lru_cache(maxsize=8)
def _compiled(template_text: str, lenient: bool = False) -> Template:
    """The template compiled once per process: an audit re-renders every version, and versions
    almost always carry the same template (compiling it costs ~0.1 s, rendering ~1 ms). A template
    freezer ships comes from its compiled module, when that module fits this Jinja2."""
    shipped = None if lenient else _precompiled(template_text)
    return shipped if shipped is not None else environment(lenient).from_string(template_text)


def _precompiled(template_text: str) -> Template | None:
    """A shipped template from the module :mod:`freezer.render.compile_templates` wrote, in the
    environment it was compiled for; None for any other text, or under another Jinja2 release (the
    compiled code calls Jinja2's runtime by name)."""
    module_name = {_shipped(): "method_md", _shipped_delta(): "delta_md"}.get(template_text)
    if module_name is None:
        return None
    import importlib  # start-up time: only a process that renders a shipped template needs it

    import jinja2  # Jinja2 costs ~40 ms at start-up: only when a template renders

    module = importlib.import_module(f"freezer.render._compiled.{module_name}")
    if jinja2.__version__ != module.JINJA2_VERSION:
        return None
    env = environment()
    return env.template_class.from_module_dict(env, vars(module), env.make_globals(None))


@lru_cache(maxsize=2)
def environment(lenient: bool = False) -> Environment:
    """The environment METHOD.md renders in; ``lenient``: a missing name is empty (a preview)."""
    # Jinja2 costs ~40 ms at start-up: only commands that render METHOD.md import it.
    from jinja2 import ChainableUndefined, StrictUndefined, pass_context
    from jinja2.sandbox import ImmutableSandboxedEnvironment  # Jinja2 too

    # The sandbox also covers a registry's own template: it may format data, not reach into Python.
    env = ImmutableSandboxedEnvironment(
        undefined=ChainableUndefined if lenient else StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        {"cell": pass_context(_cell_filter), "text": pass_context(_text_filter), "fence": fence, "code": code}
    )
    env.loader = _refusing_loader()
    return env


def _refusing_loader() -> BaseLoader:
    """A METHOD.md template is one self-contained file: include, import and extends are refused."""
    from jinja2 import BaseLoader  # ~40 ms at start-up (Jinja2): only when a template renders

    class RefusingLoader(BaseLoader):
        def get_source(self, environment: Environment, template: str) -> tuple[str, str | None, None]:
            raise TemplateProblem(f"the template may not include, import or extend other templates ({template!r})")

    return RefusingLoader()
