"""How bench/run.py measures: sides of a workload, run in turn, and the bars they are held to.

A workload has several *sides*: freezer (on every core, and pinned to one
core), the *peer* a user would pick instead, more peers, and the *limit* (the
least work that does the same job, on one core and on every core). Every side
runs once to warm the page cache, then all sides take turns (A B C A B C ...),
so each sees the same machine; medians are compared.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
# Bytecode caching on, as for any installed tool (the peers' .pyc files are written by pip). The
# commands run as on a developer's machine: under CI, `freezer check` refuses to guess its base when
# no CI event names one, and the hooks a developer runs are what the workloads measure.
_CI_ONLY = {
    "PYTHONDONTWRITEBYTECODE",
    "CI",
    "GITHUB_ACTIONS",
    "GITHUB_EVENT_NAME",
    "GITHUB_EVENT_PATH",
    "GITHUB_BASE_REF",
}
ENV = {key: value for key, value in os.environ.items() if key not in _CI_ONLY}
ENV["PYTHONPATH"] = str(REPO)
PY = sys.executable
FREEZER = [PY, "-m", "freezer"]
CORES = os.cpu_count() or 1
# One core, for figures that tell the algorithm from the parallelism.
ONE_CORE = ["taskset", "-c", "0"] if shutil.which("taskset") else []


@dataclass
class Sample:
    seconds: float
    peak_kib: int
    cpu_seconds: float = 0.0


def run_command(
    command: list[str], cwd: Path, setup: Callable[[], None] | None = None, env: dict[str, str] | None = None
) -> Sample:
    """Run once through bench/peak.py: wall time, CPU time (children included) and peak RSS."""
    if setup:
        setup()
    with tempfile.NamedTemporaryFile(suffix=".json") as result, tempfile.TemporaryFile() as err:
        # A session, so a process group, of its own (setsid by the child before exec: no Python code
        # runs there; process_group= is 3.11's), so a run that ends early (SIGTERM, ^C, an error) ends
        # the measured command and whatever it started too: killing peak.py alone would leave them
        # writing into the work folder that bench/run.py's finally removes.
        proc = subprocess.Popen(
            [PY, str(HERE / "peak.py"), result.name, *command],
            cwd=cwd,
            env={**ENV, **(env or {})},
            stdin=subprocess.DEVNULL,  # no terminal in a session of its own
            stderr=err,
            start_new_session=True,
        )
        try:
            proc.wait()
        except BaseException:
            # SIGKILL, not ^C's SIGINT: a shell's background job ignores SIGINT, and so would the
            # group. What a command leaves in the temporary folder lies in the work folder (run.py).
            with contextlib.suppress(ProcessLookupError):  # every member already gone
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise
        measured = json.loads(Path(result.name).read_text() or "{}")
        if proc.returncode != 0 or measured.get("rc") != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(command[:4])} failed in {cwd}: {err.read().decode()[-800:]}")
    return Sample(measured["seconds"], int(measured["peak_kib"]), float(measured.get("cpu_seconds", 0.0)))


@dataclass
class Side:
    """One way of doing a workload's job. ``role`` is freezer, peer or limit."""

    name: str
    role: str
    run: Callable[[], Sample]
    samples: list[Sample] = field(default_factory=list)

    def median(self, measure: str = "seconds") -> float:
        return float(statistics.median(getattr(s, measure) for s in self.samples))


@dataclass(frozen=True)
class Bar:
    """``side``'s median ``measure`` must be at most ``most`` times ``against``'s."""

    label: str
    against: str
    most: float
    measure: str = "seconds"
    side: str = "freezer"


@dataclass
class Result:
    workload: str
    sides: list[Side]
    bars: list[Bar] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # A note that can only be written once every run is done (e.g. a median the command reported).
    late_note: Callable[[], str] | None = None
    # A workload whose one run takes minutes (its inputs just written, so already in the page cache)
    # is run this many times at most, without the warm-up run.
    most_runs: int | None = None
    # The side every other is compared with (freezer / side): the freezer command the workload is named for.
    main: str = "freezer"

    def side(self, name: str) -> Side:
        return next(s for s in self.sides if s.name == name)

    def first(self, role: str) -> Side | None:
        return next((s for s in self.sides if s.role == role), None)

    def ratio(self, bar: Bar) -> float:
        return self.side(bar.side).median(bar.measure) / self.side(bar.against).median(bar.measure)

    def measure(self, runs: int) -> Result:
        if self.most_runs is None:
            for side in self.sides:
                side.run()  # warm the page cache and the bytecode cache
        for _ in range(runs if self.most_runs is None else min(runs, self.most_runs)):
            for side in self.sides:
                side.samples.append(side.run())
        if self.late_note:
            self.notes.append(self.late_note())
        return self

    def to_json(self) -> dict[str, object]:
        freezer = self.side(self.main)
        return {
            "workload": self.workload,
            "main": self.main,
            "sides": [
                {
                    "name": s.name,
                    "role": s.role,
                    "median_s": round(s.median(), 4),
                    "median_cpu_s": round(s.median("cpu_seconds"), 4),
                    "peak_mib": round(max(x.peak_kib for x in s.samples) / 1024, 1),
                    "freezer_ratio": round(freezer.median() / s.median(), 3),
                    "runs": len(s.samples),
                }
                for s in self.sides
            ],
            "bars": [
                {
                    "label": b.label,
                    "measure": b.measure,
                    "against": b.against,
                    "most": b.most,
                    "ratio": round(self.ratio(b), 3),
                    "held": self.ratio(b) <= b.most,
                }
                for b in self.bars
            ],
            "notes": self.notes,
        }


def machine() -> dict[str, object]:
    import platform
    from importlib.metadata import version

    from freezer.domain.release import DISTRIBUTION  # the index name freezer is installed under; only here

    def version_of(command: list[str]) -> str:
        try:
            return subprocess.run(command, capture_output=True, text=True, check=False).stdout.strip().splitlines()[0]
        except (OSError, IndexError):
            return "unavailable"

    return {
        "platform": platform.platform(),
        "cpus": CORES,
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(),
        "freezer": version(DISTRIBUTION),
        "commit": version_of(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"]),
        "jsonschema": version("jsonschema"),
        "fastjsonschema": version("fastjsonschema"),
        "pyyaml": version("pyyaml"),
        "check-jsonschema": version("check-jsonschema"),
        "ruamel.yaml": version("ruamel.yaml"),
        "sha256sum": version_of(["sha256sum", "--version"]),
        "openssl": version_of(["openssl", "version"]),
        "git": version_of(["git", "--version"]),
    }
