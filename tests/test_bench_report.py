"""bench/report.py's run log (bench/NOTES.md): each missed bar is named whole, so the log says which."""

from __future__ import annotations

import sys
from pathlib import Path

from conftest import REPO

# Appended, not put first: bench/ holds a site.py, which must never shadow the standard library's.
sys.path.append(str(REPO / "bench"))

import report


def _results(workload: str, bars: list[tuple[str, float, bool]]) -> dict[str, object]:
    return {
        "started": "2026-12-04-165453",
        "machine": {"commit": "3ba3640", "load_average_at_start": [0.5, 0.4, 0.3]},
        "workloads": [
            {"workload": workload, "bars": [{"label": a, "ratio": r, "held": h} for a, r, h in bars]},
        ],
    }


def test_the_run_log_names_a_missed_bars_workload_whole(tmp_path: Path) -> None:
    notes = tmp_path / "NOTES.md"
    notes.write_text(f"# Notes\n\n| run |\n|---|\n{report.LOG_MARK}\n\nlater text\n", encoding="utf-8")
    workload = "audit of a version freezer cut: 10,000 asset files (1,079 MB)"
    bars = [("wall ≤ 0.35× sha256sum -c", 0.2, True), ("throughput ≥ 0.8× hashlib on 2 cores", 1.268, False)]
    report.log_run(_results(workload, bars), notes)
    text = notes.read_text(encoding="utf-8")
    [line] = [line for line in text.splitlines() if line.startswith("| 2026-12-04-165453 ")]
    assert "| 1 of 2 |" in line
    assert f"{workload}: throughput ≥ 0.8× hashlib on 2 cores: 1.268" in line
    assert "sha256sum -c" not in line  # a held bar is counted, not listed
    assert text.index(line) < text.index(report.LOG_MARK) < text.index("later text")
