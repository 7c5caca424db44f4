"""The results page as a reader's browser shows it (Debian's chromium through Playwright, from
``file://``): the SVG plot is drawn, its one break stands at the step that moved half the fixtures
with no line across it, and a click on the excluded count lands on the reasons."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import CHROMIUM, needs_inspect
from results_board import MOVED, built_site

pytestmark = [
    pytest.mark.slow,  # a browser: CI runs it; `pytest -m slow` runs it here
    pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed"),
    needs_inspect,  # the board's runs are Inspect logs
]


@pytest.fixture(scope="module")
def results_page(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> Path:
    base = tmp_path_factory.mktemp("site-results-browser")
    return built_site(base, demo_build) / "quiz" / "results.html"


@pytest.fixture(scope="module")
def tab(results_page: Path, browser: Any) -> Iterator[Any]:
    page = browser.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(results_page.as_uri())
    assert requests == [results_page.as_uri(), results_page.parent.parent.joinpath("site.css").as_uri()]
    yield page
    page.close()


def test_the_plot_is_drawn_with_a_break_at_the_moved_step(tab: Any) -> None:
    plot = tab.locator("svg.results-plot")
    box = plot.bounding_box()
    assert box is not None and box["width"] > 300 and box["height"] > 100
    breaks = plot.locator("line.break")
    assert breaks.count() == 1
    assert (breaks.get_attribute("data-from"), breaks.get_attribute("data-to")) == ("quiz_v2", "quiz_v3")
    assert breaks.bounding_box() is not None  # drawn, not only present
    x_break = float(breaks.get_attribute("x1"))
    for line in plot.locator("line.step").all():  # no model's line crosses the break
        x1, x2 = float(line.get_attribute("x1")), float(line.get_attribute("x2"))
        assert not min(x1, x2) < x_break < max(x1, x2)
    assert plot.locator("line.step").count() == 2 and plot.locator("circle").count() == 6


def test_a_click_on_the_excluded_count_shows_each_reason(tab: Any) -> None:
    tab.get_by_role("link", name="2 fixture(s) excluded").click()
    assert tab.url.endswith("#excluded-list-1")
    for task in sorted(MOVED):
        reason = tab.locator(f"li#excluded-{task}")
        assert reason.is_visible()
        assert "changed what the agent sees or what grades it" in reason.inner_text()
