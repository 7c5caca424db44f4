"""BENCHMARKS.md and the run log in bench/NOTES.md, from one run's results (bench/run.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness import HERE, Result

LOG_MARK = "<!-- bench/run.py adds each full run above this line -->"

HOW = """\
- Every side runs once to warm the page cache, then all sides take turns (A B C A B C ...), so each
  sees the same machine and the same load; medians are compared. Bytecode caching is on for
  freezer, as for any installed tool.
- CPU time is user + system time of the command and every process it waited for (freezer's
  workers included), from `wait4`. Peak RSS is measured by `bench/peak.py`, a small process that
  forks each command itself: Linux charges a child the high-water mark of the process it was
  forked from, which would charge the runner's memory.
- "1 core" runs the same command under `taskset -c 0`: freezer still starts its workers, and they
  share the one core. The figure tells the algorithm from the parallelism.
- `check` is measured on registries whose versions are copies of one real version: check never
  reads a version that did not change, so their contents do not matter to it.
- `cut` of fixtures is compared without its git checks (ground truth, Gate B and provenance read
  the code repository; `cp` has no counterpart); their median is in the notes.
"""


def one_line(result: Result) -> str:
    marks = {True: "✓", False: "✗"}
    bars = "; ".join(f"{b.label}: {result.ratio(b):.3f} {marks[result.ratio(b) <= b.most]}" for b in result.bars)
    return f"{result.workload}: {bars or 'no bar'}"


def _cell(value: float | None) -> str:
    return "—" if value is None else f"{value:.4g}"


def _summary(rows: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| workload | freezer (s) | freezer, 1 core (s) | peer (s) | freezer / peer | limit (s) | freezer / limit |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        sides = {s["name"]: s for s in row["sides"]}
        main = row.get("main", "freezer")  # results written before a workload could name its main side
        freezer = sides[main]
        single = sides.get(f"{main}, 1 core")
        peer = next((s for s in row["sides"] if s["role"] == "peer"), None)
        limit = next((s for s in row["sides"] if s["role"] == "limit"), None)
        lines.append(
            f"| {row['workload']} | {_cell(freezer['median_s'])} | {_cell(single and single['median_s'])} | "
            + (f"{peer['name']}: {_cell(peer['median_s'])} | **{peer['freezer_ratio']}** | " if peer else "— | — | ")
            + (f"{limit['name']}: {_cell(limit['median_s'])} | **{limit['freezer_ratio']}** |" if limit else "— | — |")
        )
    return lines


def _bars(rows: list[dict[str, Any]]) -> list[str]:
    lines = ["| workload | bar | measured | held |", "|---|---|---|---|"]
    for row in rows:
        for bar in row["bars"]:
            what = "CPU" if bar["measure"] == "cpu_seconds" else "wall"
            lines.append(
                f"| {row['workload']} | {bar['label']} | {what} {bar['ratio']} | {'✓' if bar['held'] else '✗ missed'} |"
            )
    return lines


def sides_table(result: Result) -> str:
    """One workload's sides as a Markdown table (a partial run prints it; a full one writes all)."""
    return "\n".join(_sides([result.to_json()]))


def _sides(rows: list[dict[str, Any]]) -> list[str]:
    lines: list[str] = []
    for row in rows:
        lines += [
            f"### {row['workload']}",
            "",
            "| side | role | wall (s) | CPU (s) | peak RSS (MiB) | freezer / side |",
            "|---|---|---|---|---|---|",
        ]
        for side in row["sides"]:
            lines.append(
                f"| {side['name']} | {side['role']} | {side['median_s']} | {side['median_cpu_s']} | "
                f"{side['peak_mib']} | {side['freezer_ratio']} |"
            )
        if row["notes"]:
            lines += ["", *(f"- {note}" for note in row["notes"])]
        lines.append("")
    return lines


def write_markdown(results: dict[str, Any], path: Path) -> None:
    facts = results["machine"]
    # A side's name may hold a pipe (git archive | tar -x), which would split a table cell.
    rows = json.loads(json.dumps(results["workloads"]).replace("|", "\\\\|"))
    lines = [
        "# Benchmarks",
        "",
        f"Measured {results['started']} at commit {facts['commit']} on {facts['platform']} ({facts['cpus']} cores, "
        f"load average {facts['load_average_at_start'][0]} at the start), mode `{results['mode']}`, "
        f"{results['seconds'] / 60:.0f} minutes. Rerun: `{results['command']}`.",
        "",
        "A ratio is freezer's median over the other side's: below 1, freezer is faster. The **peer** is the",
        "tool a user would pick instead; the **limit** is the least work that does the same job, run in the",
        'same harness (what each one is, and what it leaves out, is under "The peers and the limits").',
        "",
        *_summary(rows),
        "",
        "## Bars",
        "",
        *_bars(rows),
        "",
    ]
    peers = HERE / "PEERS.md"
    if peers.is_file():
        lines += [peers.read_text(encoding="utf-8").rstrip(), ""]
    lines += ["## Every side", "", *_sides(rows)]
    against = results["against"]
    lines += [
        f"## {against['workload']}",
        "",
        f"| versions | median (s) | per version (s) | cores kept busy (of {against['cores']}) |",
        "|---|---|---|---|",
    ]
    for count, seconds in against["median_s_by_versions"].items():
        busy = against["cores_used_by_versions"][count]
        lines.append(f"| {count} | {seconds} | {against['per_version_s'][count]} | {busy} |")
    lines += ["", "## Scaling", "", "| command | size | median (s) |", "|---|---|---|"]
    for command, sizes in results["scaling"].items():
        unit = "fixtures" if command == "validate" else "versions"
        lines += [f"| {command} | {int(size):,} {unit} | {seconds} |" for size, seconds in sizes.items()]
    lines += ["", "## How these are measured", "", HOW.rstrip(), ""]
    # Hand-written history (what was tried, every full run) lives beside the runner so a rerun keeps it.
    notes = HERE / "NOTES.md"
    if notes.is_file():
        lines += [notes.read_text(encoding="utf-8").rstrip(), ""]
    lines += ["## Machine", "", "```json", json.dumps(facts, indent=2), "```", ""]
    path.write_text("\n".join(lines), encoding="utf-8")


def log_run(results: dict[str, Any], notes: Path) -> None:
    """Add this run to the log in bench/NOTES.md, bars missed included: the log keeps every full run."""
    facts = results["machine"]
    held: list[str] = []
    missed: list[str] = []
    for row in results["workloads"]:
        for bar in row["bars"]:
            # The whole name: its commas are also thousands separators ("10,000 asset files").
            text = f"{row['workload']}: {bar['label']}: {bar['ratio']}"
            (held if bar["held"] else missed).append(text)
    line = (
        f"| {results['started']} | {facts['commit']} | {facts['load_average_at_start'][0]} | "
        f"{len(held)} of {len(held) + len(missed)} | {'; '.join(missed) or 'none'} | "
        f"`bench/results/{results['started']}.json` |"
    )
    text = notes.read_text(encoding="utf-8")
    if LOG_MARK not in text:
        text = text.rstrip() + f"\n\n{LOG_MARK}\n"
    notes.write_text(text.replace(LOG_MARK, f"{line}\n{LOG_MARK}"), encoding="utf-8")
