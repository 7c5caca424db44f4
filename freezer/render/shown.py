"""Whether a rendered METHOD.md shows freezer's §Delta block as visible text, once, with nothing
else claiming to be it.

A template places the block once, verbatim (:mod:`freezer.validate.template`), yet the text around
it decides how it reads: an HTML comment or a ``<details>`` opened before it and closed after hides
it, a fence or an indent makes it code, a line after it joins its last paragraph, and a heading of
the template's own ("## Delta vs v1 … nothing moved") claims to be it. So the rendered text is read
as a Markdown viewer reads it: by markdown-it-py (CommonMark, already freezer's reader for the
site) with GitHub's tables, the one block rule GitHub adds. The tests hold this reading against
cmark-gfm, GitHub's own engine.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from freezer.domain.taskid import skeleton
from freezer.render.named import BACKSLASH_ESCAPE

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

PLACE_VISIBLY = (
    "put {{ delta_block }} alone on its line, after a blank line, outside any HTML, comment or code "
    "block, with a blank line after it"
)


@dataclass(frozen=True)
class Unshown:
    """One way the rendered METHOD.md fails to show §Delta: its line (1-based) and why."""

    line: int
    message: str


def delta_unshown(method: str, block: str) -> list[Unshown]:
    """Every way ``method`` fails to show ``block`` (freezer's §Delta, in it verbatim) as visible
    text, once and unforged; empty when it does."""
    at = method.find(block)
    if not block.strip() or at < 0:
        return []  # the render already refuses a METHOD.md that lacks the block
    first = method.count("\n", 0, at)  # 0-based line of the block's heading
    last = first + block.rstrip("\n").count("\n")  # 0-based line of its last line
    found: list[Unshown] = []
    if at and method[at - 1] != "\n":
        why = "the template writes text or indentation before {{ delta_block }} on its line, so §Delta starts no line"
        found.append(Unshown(first + 1, f"{why}; {PLACE_VISIBLY}"))
    parser = _parser()
    env: dict[str, object] = {}
    tokens = parser.parse(method, env)
    alone = parser.parse(block, {})
    if not found:
        found.extend(_altered(tokens, alone, first, method.split("\n"), block.split("\n")))
    found.extend(_open_elements(parser, tokens, env, first))
    found.extend(_claims(tokens, first, last))
    return sorted(found, key=lambda u: u.line)


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    # markdown-it-py costs ~30 ms at start-up: only a suite with its own template pays it here.
    from markdown_it import MarkdownIt

    # Block structure only: the inline pass is run below on the few paragraphs that need it.
    return MarkdownIt("commonmark", {"html": True}).enable("table").disable("inline")


def _shape(token: Token, shift: int, lines: list[str]) -> tuple[object, ...]:
    where = (token.map[0] - shift, _end(token.map[1], lines) - shift) if token.map else None
    return (token.type, token.tag, token.level, token.nesting, where, token.markup, token.info, token.content)


def _end(end: int, lines: list[str]) -> int:
    """Where a block's lines end, without the blank lines a list or a quote counts as its own."""
    while end > 0 and end <= len(lines) and not lines[end - 1].strip():
        end -= 1
    return end


def _altered(
    tokens: list[Token], alone: list[Token], first: int, lines: list[str], block_lines: list[str]
) -> list[Unshown]:
    """How the text around the block changes its blocks from what the block reads as alone."""
    covering = next((t for t in tokens if t.map and t.map[0] < first < t.map[1] and t.level == 0), None)
    if covering is not None:
        return [_swallowed(covering, first)]
    start = next((i for i, t in enumerate(tokens) if t.map and t.map[0] >= first), len(tokens))
    inside = tokens[start : start + len(alone)]
    if [_shape(t, first, lines) for t in inside] == [_shape(t, 0, block_lines) for t in alone]:
        return []
    for mine, its in zip(inside, alone, strict=False):
        if mine.map and its.map and _end(mine.map[1], lines) - first > _end(its.map[1], block_lines):
            after = _end(mine.map[1], lines)  # 1-based: the last line it takes in
            return [
                Unshown(
                    after,
                    f"the template's text right after §Delta (line {after}) joins its last lines and changes how "
                    f"they read; {PLACE_VISIBLY}",
                )
            ]
    return [Unshown(first + 1, f"the text around §Delta changes how it reads; {PLACE_VISIBLY}")]


def _swallowed(token: Token, first: int) -> Unshown:
    opened = (token.map[0] if token.map else first) + 1
    if token.type == "html_block":
        what = "an HTML comment" if token.content.lstrip().startswith("<!--") else "a raw HTML block"
        why = f"§Delta is inside {what} that starts at line {opened}, so no viewer shows it"
    elif token.type in ("fence", "code_block"):
        why = f"§Delta is inside a code block that starts at line {opened}, so it shows as code, not as a section"
    else:
        why = f"§Delta is joined to the {token.type.removesuffix('_open')} that starts at line {opened}"
    return Unshown(first + 1, f"{why}; {PLACE_VISIBLY}")


# Elements that never hold content, so an open one hides nothing.
_VOID = frozenset(
    "area base br col embed hr img input link meta param source track wbr".split()  # noqa: SIM905 - a word list
)
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)\b(?:[^>\"']|\"[^\"]*\"|'[^']*')*?(/?)>")


def _open_elements(parser: MarkdownIt, tokens: list[Token], env: dict[str, object], first: int) -> list[Unshown]:
    """An HTML element raw HTML before the block opens and leaves open: a browser (GitHub's viewer
    too) puts §Delta inside it, where ``<details>`` folds it away and ``hidden`` hides it."""
    stack: list[tuple[str, int]] = []
    for token in tokens:
        if not token.map:
            continue  # a closing token
        if token.map[0] >= first:
            break
        if token.type == "html_block":
            pieces = [token.content]
        elif token.type == "inline" and "<" in token.content:
            children: list[Token] = []
            parser.inline.parse(token.content, parser, env, children)
            pieces = [c.content for c in children if c.type == "html_inline"]
        else:
            continue
        for piece in pieces:
            for tag in _TAG.finditer(_COMMENT.sub("", piece)):
                closing, name, self_closed = tag.group(1), tag.group(2).lower(), tag.group(3)
                if name in _VOID or self_closed:
                    continue
                if not closing:
                    stack.append((name, token.map[0] + 1))
                elif any(open_name == name for open_name, _ in stack):
                    while stack.pop()[0] != name:
                        pass
    return [
        Unshown(
            line,
            f"raw HTML <{name}> opened at line {line} is still open where §Delta starts (line {first + 1}), so a "
            f"viewer shows §Delta inside it (<details> folds it away, hidden hides it): close it before "
            "{{ delta_block }}",
        )
        for name, line in stack
    ]


# The Greek letter reads as the word (Unicode's confusables leave it a letter of its own).
_GREEK_DELTA = str.maketrans(dict.fromkeys("Δδ∆", "delta"))
_MARKUP = re.compile(r"<[^>]*>|[*_`~]")
_SAYS_DELTA = re.compile(r"(?<![^\W\d_])delta(?![^\W\d_])")
_HTML_HEADING = re.compile(r"<h[1-6]\b[^>]*>(.*?)(?:</h[1-6]\s*>|\Z)", re.DOTALL | re.IGNORECASE)


def says_delta(text: str) -> bool:
    """Whether ``text`` (a heading, as written) reads as "Delta" to a reader: escapes and entities
    undone, markup, zero-width and combining characters dropped, lookalike letters read through
    Unicode's confusables (UTS #39 skeleton, freezer's table), case ignored."""
    plain = html.unescape(BACKSLASH_ESCAPE.sub(r"\1", text))
    plain = unicodedata.normalize("NFKD", _MARKUP.sub("", plain))  # marks apart, to be dropped
    plain = "".join(c for c in plain if unicodedata.category(c) not in ("Cf", "Mn", "Me"))
    plain = unicodedata.normalize("NFC", skeleton(plain.translate(_GREEK_DELTA)))
    return bool(_SAYS_DELTA.search(plain.casefold()))


def _claims(tokens: list[Token], first: int, last: int) -> list[Unshown]:
    """Every heading outside the block that says Delta: only freezer's block may."""
    found = []
    for index, token in enumerate(tokens):
        if not token.map or first <= token.map[0] <= last:
            continue
        line = token.map[0] + 1
        if token.type == "heading_open":
            texts = [tokens[index + 1].content]
        elif token.type == "html_block":
            texts = [m.group(1) for m in _HTML_HEADING.finditer(_COMMENT.sub("", token.content))]
        else:
            continue
        if any(says_delta(text) for text in texts):
            found.append(
                Unshown(
                    line,
                    f"the template writes its own heading saying Delta here, which claims to be §Delta; only "
                    f"freezer's block (line {first + 1}) may: reword the heading or remove it",
                )
            )
    return found
