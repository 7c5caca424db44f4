"""``freezer demo`` stores two models' lm-eval runs of bbh_v1 and bbh_v2 (results JSON in lm-eval
0.4.8's shape, through ``results add``), so ``results table`` and the site show a leaderboard out
of the box: three of bbh's five tasks moved at v2, so the cross-version table is over the two
that did not, the subset ``freezer compare`` names, and the plot breaks at that step."""

from __future__ import annotations

import json
import re
from pathlib import Path

from freezer.demo.results import SCORES

from conftest import run_inprocess

COMPARABLE = ("bbh_slice_boolean_logic", "bbh_slice_calendar_steps")
TASKS = ("alphabetical_order", "boolean_logic", "bracket_closing", "calendar_steps", "item_tally")


def test_the_demo_stores_runs_and_the_table_pools_only_the_comparable_tasks(demo_build: Path) -> None:
    assert run_inprocess("audit", "--no-code", cwd=demo_build).code == 0
    shown = run_inprocess("results", "table", "--suite", "bbh", "--format", "json", cwd=demo_build)
    assert shown.code == 0, shown.text
    [suite] = json.loads(shown.out)["result"]["suites"]
    assert [v["version"] for v in suite["versions"]] == ["bbh_v1", "bbh_v2"]
    for one in suite["versions"]:
        runs = {run["model"]: (run["fixtures"], run["harness_version"]) for run in one["runs"]}
        assert runs == dict.fromkeys(SCORES, (5, "0.4.8"))
    compared = run_inprocess("compare", "bbh_v1", "bbh_v2", "--format", "json", cwd=demo_build)
    [arm] = json.loads(compared.out)["result"]["arms"]
    [cross] = suite["cross"]
    assert tuple(cross["subset"]) == COMPARABLE == tuple(arm["comparable"])
    assert cross["subset_sha256"] == arm["subset_sha256"]
    by_task = {model: {v: dict(zip(TASKS, s, strict=True)) for v, s in runs.items()} for model, runs in SCORES.items()}
    for row in cross["rows"]:
        for version, score in row["scores"].items():
            expected = sum(by_task[row["model"]][version][t.removeprefix("bbh_slice_")] for t in COMPARABLE) / 2
            assert score == round(expected, 6)


def test_the_demo_site_shows_the_leaderboard(demo_build: Path, tmp_path: Path) -> None:
    built = run_inprocess("site", str(tmp_path / "site"), cwd=demo_build)
    assert built.code == 0, built.text
    page = (tmp_path / "site" / "bbh" / "results.html").read_text()
    assert re.findall(r'<line class="break" data-from="([^"]+)" data-to="([^"]+)"', page) == [("bbh_v1", "bbh_v2")]
    assert "Comparable subset: <strong>2 fixture(s)</strong>" in page
