"""Regenerate the screenshots of the static site (docs/site.md shows them) from the demo registry: one of every
page kind (index, suite, version, its METHOD.md at §Delta, fixture, diff).

    python tools/site_screenshots.py              # writes docs/site-*.png
    python tools/site_screenshots.py --out DIR    # writes them into DIR (CI: proves the script runs)

Each shot is checked before it is written: the page must show no escaped markup and must not be
blank, so a broken page cannot become docs/site.md's picture. Needs Debian's chromium and
Playwright (the dev extras); nothing is downloaded.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# file name -> (page of the demo's site, the element to scroll to the top first, or None): the
# version page twice, its top and its METHOD.md's §Delta, rendered.
PAGES: dict[str, tuple[str, str | None]] = {
    "site-index.png": ("index.html", None),
    "site-suite.png": ("graph/index.html", None),
    "site-version.png": ("graph/graph_v2/index.html", None),
    "site-version-delta.png": ("graph/graph_v2/index.html", ":is(h2, h3):has-text('Delta vs')"),
    "site-fixture.png": ("graph/fixtures/locate-loopaudit-variants.html", None),
    "site-diff.png": ("graph/diff/graph_v1..graph_v2.html", None),
}
WIDTH, HEIGHT = 1100, 900
ESCAPED = ("&lt;", "&gt;", "&amp;lt;")


def _shoot(page: object, site: Path, rel: str, until: str | None, target: Path) -> str | None:
    """Shoot one page into ``target``; why it was refused, or None."""
    page.goto((site / rel).as_uri())  # type: ignore[attr-defined]
    text = page.inner_text("body")  # type: ignore[attr-defined]
    escaped = [marker for marker in ESCAPED if marker in text]
    if escaped:
        return f"{rel} shows escaped markup ({', '.join(escaped)})"
    if len(text.strip()) < 200:
        return f"{rel} shows almost nothing ({len(text.strip())} characters of text)"
    if until is not None:
        heading = page.locator(until).first  # type: ignore[attr-defined]
        if heading.count() == 0:
            return f"{rel} has no element {until}"
        heading.evaluate("element => window.scrollTo(0, element.getBoundingClientRect().top + window.scrollY - 24)")
    page.screenshot(path=str(target))  # type: ignore[attr-defined]
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=REPO / "docs", help="where the PNG files go")
    args = parser.parse_args()
    try:
        from playwright.sync_api import sync_playwright  # the dev extra; a clear message without it
    except ImportError:
        print("needs Playwright: pip install -e '.[dev]'", file=sys.stderr)
        return 2
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("needs chromium (apt install chromium)", file=sys.stderr)
        return 2
    problems: list[str] = []
    with tempfile.TemporaryDirectory() as scratch:
        demo, site = Path(scratch) / "demo", Path(scratch) / "site"
        freezer = [sys.executable, "-m", "freezer"]
        subprocess.run([*freezer, "demo", str(demo)], check=True, capture_output=True, cwd=REPO)
        subprocess.run([*freezer, "site", str(site)], check=True, capture_output=True, cwd=demo)
        args.out.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
            for name, (rel, until) in PAGES.items():
                why = _shoot(page, site, rel, until, args.out / name)
                if why is not None:
                    problems.append(why)
            browser.close()
    for why in problems:
        print(f"site_screenshots: {why}", file=sys.stderr)
    if problems:
        return 1
    print("wrote", ", ".join(str(args.out / name) for name in PAGES))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
