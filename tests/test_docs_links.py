"""Every relative link in README.md and docs/*.md leads somewhere: the file exists and, for a
`#fragment`, the page has that heading by GitHub's anchor rules. Every docs/ page is linked from the
README, so none is stranded when a section moves."""

from __future__ import annotations

import posixpath
import re
from pathlib import PurePosixPath

import pytest

from conftest import REPO
from doc_pages import page, pages

LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def _prose(text: str) -> str:
    """The page without its code blocks and inline code, where brackets are not links."""
    kept, fenced = [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            kept.append(re.sub(r"`[^`]*`", "", line))
    return "\n".join(kept)


def github_anchors(text: str) -> set[str]:
    """The fragment of each heading as GitHub makes it: the heading's text without its markup,
    lower case, every character but letters, digits, '_', '-' and ' ' dropped, spaces made '-';
    a repeated one gets -1, -2, ..."""
    anchors: set[str] = set()
    fenced = False
    for line in text.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
        heading = None if fenced else re.match(r"^#{1,6} +(.*?)\s*#*\s*$", line)
        if heading is None:
            continue
        title = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading.group(1))  # a link: its text
        title = re.sub(r"[`*]", "", title)
        slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
        anchor, n = slug, 0
        while anchor in anchors:
            n += 1
            anchor = f"{slug}-{n}"
        anchors.add(anchor)
    return anchors


def broken_links(name: str, text: str) -> list[str]:
    """Each relative link of ``text`` (the page ``name``) that leads to no file or no heading."""
    problems = []
    here = PurePosixPath(name).parent
    for target in LINK.findall(_prose(text)):
        if EXTERNAL.match(target):
            continue
        path, _, fragment = target.partition("#")
        rel = PurePosixPath(name) if not path else PurePosixPath(posixpath.normpath(here / path))
        file = (REPO / rel).resolve()
        if not file.is_relative_to(REPO) or not file.exists():
            problems.append(f"{name}: ({target}) leads to no file of the repository")
        elif fragment and fragment not in github_anchors(text if not path else file.read_text(encoding="utf-8")):
            problems.append(f"{name}: ({target}): {rel} has no heading with the anchor #{fragment}")
    return problems


@pytest.mark.parametrize("name", pages())
def test_every_relative_link_leads_to_a_file_and_heading(name: str) -> None:
    assert broken_links(name, page(name)) == []


def test_every_docs_page_is_linked_from_the_readme() -> None:
    linked = {target.partition("#")[0] for target in LINK.findall(_prose(page("README.md")))}
    assert [name for name in pages()[1:] if name not in linked] == []


def test_the_check_sees_links_images_and_anchors() -> None:
    """The link checker finds what is broken, so the tests above cannot pass on a page it misreads."""
    text = "\n".join(
        (
            "# Exit codes",
            "## `dimensions:`",
            "## A registry change can never …",
            "See [ok](README.md#exit-codes), [here](#dimensions) and [list](#a-registry-change-can-never-).",
            "![shot](docs/site-index.png) ![gone](docs/site-gone.png)",
            "[no file](docs/nothing.md), [no heading](README.md#no-such-heading), [web](https://example.org/x).",
            "`[not a link](nowhere.md)`",
            "```sh",
            "[ -f x ] && echo [y](z.md)",
            "```",
        )
    )
    assert broken_links("README.md", text) == [
        "README.md: (docs/site-gone.png) leads to no file of the repository",
        "README.md: (docs/nothing.md) leads to no file of the repository",
        "README.md: (README.md#no-such-heading): README.md has no heading with the anchor #no-such-heading",
    ]
    assert broken_links("docs/site.md", "![shot](site-index.png) [up](../README.md#set-up) [x](../../etc)") == [
        "docs/site.md: (../../etc) leads to no file of the repository"
    ]
