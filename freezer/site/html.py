"""How the site turns data into HTML: one Jinja2 environment, and METHOD.md through markdown-it-py.

The environment autoescapes, is sandboxed and undefined names fail (StrictUndefined); data is only
ever a variable of a template, never template code. Every string a page prints passes through
:func:`inert` on its way out, except markup the site built itself (METHOD.md rendered here): that is
already inert, and keeping it a :class:`markupsafe.Markup` is what stops autoescape from escaping it a
second time. (Before, ``finalize`` turned the Markup back into a plain string, and every version
page showed METHOD.md as ``&lt;h2&gt;`` source.)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from freezer.domain.escape import visible

# Characters that reorder how text is displayed (the "Trojan Source" class): shown by name instead.
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def inert(text: str) -> str:
    """``text`` with every bidirectional control shown as ``[U+202E]``, so none can reorder a page, and
    ESC and the other C0 and C1 controls and DEL (tab and newline apart) shown escaped as a terminal
    shows them (``\\x1b``): record data may hold them (a SWE-bench log's colour codes), and a page
    saved or fetched with curl must not replay them. (The line separators are the search index's to
    escape: in JSON they are ``\\u2028``.)"""
    text = _BIDI.sub(lambda match: f"[U+{ord(match.group()):04X}]", text)
    return _CONTROLS.sub(lambda match: visible(match.group()), text)


def _finalize(value: Any) -> Any:
    from markupsafe import Markup  # comes with jinja2, which is imported only when a site is built

    if isinstance(value, Markup):
        return value  # built by the site from inert text: escaping it again would show its tags
    return inert(value) if isinstance(value, str) else value


def url(rel: Any) -> str:
    """A relative link as an href: every part URL-escaped (the parts are already safe file names)."""
    return quote(str(rel), safe="/")


def environment() -> Any:
    # start-up time: ~40 ms, only the site needs jinja2
    from jinja2 import FunctionLoader, StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment  # (the same)

    from freezer.runtime import resources  # importlib.resources costs start-up time; only the site reads templates

    def load(name: str) -> str:
        text: str = (resources.data_dir("templates") / "site" / name).read_text(encoding="utf-8")
        return text

    env = SandboxedEnvironment(
        loader=FunctionLoader(load),
        undefined=StrictUndefined,
        autoescape=True,
        keep_trailing_newline=True,
        finalize=_finalize,
    )
    env.filters["short"] = lambda sha: str(sha)[:8]
    env.filters["url"] = url
    env.filters["size"] = size_text
    env.filters["when"] = when
    env.tests["multiline"] = lambda value: isinstance(value, str) and ("\n" in value or len(value) > 100)
    env.tests["mapping"] = lambda value: isinstance(value, dict)
    env.tests["list"] = lambda value: isinstance(value, list)
    return env


def when(stamp: Any) -> Any:
    """An ISO 8601 UTC stamp as a reader reads it ("2 Dec 2026, 14:03 UTC") in a ``<time>`` whose
    ``datetime`` keeps the stamp; a stamp that does not parse is shown as it is."""
    from datetime import datetime, timezone  # only the site shows dates

    from markupsafe import Markup, escape  # comes with jinja2, which is imported only when a site is built

    text = str(stamp)
    try:
        moment = datetime.fromisoformat(text).astimezone(timezone.utc)
    except ValueError:
        return inert(text)
    shown = f"{moment.day} {moment:%b %Y, %H:%M} UTC"
    return Markup(f'<time datetime="{escape(inert(text))}">{shown}</time>')


def size_text(size: Any) -> str:
    """Bytes as a reader reads them: 512 B, 3.4 KiB, 12.0 MiB."""
    if not isinstance(size, int):
        return "?"
    value, unit = float(size), "B"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            break
        value /= 1024
    return f"{size} B" if unit == "B" else f"{value:.1f} {unit}"


# Markdown that could make a page load or link anything: METHOD.md quotes fixture text, and a
# version frozen before the filters escaped [, ! and ( holds it as it was typed.
_REFUSED_RULES = ["link", "image", "autolink", "linkify", "reference", "html_block", "html_inline"]
_REFUSED_TOKENS = frozenset({"link_open", "link_close", "image", "html_inline", "html_block"})


def markdown_html(text: str) -> str:
    """CommonMark to HTML with raw HTML, links, images, autolinks and reference definitions shown as
    text (METHOD.md quotes fixture text verbatim), its headings one level down so they nest under the
    page's own title."""
    from markdown_it import MarkdownIt  # start-up time: ~30 ms, only the site renders Markdown

    parser = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table").disable(_REFUSED_RULES)
    tokens = parser.parse(inert(text))
    for token in tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(int(token.tag[1]) + 1, 6)}"
        if token.children:
            token.children = _inline_without_links(token.children)
    html = str(parser.renderer.render([t for t in tokens if t.type not in _REFUSED_TOKENS], parser.options, {}))
    # Raw HTML is off, so every tag here is the renderer's: a wide table scrolls in its own box on a phone.
    return html.replace("<table>", '<div class="table-wrap"><table>').replace("</table>", "</table></div>")


def _inline_without_links(children: Sequence[Any]) -> list[Any]:
    """Defence behind the disabled rules: no link, image or raw HTML token reaches the renderer."""
    kept = []
    for child in children:
        if child.type in ("image", "html_inline"):
            child.type, child.tag, child.attrs, child.children = "text", "", {}, None
        elif child.type in ("link_open", "link_close"):
            continue
        kept.append(child)
    return kept


def markup(html: str) -> Any:
    """HTML the site built itself (markdown_html's output), marked so autoescape leaves it as it is."""
    from markupsafe import Markup  # (see _finalize)

    return Markup(html)
