"""``freezer site``'s results page per suite: the tables of ``results table``, each excluded fixture
one click away from its table (an anchor with its reason), and the static SVG plot with a break at
the step that moved half the fixtures (tests/results_board.py's registry)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import needs_inspect
from results_board import MOVED, built_site

pytestmark = needs_inspect  # the board's runs are Inspect logs


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> Path:
    base = tmp_path_factory.mktemp("site-results")
    return built_site(base, demo_build)


def test_the_suite_page_links_its_results_page(site: Path) -> None:
    assert 'href="results.html"' in (site / "quiz" / "index.html").read_text()
    assert not (site / "graph" / "results.html").exists()  # a suite without stored runs has none


def test_the_plot_breaks_at_the_moved_step_and_joins_the_comparable_one(site: Path) -> None:
    page = (site / "quiz" / "results.html").read_text()
    [svg] = re.findall(r"<svg .*?</svg>", page, re.S)
    assert "<script" not in svg and "http://" not in svg.replace('xmlns="http://www.w3.org/2000/svg"', "")
    breaks = re.findall(r'<line class="break" data-from="([^"]+)" data-to="([^"]+)"', svg)
    assert breaks == [("quiz_v2", "quiz_v3")]
    steps = re.findall(r'<line class="step" data-from="([^"]+)" data-to="([^"]+)"', svg)
    assert steps == [("quiz_v1", "quiz_v2")] * 2  # one per model, none across the break


def test_each_excluded_fixture_is_one_click_from_its_table(site: Path) -> None:
    page = (site / "quiz" / "results.html").read_text()
    [link] = re.findall(r'<a href="#(excluded-list-1)">2 fixture\(s\) excluded</a>', page)
    assert f'id="{link}"' in page
    for task in MOVED:
        [reason] = re.findall(
            rf'<li id="excluded-{task}"><a href="fixtures/{task}.html">{task}</a>: ([^<]+)</li>', page
        )
        assert "changed what the agent sees or what grades it: answer" in reason
        assert (site / "quiz" / "fixtures" / f"{task}.html").exists()
    assert "Comparable subset: <strong>2 fixture(s)</strong>" in page
