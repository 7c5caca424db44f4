"""Benchmarks against peers and against the limit, in the same run, reported as ratios.

    python bench/run.py            # full sizes (about 45 minutes on 2 cores)
    python bench/run.py --quick    # tiny sizes, about a minute; CI runs it so the harness cannot rot

Each workload has sides (see bench/harness.py): freezer on every core and on
one core, the peers a user would pick instead, and the limit, the least work
that does the same job. Results go to bench/results/<date>-<time>.json; a full
run also rewrites BENCHMARKS.md and adds a line to bench/NOTES.md's log.
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
import report  # noqa: E402
from harborscale import bench_harbor_scale  # noqa: E402
from harness import ENV, FREEZER, PY, REPO, Bar, Result, Sample, Side, machine, run_command  # noqa: E402
from leaderboard import bench_stored_results  # noqa: E402
from workloads import (  # noqa: E402
    bench_against,
    bench_audit,
    bench_check,
    bench_cut,
    bench_cut_assets,
    bench_folders,
    bench_gate_b,
    bench_ground_truth,
    bench_materialize,
    bench_results_import,
    bench_validate,
    bench_version,
    c_loader_env,
    scaling_rows,
)

# The hooks' start-up budget (issue 35): what `python -X importtime` adds up for a pre-commit hook.
IMPORT_BUDGET_S = 0.100


@dataclass(frozen=True)
class Sizes:
    validate: dict[str, int]  # fixtures per profile
    audit: tuple[int, int]  # asset files, bytes
    refs: int
    check: int  # frozen versions
    cut: int  # fixtures
    folders: int  # task folders of about 30 files each
    harbor: int  # Harbor-style task folders of 6 files, locked, cut 3 times, compared, rendered (issue 38)
    gate_b: tuple[int, ...]
    tree: tuple[int, int]  # files, bytes
    against: tuple[int, int]  # versions, fixtures
    scale_validate: tuple[int, ...]
    scale_check: tuple[int, ...]
    runs: int
    lmeval_unknown: int  # tasks of an lm-eval results file that no version holds
    stored_results: tuple[int, int]  # lm-eval tasks, models: each model's run of each of 3 versions


SIZES = {
    # Quick sizes only keep the harness from rotting in CI: every workload and peer runs, on a few files,
    # so its figures are mostly start-up costs, not the bars'.
    "quick": Sizes(
        validate={"standard": 50, "large": 20},
        audit=(100, 1 << 20),
        refs=100,
        check=10,
        cut=30,
        folders=10,
        harbor=20,
        gate_b=(20,),
        tree=(100, 1 << 20),
        against=(2, 10),
        scale_validate=(10, 100),
        scale_check=(2, 10),
        runs=1,  # quick mode keeps the harness from rotting (CI); its figures are not the bars'
        lmeval_unknown=100,
        stored_results=(20, 17),  # 1,020 rows
    ),
    # The large profile at 2,000 files: check-jsonschema takes about 30 s per run there.
    "full": Sizes(
        validate={"standard": 10_000, "large": 2_000},
        audit=(10_000, 1 << 30),
        refs=10_000,
        check=100,
        cut=10_000,
        folders=3_500,
        harbor=3_500,
        gate_b=(100, 2_000),
        tree=(10_000, 200 << 20),
        against=(10, 1_000),
        scale_validate=(100, 1_000, 10_000),
        scale_check=(10, 100, 1_000),
        runs=5,
        lmeval_unknown=6_000,
        stored_results=(1_000, 334),  # 1,002,000 rows
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes; finishes in under two minutes")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument("--markdown", type=Path, default=REPO / "BENCHMARKS.md")
    parser.add_argument(
        "--only",
        metavar="WORD",
        help="run only the workloads whose builder's name holds WORD (folders: bench_folders;"
        " harbor: bench_harbor_scale); BENCHMARKS.md stays",
    )
    args = parser.parse_args()
    mode = "quick" if args.quick else "full"
    partial_run = args.only is not None
    size = SIZES[mode]
    # A full run's work folder holds several GB: SIGTERM (a CI timeout, `kill`) must end the run through
    # the finally below, which removes it, as SIGINT's KeyboardInterrupt already does.
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    work = Path(tempfile.mkdtemp(prefix="freezer-bench-"))
    # The measured commands' temporary files (freezer's trees of a commit, 200 MB in the tree workload,
    # removed only when a command ends cleanly) go into the work folder, so a killed run leaves none.
    (work / "tmp").mkdir()
    ENV["TMPDIR"] = str(work / "tmp")
    started = time.monotonic()
    stamp = time.strftime("%Y-%m-%d-%H%M%S")
    facts = machine()
    try:
        clib = c_loader_env(work)
        builders: list[Callable[[], Result | None]] = [
            *(partial(bench_validate, work, count, profile, clib) for profile, count in size.validate.items()),
            partial(bench_audit, work / "audit", *size.audit),
            partial(bench_ground_truth, work, size.refs),
            partial(bench_check, work, size.check),
            partial(bench_version, work),
            partial(bench_cut, work, size.cut),
            partial(bench_cut_assets, work, *size.audit),
            partial(bench_folders, work, size.folders),
            partial(bench_harbor_scale, work, size.harbor),
            *(partial(bench_gate_b, work, count) for count in size.gate_b),
            partial(bench_materialize, work, *size.tree),
            partial(bench_results_import, work, size.lmeval_unknown),
            partial(bench_stored_results, work, *size.stored_results),
            partial(bench_hook_imports, work, "validate"),
            partial(bench_hook_imports, work, "check"),
        ]
        workloads: list[Result] = []
        for build in builders:
            if args.only is not None and args.only not in _builder_name(build):
                continue
            result = build()
            if result is None:  # its tool is not installed here; the builder said which
                continue
            # --version is a few ms: ten runs steady it, except in quick mode, which only keeps the harness alive.
            steady = result.workload == "freezer --version" and not args.quick
            result.measure(max(size.runs, 10) if steady else size.runs)
            workloads.append(result)
            print(report.one_line(result), flush=True)
        repeats = 1 if args.quick else 2  # quick mode: each side once, as for every workload above
        against = {} if partial_run else bench_against(work, *size.against, runs=repeats)
        scaling = {} if partial_run else scaling_rows(work, size.scale_validate, size.scale_check, repeats + 1)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results: dict[str, object] = {
        "date": stamp[:10],
        "started": stamp,
        "mode": mode,
        "command": f"python bench/run.py{' --quick' if args.quick else ''}",
        "seconds": round(time.monotonic() - started, 1),
        "machine": facts,
        "workloads": [w.to_json() for w in workloads],
        "against": against,
        "scaling": scaling,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    suffix = ("-quick" if args.quick else "") + (f"-only-{args.only}" if partial_run else "")
    (args.out / f"{stamp}{suffix}.json").write_text(json.dumps(results, indent=2) + "\n")
    if partial_run:
        for result in workloads:
            print(report.sides_table(result))
        print(f"only the workloads matching {args.only!r}: BENCHMARKS.md is left as it is")
        return
    if args.quick:
        print("quick mode: small sizes, where fixed start-up costs weigh more; the bars are set for the full sizes")
    else:
        report.write_markdown(results, args.markdown)
        report.log_run(results, HERE / "NOTES.md")
    print(f"audit --against: {against['median_s_by_versions']}")
    print(f"scaling: {scaling}")
    print(f"done in {results['seconds']} s")


# Each sample is the least of this many runs: other processes on the machine only ever add to an
# import's time, so the least is the nearest to the idle figure (the median of samples is reported).
IMPORT_RUNS = 5


def import_seconds(command: list[str], cwd: Path) -> Sample:
    """The sum of ``python -X importtime``'s self times for ``command``, the least of
    :data:`IMPORT_RUNS` runs: every import the process made, the interpreter's own included
    (``python -c pass`` reports those alone)."""
    sums = []
    for _ in range(IMPORT_RUNS):
        proc = subprocess.run([PY, "-X", "importtime", *command], cwd=cwd, env=ENV, capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(command[:4])} failed in {cwd}: {proc.stderr[-800:]}")
        lines = [line for line in proc.stderr.splitlines() if line.startswith("import time:")][1:]  # [0]: the header
        sums.append(sum(int(line[len("import time:") :].split("|")[0]) for line in lines) / 1e6)
    return Sample(min(sums), 0)


def bench_hook_imports(work: Path, command: str) -> Result:
    """What a pre-commit hook pays before it does anything: the import time of ``freezer validate``
    on 10 fixtures or ``freezer check`` on a clean registry (``freezer demo``'s), beside the
    interpreter's own start-up, held to the 100 ms budget."""
    if command == "validate":
        root = generate.registry(work / "hook-validate-10", 10)
        workload = "import time of the validate hook, 10 fixtures"
    else:
        root = work / "hook-check-demo"
        run_command([*FREEZER, "demo", str(root)], work)
        workload = "import time of the check hook, clean registry (freezer demo)"
    budget = f"{IMPORT_BUDGET_S * 1000:.0f} ms budget"
    sides = [
        Side("freezer", "freezer", partial(import_seconds, ["-m", "freezer", command], root)),
        Side("python -c pass", "limit", partial(import_seconds, ["-c", "pass"], root)),
        Side(budget, "limit", lambda: Sample(IMPORT_BUDGET_S, 0)),
    ]
    return Result(workload, sides, [Bar(f"≤ {budget} (python -X importtime, summed)", budget, 1.0)])


def _exit_on_sigterm(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def _builder_name(build: Callable[[], Result | None]) -> str:
    """The name of a workload before it is built (its builder's function name, e.g. bench_folders)."""
    func = build.func if isinstance(build, partial) else build
    return getattr(func, "__name__", "")


if __name__ == "__main__":
    main()
