"""Dates on the site read as dates ("2 Dec 2026, 14:03 UTC") with the ISO stamp kept in a
``<time datetime>``; and, in Debian's chromium at desktop and phone width, no table cell breaks a
word inside itself (long tokens such as hashes may wrap; words may not)."""

from __future__ import annotations

import json
import re
import shutil
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from conftest import CHROMIUM, run_inprocess


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("wrapping") / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    built = run_inprocess("site", str(root.parent / "site"), cwd=root)
    assert built.code == 0, built.text
    return root, root.parent / "site"


def test_a_cut_time_is_shown_readable_with_its_iso_stamp_kept(demo_site: tuple[Path, Path]) -> None:
    root, out = demo_site
    stamp = json.loads((root / "versions/graph_v2/manifest.json").read_text())["cut_at"]
    moment = datetime.fromisoformat(stamp).astimezone(timezone.utc)
    readable = f"{moment.day} {moment:%b %Y, %H:%M} UTC"
    shown = f'<time datetime="{stamp}">{readable}</time>'
    for page in ("graph/graph_v2/index.html", "graph/index.html", "index.html"):
        html = (out / page).read_text()
        assert shown in html, page
        # The page's own words; frozen text quoted as it is (METHOD.md, provenance.json) may hold stamps.
        own = re.sub(r'<pre[^>]*>.*?</pre>|<section class="method".*?</section>', "", html, flags=re.S)
        assert own.count(stamp) == own.count(shown), f"{page} shows the raw stamp"


# Every word of a table cell's text (letters only, as a reader reads it) whose box spans two lines.
_BROKEN_WORDS = """() => {
  const broken = [];
  for (const cell of document.querySelectorAll('td, th')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest('.hash')) continue;
      const tokens = /\\S+/g;
      for (let m = tokens.exec(node.data); m; m = tokens.exec(node.data)) {
        const word = /^[("']?([A-Za-z]{2,30})[)"',.;:!?]*$/.exec(m[0]);
        if (!word) continue;
        const start = m.index + m[0].indexOf(word[1]);
        const range = document.createRange();
        range.setStart(node, start);
        range.setEnd(node, start + word[1].length);
        const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (tops.size > 1) broken.push(word[1]);
      }
    }
  }
  return broken;
}"""


@pytest.mark.slow  # a browser: CI runs it; `pytest -m slow` runs it here
@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
@pytest.mark.parametrize("width", [1280, 390])
def test_no_table_cell_breaks_a_word(demo_site: tuple[Path, Path], browser: Any, width: int) -> None:
    _root, out = demo_site
    # Every page with a table: a frozen file's own page has none.
    pages = sorted(p for p in out.rglob("*.html") if "files" not in p.relative_to(out).parts)
    tab = browser.new_page(viewport={"width": width, "height": 900})
    broken: dict[str, list[str]] = {}
    cells = 0
    for page in pages:
        tab.goto(page.as_uri())
        cells += tab.locator("td").count()
        found = tab.evaluate(_BROKEN_WORDS)
        if found:
            broken[str(page.relative_to(out))] = found
    tab.close()
    assert cells > 100  # the check looked at real tables
    assert not broken, broken
