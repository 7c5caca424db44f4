"""A stored file may hold several runs (``results add`` of two lm-eval results files of two models):
``results table`` shows each run on its own line, never one mean over both."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import run_inprocess
from results_board import BBH, lmeval_results


def test_each_run_of_a_stored_file_is_its_own_line(demo_build: Path, tmp_path: Path) -> None:
    root = tmp_path / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    shutil.rmtree(root / "results")  # the demo's own stored runs
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    small = lmeval_results(tmp_path / "a", model_name="org/small", date=1764583200.0)
    large = lmeval_results(tmp_path / "b", model_name="org/large", date=1764583200.0)
    document = json.loads(large.read_text())
    for task in BBH:
        document["results"][task]["exact_match,final-answer"] = 1.0
    large.write_text(json.dumps(document))
    args = ["--from", "lm-eval", str(small), str(large), "--version", "bbh_v2"]
    assert run_inprocess("results", "add", *args, cwd=root).code == 0
    [stored] = sorted((root / "results" / "bbh_v2").iterdir())
    assert json.loads(stored.read_text().splitlines()[0])["rows"] == 6  # one file, two runs
    shown = run_inprocess("results", "table", "--suite", "bbh", "--format", "json", cwd=root)
    assert shown.code == 0, shown.text
    [suite] = json.loads(shown.out)["result"]["suites"]
    [v2] = suite["versions"]
    runs = sorted((run["model"], run["fixtures"], run["mean"]) for run in v2["runs"])
    assert runs == [("org/large 2025-12-01T10:00:00Z", 3, 1.0), ("org/small 2025-12-01T10:00:00Z", 3, 0.5)]
