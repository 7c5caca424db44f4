"""Issue 17: the static registry site: relative links, deterministic, escaped, and read in a real browser."""

from __future__ import annotations

import itertools
import json
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest

from freezer.site import site as site_mod

from conftest import CHROMIUM, assert_clean_failure, run_inprocess

# Slow (a real browser): CI runs it; `pytest -m slow` runs it here.
pytestmark = pytest.mark.slow

PAYLOAD = '<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2">'


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> Path:
    """The demo registry, whose v2 fixture carries markup and a javascript: link, rendered twice."""
    base = tmp_path_factory.mktemp("site")
    root = base / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    return root


def _build(root: Path, out: Path) -> None:
    result = run_inprocess("site", str(out), cwd=root)
    assert result.code == 0, result.text


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.scripts = 0
        self.script_sources: list[str | None] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self.scripts += 1
            self.script_sources += [value for name, value in attrs if name == "src"]
        for name, value in attrs:
            if name in ("href", "src") and value is not None:
                self.links.append(value)


def test_the_site_is_deterministic_relative_and_complete(
    hostile_site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    _build(hostile_site, first)  # its METHOD.md are few: rendered in this process
    monkeypatch.setattr(site_mod, "MARKDOWN_PARALLEL_FROM", 0)  # and now on every core
    _build(hostile_site, second)
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    assert all((first / rel).read_bytes() == (second / rel).read_bytes() for rel in files)
    pages = [first / rel for rel in files if rel.suffix == ".html"]
    assert len(pages) >= 20
    for page in pages:
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        # The search box (its index and its own inline script) is on the root and suite pages; no other script.
        searched = page == first / "index.html" or (page.parent.parent == first and page.name == "index.html")
        assert parser.scripts == (2 if searched else 0), page
        assert parser.script_sources == [], page
        for link in parser.links:
            assert "://" not in link and not link.startswith(("/", "javascript:")), (page, link)
            path, _, fragment = link.partition("#")
            target = (page.parent / path).resolve() if path else page  # "#x" is a place on this page
            assert target.is_file(), (page, link)
            if fragment and target.suffix == ".html":
                assert f'id="{fragment}"' in target.read_text(encoding="utf-8"), (page, link)
    index = json.loads((first / "index.json").read_text())
    paths = [s["path"] for s in index["suites"]]
    paths += [v["path"] for s in index["suites"] for v in s["versions"]]
    paths += [p for s in index["suites"] for p in s["fixtures"].values()]
    paths += [d["path"] for s in index["suites"] for d in s["diffs"]]
    assert all((first / path).is_file() for path in paths)
    graph = next(s for s in index["suites"] if s["name"] == "graph")
    assert [v["name"] for v in graph["versions"]] == ["graph_v1", "graph_v2"]


def test_fixture_text_cannot_inject_markup(hostile_site: Path, tmp_path: Path, browser: Any) -> None:
    root = tmp_path / "demo"
    shutil.copytree(hostile_site, root, symlinks=True)
    assert run_inprocess("next", "--suite", "graph", cwd=root).code == 0
    fixture = root / "drafts/graph/fixtures/locate-loopaudit-variants.yaml"
    import yaml

    data = yaml.safe_load(fixture.read_text())
    data["question"] = f"{PAYLOAD} [click](javascript:alert(1)) List the variants of LoopAuditEvent."
    data["notes"] = "# Injected heading\n[x](javascript:alert(1)) <b>bold</b>"
    fixture.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    version = root / "drafts/graph/version.yaml"
    version.write_text(version.read_text().replace("# TODO(freezer next)", "# pinned as before:"))
    assert run_inprocess("cut", "v3", "--suite", "graph", cwd=root).code == 0
    out = tmp_path / "site"
    _build(root, out)
    for page in out.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert "<script>window" not in html and "<img src=x" not in html and "<b>bold" not in html, page
        assert 'href="javascript:' not in html, page
        assert "# Injected heading" in html or "Injected heading" not in html, page
    history = out / "graph/fixtures/locate-loopaudit-variants.html"
    assert "&lt;script&gt;window.__xss = 1&lt;/script&gt;" in history.read_text()
    if browser is not None:  # chromium is installed
        for target in (history, out / "graph/graph_v3/index.html"):
            tab = browser.new_page()
            tab.goto(target.as_uri())
            assert "window.__xss = 1" in tab.locator("body").inner_text()  # shown as text
            assert tab.evaluate("window.__xss") is None  # and never run
            tab.close()


def test_the_site_never_empties_a_folder_it_did_not_make(hostile_site: Path, tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    refused = run_inprocess("site", str(mine), cwd=hostile_site)
    assert_clean_failure(refused, code=2)
    assert (mine / "notes.txt").read_text() == "keep me" and len(list(mine.iterdir())) == 1
    out = tmp_path / "site"
    _build(hostile_site, out)
    (out / "stale.html").write_text("old")
    _build(hostile_site, out)  # a site freezer built is replaced as a whole
    assert not (out / "stale.html").exists() and (out / "index.html").is_file()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".site.")]


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
def test_a_reader_follows_the_links_in_a_real_browser(hostile_site: Path, tmp_path: Path, browser: Any) -> None:
    out = tmp_path / "site"
    _build(hostile_site, out)
    errors: list[str] = []
    page = browser.new_page(java_script_enabled=True)
    try:
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.goto((out / "index.html").as_uri())
        assert page.title() == "Benchmark registry"
        page.click("a[href='graph/index.html']")
        assert page.url.endswith("/graph/index.html")
        assert page.locator("h1").inner_text() == "Suite graph"
        timeline = page.locator("table").first.inner_text()
        assert "graph_v2" in timeline and "first version" in timeline
        page.click("a[href='graph_v2/index.html']")
        body = page.locator("body").inner_text()
        assert "Comparability with earlier versions" in body and "grep-only" in body
        assert "Manifest sha256" in body and "Delta vs v1" in body
        page.click("a[href='../fixtures/locate-loopaudit-variants.html']")
        history = page.locator("body").inner_text()
        assert "History of locate-loopaudit-variants" in history and "graph_v2: changed" in history
        assert "$.oracle.must_not_include" in history
        page.go_back()
        page.click("a[href='../index.html']")
        page.click("a[href='diff/graph_v1..graph_v2.html']")
        diff = page.locator("body").inner_text()
        assert "graph_v1 → graph_v2" in diff and "Moved: fixture set" in diff
        assert page.evaluate("window.__xss") is None
        _crawl_and_inspect(page, out, tmp_path / "screenshots")
    finally:
        page.close()
    assert errors == []
    shots = sorted(p.name for p in (tmp_path / "screenshots").iterdir())
    assert shots == ["diff.png", "fixture.png", "index.png", "suite.png", "version.png"]


def _crawl_and_inspect(page: Any, out: Path, shots: Path) -> None:
    """Visit every page reachable from the index; every link must lead to a page that loads, and every
    page must have its headings in order, header cells in its tables and alt text on its images."""
    shots.mkdir()
    start = (out / "index.html").as_uri()
    queue, seen = [start], {start}
    while queue:
        url = queue.pop()
        page.goto(url)
        assert page.title(), url
        levels = page.eval_on_selector_all("h1,h2,h3,h4,h5,h6", "hs => hs.map(h => Number(h.tagName[1]))")
        assert levels and levels[0] == 1, url
        assert all(b <= a + 1 for a, b in itertools.pairwise(levels)), (url, levels)
        assert page.eval_on_selector_all("table", "ts => ts.filter(t => !t.querySelector('th')).length") == 0, url
        assert page.eval_on_selector_all("img", "is => is.filter(i => !i.hasAttribute('alt')).length") == 0, url
        kind = "index" if url == start else _page_kind(url, out)
        if not (shots / f"{kind}.png").exists():
            page.screenshot(path=str(shots / f"{kind}.png"), full_page=False)
        for link in page.eval_on_selector_all("a[href]", "as => as.map(a => a.href.split('#')[0])"):
            assert link.startswith("file://"), (url, link)
            target = Path(unquote(urlparse(link).path))
            assert target.is_file(), (url, link)
            if target.suffix == ".html" and link not in seen:
                seen.add(link)
                queue.append(link)
    assert len(seen) >= 20


def _page_kind(url: str, out: Path) -> str:
    rel = Path(unquote(urlparse(url).path)).relative_to(out).as_posix()
    if rel.count("/") == 1 and rel.endswith("/index.html"):
        return "suite"
    return "diff" if "/diff/" in rel else "fixture" if "/fixtures/" in rel else "version"


def test_bidirectional_controls_render_by_name() -> None:
    """freezer refuses them in drafts; a site of data from elsewhere still shows them inert."""
    from freezer.site.site import inert, markdown_html

    assert inert("abc\u202edef\u2066ghi\u200f") == "abc[U+202E]def[U+2066]ghi[U+200F]"
    html = markdown_html("# Title\n\nevil \u202e<script>x()</script>")
    assert "\u202e" not in html and "[U+202E]" in html and "<script>" not in html
    assert html.startswith("<h2>Title</h2>")  # METHOD.md's headings nest under the page's title
