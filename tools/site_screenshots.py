"""Regenerate the README's screenshots of the static site from the demo registry.

    python tools/site_screenshots.py        # writes docs/site-version.png and docs/site-fixture.png

Needs Debian's chromium and Playwright (the dev extras); nothing is downloaded.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PAGES = {
    "site-version.png": "graph/graph_v2/index.html",
    "site-fixture.png": "graph/fixtures/locate-loopaudit-variants.html",
}


def main() -> int:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("needs chromium (apt install chromium)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        demo, site = Path(scratch) / "demo", Path(scratch) / "site"
        freezer = [sys.executable, "-m", "freezer"]
        subprocess.run([*freezer, "demo", str(demo)], check=True, capture_output=True, cwd=REPO)
        subprocess.run([*freezer, "site", str(site)], check=True, capture_output=True, cwd=demo)
        (REPO / "docs").mkdir(exist_ok=True)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1100, "height": 900})
            for name, rel in PAGES.items():
                page.goto((site / rel).as_uri())
                page.screenshot(path=str(REPO / "docs" / name))
            browser.close()
    print("wrote", ", ".join(f"docs/{name}" for name in PAGES))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
