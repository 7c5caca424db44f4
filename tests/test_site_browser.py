"""Issue 27: the demo's site as a reader uses it, in Debian's chromium through Playwright.

One registry for the module: the demo, with graph_v2 yanked and graph_v1 deprecated (signed events),
its site built once. Each test opens the pages from ``file://`` as a reader's browser would: no page
shows escaped markup, every page draws something, the keyboard reaches the search box and its
results, dark mode changes the colours, and every link from the index leads to a file of the site
with no request leaving it.
"""

from __future__ import annotations

import base64
import re
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest

from conftest import CHROMIUM, run_inprocess
from registry_helpers import demo_signed_by_alice

pytestmark = [
    pytest.mark.slow,  # a browser: CI runs it; `pytest -m slow` runs it here
    pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed"),
    pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed"),
]

YANK_REASON = "the oracle leaks the answer"
# Markup that a page meant to draw, if it shows as text: a tag, or an entity shown as typed.
_SHOWN_TAG = re.compile(r"</?(h[1-6]|p|td|th|tr|table|thead|tbody|ul|ol|li|pre|code|strong|em|a|div|span|br)\b[^<>]*>")
_SHOWN_ENTITY = re.compile(r"&(lt|gt|amp|quot|#[0-9]+|#x[0-9a-f]+);", re.IGNORECASE)


@pytest.fixture(scope="module")
def lived(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> tuple[Path, Path]:
    """The demo registry with a yanked and a deprecated version, and its site."""
    base = tmp_path_factory.mktemp("lived")
    root, key = demo_signed_by_alice(base, demo_build)
    yanked = run_inprocess("yank", "graph_v2", "--reason", YANK_REASON, "--key", str(key), cwd=root)
    assert yanked.code == 0, yanked.text
    args = ["deprecate", "graph_v1", "--superseded-by", "graph_v2", "--reason", "v2 asks better questions"]
    assert run_inprocess(*args, "--key", str(key), cwd=root).code == 0
    out = base / "site"
    built = run_inprocess("site", str(out), cwd=root)
    assert built.code == 0, built.text
    return root, out


def _pages(out: Path) -> list[Path]:
    return sorted(out.rglob("*.html"))


def _escaped_markup(text: str) -> list[str]:
    return [m.group() for m in _SHOWN_TAG.finditer(text)] + [m.group() for m in _SHOWN_ENTITY.finditer(text)]


def test_no_page_shows_escaped_markup_and_method_md_is_rendered(lived: tuple[Path, Path], browser: Any) -> None:
    _, out = lived
    tab = browser.new_page()
    control = out.parent / "control.html"  # the bug of issue 27 as a page: the check must see it
    control.write_text("<!DOCTYPE html><title>c</title><p>&lt;h2&gt;bench_v2 — METHOD&lt;/h2&gt; &amp;amp;</p>")
    tab.goto(control.as_uri())
    assert _escaped_markup(tab.locator("body").inner_text()) == ["<h2>", "</h2>", "&amp;"]
    pages = _pages(out)
    assert len(pages) >= 30
    for page in pages:
        tab.goto(page.as_uri())
        assert _escaped_markup(tab.locator("body").inner_text()) == [], page
    for version in ("graph/graph_v2", "graph/graph_v1", "api/api_v1", "tb/tb_v1", "swe/swe_v1"):
        tab.goto((out / version / "index.html").as_uri())
        method = tab.locator("section.method")
        assert method.locator("h2").count() >= 1, version  # METHOD.md's own title, a heading
        assert method.locator("table").count() >= 1 and method.locator("td").count() >= 4, version
        assert "METHOD" in method.locator("h2").first.inner_text()
    tab.goto((out / "graph/graph_v2/index.html").as_uri())
    headings = tab.locator("section.method h3").all_inner_texts()
    assert any(h.startswith("Delta vs") for h in headings), headings  # METHOD.md down to §Delta


# The share of a screenshot's pixels (every fourth of every fourth row) that are not the page's
# background (its top-left pixel's colour), counted in a tab of its own by Chromium's PNG decoder:
# decoding 133 screenshots byte by byte in Python took half of the test's 30 s.
_INK = """async (png) => {
  const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
  const image = await createImageBitmap(new Blob([bytes], { type: "image/png" }));
  const canvas = new OffscreenCanvas(image.width, image.height);
  const context = canvas.getContext("2d");
  context.drawImage(image, 0, 0);
  const { data, width, height } = context.getImageData(0, 0, image.width, image.height);
  let inked = 0, seen = 0;
  for (let y = 0; y < height; y += 4) {
    for (let x = 0; x < width; x += 4) {
      const at = (y * width + x) * 4;
      seen += 1;
      if (data[at] !== data[0] || data[at + 1] !== data[1] || data[at + 2] !== data[2]) inked += 1;
    }
  }
  return inked / seen;
}"""


@pytest.mark.slow  # a screenshot of every page: the heaviest of these (~21 s alone)
def test_every_page_draws_its_content(lived: tuple[Path, Path], browser: Any) -> None:
    _, out = lived
    # A small device scale: the same layout in a sixteenth of the pixels, so decoding stays quick.
    tab = browser.new_page(viewport={"width": 1000, "height": 700}, device_scale_factor=0.25)
    blank = out.parent / "blank.html"
    blank.write_text("<!DOCTYPE html><title>blank</title>")
    counter = browser.new_page()
    counter.goto(blank.as_uri())

    def ink() -> float:
        share: float = counter.evaluate(_INK, base64.b64encode(tab.screenshot()).decode("ascii"))
        return share

    tab.goto(blank.as_uri())
    assert ink() == 0  # the measure sees an empty page as empty
    for page in _pages(out):
        tab.goto(page.as_uri())
        assert len(tab.locator("main").inner_text()) >= 80, page
        assert ink() > 0.02, page


def _focus_until(tab: Any, selector: str, presses: int = 12) -> list[str]:
    """Press Tab until ``selector`` has focus; what had focus on the way (tag names)."""
    seen = []
    for _ in range(presses):
        tab.keyboard.press("Tab")
        seen.append(tab.evaluate("document.activeElement.tagName"))
        if tab.evaluate(f"document.activeElement.matches({selector!r})"):
            return seen
    raise AssertionError(f"Tab never reached {selector}: {seen}")


def test_the_keyboard_reaches_the_search_box_and_opens_a_result(lived: tuple[Path, Path], browser: Any) -> None:
    _, out = lived
    tab = browser.new_page()
    tab.goto((out / "index.html").as_uri())
    on_the_way = _focus_until(tab, "#search")
    assert "A" in on_the_way  # the skip link and the breadcrumb come first
    tab.keyboard.type("loopaudit")
    results = tab.locator("#search-results a")
    # The fixture whose id matches comes first; fixtures whose title names LoopAuditEvent follow.
    assert results.count() >= 2 and results.first.inner_text().startswith("locate-loopaudit-variants")
    assert all("loopaudit" in text.lower() for text in results.all_inner_texts())
    tab.keyboard.press("ArrowDown")
    assert tab.evaluate("document.activeElement.textContent").startswith("locate-loopaudit-variants")
    tab.keyboard.press("Enter")
    tab.wait_for_url("**/graph/fixtures/locate-loopaudit-variants.html")
    assert "History of locate-loopaudit-variants" in tab.locator("main").inner_text()
    # On a suite's page: its own versions and fixtures; Enter in the box opens the first result.
    tab.goto((out / "tb/index.html").as_uri())
    _focus_until(tab, "#search")
    tab.keyboard.type("TB_V")
    assert tab.locator("#search-results a").all_inner_texts()[0].startswith("tb_v1")
    tab.keyboard.press("Enter")
    tab.wait_for_url("**/tb/tb_v1/index.html")
    # Tab goes on from the search box to the page's links.
    tab.goto((out / "graph/index.html").as_uri())
    _focus_until(tab, "#search")
    tab.keyboard.press("Tab")
    assert tab.evaluate("document.activeElement.tagName") == "A"
    # A query that matches nothing says so; no link to follow.
    tab.goto((out / "index.html").as_uri())
    tab.fill("#search", "no-such-task-anywhere")
    assert tab.locator("#search-results").inner_text() == "No match." and tab.locator("#search-results a").count() == 0


def test_dark_mode_follows_the_readers_setting(lived: tuple[Path, Path], browser: Any) -> None:
    _, out = lived
    colours = {}
    for scheme in ("light", "dark"):
        tab = browser.new_page(color_scheme=scheme)
        for rel in ("index.html", "graph/graph_v2/index.html", "graph/diff/graph_v1..graph_v2.html"):
            tab.goto((out / rel).as_uri())
            colours[scheme, rel] = tab.evaluate(
                "[getComputedStyle(document.body).backgroundColor, getComputedStyle(document.body).color]"
            )
        tab.close()
    for rel in ("index.html", "graph/graph_v2/index.html", "graph/diff/graph_v1..graph_v2.html"):
        light, dark = colours["light", rel], colours["dark", rel]
        assert light[0] != dark[0] and light[1] != dark[1], rel
        assert sum(map(int, re.findall(r"\d+", dark[0])[:3])) < sum(map(int, re.findall(r"\d+", light[0])[:3]))


def test_every_link_from_the_index_resolves_and_nothing_leaves_the_site(lived: tuple[Path, Path], browser: Any) -> None:
    _, out = lived
    requests: list[str] = []
    context = browser.new_context(viewport={"width": 390, "height": 800})  # a phone
    tab = context.new_page()
    tab.on("request", lambda request: requests.append(request.url))
    start = (out / "index.html").as_uri()
    queue, seen, wide = [start], {start}, []
    while queue:
        url = queue.pop()
        tab.goto(url)
        if tab.evaluate("document.documentElement.scrollWidth") > 400:
            wide.append(url)  # the page itself scrolls sideways on a phone; a table may scroll in its box
        for link in tab.eval_on_selector_all("a[href]", "as => as.map(a => a.href.split('#')[0])"):
            assert link.startswith("file://"), (url, link)
            target = Path(unquote(urlparse(link).path))
            assert target.is_file() and out in target.parents, (url, link)
            if target.suffix == ".html" and link not in seen:
                seen.add(link)
                queue.append(link)
    context.close()
    assert wide == []
    assert {Path(unquote(urlparse(u).path)) for u in seen} == set(_pages(out))  # every page is reachable
    assert requests and all(u.startswith("file://") for u in requests), [u for u in requests if "file://" not in u]
    assert {Path(unquote(urlparse(u).path)).name for u in requests} >= {"site.css", "index.html"}
