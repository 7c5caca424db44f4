"""Issue 27, item 6: Markdown rules 4 show any text exactly as typed, raw and rendered, and open no markup.

Seeded random strings over the characters Markdown acts on, rendered by CommonMark (markdown-it)
and by GitHub's cmark-gfm: the rendered text equals the input, no element but a paragraph, a code
span or a table cell appears, and the raw Markdown holds no entity the input did not.
"""

from __future__ import annotations

import html
import random
import re

import cmarkgfm  # type: ignore[import-untyped]
import pytest
from markdown_it import MarkdownIt

from freezer.render import render

_PIECES = [*"ab \\`*_~[]()!<>&;#:/.|$-+=1{}\"'", "www.", "http://", "&amp;", "&#65;", "<b>", "</b>", "\\.", "\\s*"]
_MARKUP = re.compile(r"<(a|img|em|strong|del|script|b|h[1-6]|ul|ol|blockquote|pre)\b")


def _samples(seed: int, count: int = 800) -> list[str]:
    chosen = random.Random(seed)
    found = []
    for _ in range(count):
        typed = "x" + "".join(chosen.choice(_PIECES) for _ in range(chosen.randint(1, 12))) + "y"
        found.append(" ".join(typed.split()))
    return found


def _shown(rendered: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", rendered)).split())


@pytest.mark.parametrize("seed", [1, 2])
def test_prose_renders_as_typed(seed: int) -> None:
    commonmark = MarkdownIt("commonmark")
    for typed in _samples(seed):
        markdown = render.text_v4(typed)
        for rendered in (commonmark.render(markdown), cmarkgfm.github_flavored_markdown_to_html(markdown)):
            assert not _MARKUP.search(rendered), (typed, markdown, rendered)
            assert _shown(rendered) == typed, (typed, markdown, rendered)
        if "&amp;" not in typed:
            assert "&amp;" not in markdown, (typed, markdown)


@pytest.mark.parametrize("seed", [3, 4])
def test_cells_render_as_typed_and_keep_the_table_shape(seed: int) -> None:
    for typed in _samples(seed):
        table = f"| h | k |\n|---|---|\n| {render.cell_v4(typed)} | z |\n"
        rendered = cmarkgfm.github_flavored_markdown_to_html(table)
        cells = re.findall(r"<td>(.*?)</td>", rendered, re.DOTALL)
        assert len(cells) == 2 and not _MARKUP.search(rendered), (typed, rendered)
        assert _shown(cells[0]) == typed, (typed, rendered)
