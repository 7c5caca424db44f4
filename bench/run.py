"""Benchmarks against peers, in the same run, reported as ratios (freezer / comparator).

    python bench/run.py            # full sizes (takes a while)
    python bench/run.py --quick    # small sizes, under two minutes; CI runs this

Each workload runs A B A B ... (at least 5 of each), and reports the median
wall time, the ratio of the medians, and the peak RSS of each side. Results
go to bench/results/<date>.json and a table to BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

import generate  # noqa: E402

# Bytecode caching on, as for any installed tool (the peers' .pyc files are written by pip).
ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
ENV["PYTHONPATH"] = str(REPO)
PY = sys.executable
FREEZER = [PY, "-m", "freezer"]
# The peer is installed next to this interpreter (pip install -e '.[dev]'), which need not be on PATH.
CHECK_JSONSCHEMA = shutil.which("check-jsonschema") or str(Path(PY).parent / "check-jsonschema")


@dataclass
class Sample:
    seconds: float
    peak_kib: int
    cpu_seconds: float = 0.0


@dataclass
class Result:
    workload: str
    comparator: str
    bar: str
    freezer: list[Sample] = field(default_factory=list)
    peer: list[Sample] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def median(self, side: list[Sample]) -> float:
        return statistics.median(s.seconds for s in side)

    @property
    def ratio(self) -> float:
        return self.median(self.freezer) / self.median(self.peer)

    def to_json(self) -> dict[str, object]:
        return {
            "workload": self.workload,
            "comparator": self.comparator,
            "bar": self.bar,
            "freezer_median_s": round(self.median(self.freezer), 4),
            "peer_median_s": round(self.median(self.peer), 4),
            "ratio": round(self.ratio, 3),
            "freezer_peak_mib": round(max(s.peak_kib for s in self.freezer) / 1024, 1),
            "peer_peak_mib": round(max(s.peak_kib for s in self.peer) / 1024, 1),
            "runs": len(self.freezer),
            "notes": self.notes,
        }


def run_command(command: list[str], cwd: Path, setup: Callable[[], None] | None = None) -> Sample:
    """Run once through bench/peak.py: wall time and peak RSS of the command alone."""
    if setup:
        setup()
    with tempfile.NamedTemporaryFile(suffix=".json") as result, tempfile.TemporaryFile() as err:
        proc = subprocess.run(
            [PY, str(HERE / "peak.py"), result.name, *command], cwd=cwd, env=ENV, stderr=err, check=False
        )
        measured = json.loads(Path(result.name).read_text() or "{}")
        if proc.returncode != 0 or measured.get("rc") != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(command[:4])} failed in {cwd}: {err.read().decode()[-800:]}")
    return Sample(measured["seconds"], int(measured["peak_kib"]), float(measured.get("cpu_seconds", 0.0)))


def interleave(result: Result, a: Callable[[], Sample], b: Callable[[], Sample], runs: int) -> Result:
    a()  # warm the page cache and the bytecode cache for both sides
    b()
    for _ in range(runs):
        result.freezer.append(a())
        result.peer.append(b())
    return result


def bench_validate(work: Path, fixtures: int, runs: int) -> Result:
    root = generate.registry(work / f"validate-{fixtures}", fixtures)
    files = sorted(str(p) for p in (root / "drafts" / "fixtures").glob("*.yaml"))
    schema = str(REPO / "schemas" / "fixture.schema.json")
    result = Result(
        f"validate {fixtures:,} fixture files", "check-jsonschema --schemafile (same files, same schema)", "<= 0.10"
    )
    return interleave(
        result,
        lambda: run_command([*FREEZER, "validate", "drafts"], root),
        lambda: run_command([CHECK_JSONSCHEMA, "--schemafile", schema, *files], root),
        runs,
    )


def _clear_cut(root: Path, copy_target: Path) -> None:
    """Undo a cut (its files are read-only) and the peer's copy, so the next run starts alike."""
    versions = root / "versions"
    if versions.exists():
        for path in versions.rglob("*"):
            path.chmod(0o755 if path.is_dir() else 0o644)
        shutil.rmtree(versions)
    shutil.rmtree(copy_target, ignore_errors=True)


def _registry_with_assets(work: Path, count: int, total: int) -> Path:
    """A registry whose drafts carry ``count`` mixed-size asset files, about ``total`` bytes."""
    root = generate.registry(work / "assets", 4)
    generate.blobs(root / "drafts" / "blobs", count, total)
    return root


def _version_with_blobs(work: Path, count: int, total: int) -> Path:
    """A version that ``freezer cut`` wrote, holding ``count`` asset files."""
    root = _registry_with_assets(work, count, total)
    subprocess.run([*FREEZER, "cut", "v1"], cwd=root, env=ENV, check=True, capture_output=True)
    return root


def bench_cut_assets(work: Path, count: int, total: int, runs: int) -> Result:
    """A cut of drafts with ``total`` bytes of assets, against copying and hashing the same files."""
    root = _registry_with_assets(work / "cut-assets", count, total)
    target = work / "cp-assets"

    def reset() -> None:
        _clear_cut(root, target)

    shell = f"cp -r drafts {target} && find {target} -type f -exec sha256sum {{}} + > /dev/null"
    result = Result(
        f"cut of a version with {count:,} asset files ({total >> 20} MB)",
        "cp -r + sha256sum of the same files",
        "reported",
    )
    interleave(
        result,
        lambda: run_command([*FREEZER, "cut", "v1"], root, reset),
        lambda: run_command(["bash", "-c", shell], root, reset),
        runs,
    )
    result.notes.append("freezer reads each asset twice (hash, then copy checked against the hash) and syncs to disk")
    return result


def bench_audit(work: Path, count: int, total: int, runs: int) -> Result:
    root = _version_with_blobs(work, count, total)
    version = root / "versions" / "bench_v1"
    size_mb = sum(p.stat().st_size for p in version.rglob("*") if p.is_file()) / 1e6
    result = Result(
        f"audit integrity, 1 version of {count:,} files ({size_mb:,.0f} MB)", "sha256sum -c SHA256SUMS", "<= 0.35"
    )
    interleave(
        result,
        lambda: run_command([*FREEZER, "audit", "--no-code"], root),
        lambda: run_command(["sha256sum", "--quiet", "-c", "SHA256SUMS"], version),
        runs,
    )
    rate = size_mb / result.median(result.freezer)
    result.notes.append(
        f"freezer hashes {rate:,.0f} MB/s (single-core hashlib ceiling measured here: ~1,000-1,500 MB/s)"
    )
    return result


def bench_ground_truth(work: Path, refs: int, runs: int) -> Result:
    root = generate.registry(work / f"gt-{refs}", refs)
    sha = generate.git(root / "code", "rev-parse", "HEAD").strip()
    modules = generate.files_per_repo(refs)
    data = [{"file": f"src/mod_{i % modules}.rs", "line": i // modules + 1, "symbol": f"sym_{i}"} for i in range(refs)]
    refs_file = work / "refs.json"
    refs_file.write_text(json.dumps(data))
    gt = str(HERE / "gt.py")
    result = Result(
        f"ground truth, {refs:,} file:line refs at one SHA", "minimal loop over one git cat-file --batch", "<= 1.5"
    )
    return interleave(
        result,
        lambda: run_command([PY, gt, "freezer", str(root / "code"), sha, str(refs_file)], root),
        lambda: run_command([PY, gt, "catfile", str(root / "code"), sha, str(refs_file)], root),
        runs,
    )


def bench_gate_b(work: Path, fixtures: int, runs: int) -> Result:
    """Gate B of ``fixtures`` fixtures at one commit, against the same rg run once per fixture by a shell loop."""
    root = generate.registry(work / f"gateb-{fixtures}", fixtures)
    code = root / "code"
    sha = generate.git(code, "rev-parse", "HEAD").strip()
    modules = generate.files_per_repo(fixtures)
    data = [
        {
            "status": "landed",
            "naive_grep": {"pattern": rf"\bsym_{i}\b", "paths": ["src"], "flags": ["-n"]},
            "gate_b": {"status": "pass", "expected_matches": 1, "expected_files": 1},
        }
        for i in range(fixtures)
    ]
    fixtures_file = work / f"gateb-{fixtures}.json"
    fixtures_file.write_text(json.dumps(data))
    patterns = work / f"gateb-{fixtures}.txt"
    patterns.write_text("".join(f"\\bsym_{i}\\b\n" for i in range(fixtures)))
    tree = work / f"gateb-tree-{fixtures}"
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir()
    subprocess.run(f"git archive {sha} | tar -x -C {tree}", shell=True, cwd=code, check=True)
    (tree / ".git").mkdir()
    rg = shutil.which("rg", path=str(Path(PY).parent)) or "rg"
    loop = (
        f"while IFS= read -r p; do {rg} --no-config --no-ignore-global --count --null --with-filename -n "
        f'-e "$p" -- src >/dev/null; done < {patterns}'
    )
    result = Result(
        f"Gate B, {fixtures:,} fixtures at one commit (incl. writing the tree out)",
        "shell loop: the same rg once per fixture, in a tree already written out",
        "<= 1.3",
    )
    result.notes.append(f"{modules} source files; freezer runs one rg per fixture on every core")
    return interleave(
        result,
        lambda: run_command([PY, str(HERE / "gateb.py"), "gate", str(code), sha, str(fixtures_file)], root),
        lambda: run_command(["bash", "-c", loop], tree),
        runs,
    )


def bench_materialize(work: Path, files: int, total: int, runs: int) -> Result:
    """Writing a commit's tree out for rg, against git archive | tar -x of the same commit."""
    code = work / "tree-code"
    generate.blobs(code / "data", files, total)
    generate.git(code, "init", "-q", "-b", "main")
    generate.git(code, "add", "-A")
    generate.git(code, "commit", "-q", "-m", "files")
    sha = generate.git(code, "rev-parse", "HEAD").strip()
    out = work / "tree-out"
    shell = f"mkdir {out} && git archive {sha} | tar -x -C {out} && rm -rf {out}"
    result = Result(
        f"write out a commit's tree, {files:,} files ({total >> 20} MB), then remove it",
        "git archive | tar -x, then rm -rf",
        "<= 1.5",
    )
    return interleave(
        result,
        lambda: run_command([PY, str(HERE / "gateb.py"), "tree", str(code), sha, str(out)], code),
        lambda: run_command(["bash", "-c", shell], code),
        runs,
    )


def registry_with_versions(work: Path, versions: int) -> Path:
    """A git registry with ``versions`` frozen versions committed (copies: check never reads unchanged ones)."""
    root = generate.registry(work / f"check-{versions}", 4)
    subprocess.run([*FREEZER, "cut", "v1"], cwd=root, env=ENV, check=True, capture_output=True)
    first = root / "versions" / "bench_v1"
    for number in range(2, versions + 1):
        shutil.copytree(first, root / "versions" / f"bench_v{number}")
    generate.git(root, "add", "-A")
    generate.git(root, "commit", "-q", "-m", "versions")
    return root


def bench_check(work: Path, versions: int, runs: int) -> Result:
    root = registry_with_versions(work, versions)
    result = Result(
        f"check, registry of {versions:,} frozen versions, nothing changed", "check-jsonschema --version", "<= 0.6"
    )
    return interleave(
        result,
        lambda: run_command([*FREEZER, "check", "--base", "HEAD"], root),
        lambda: run_command([CHECK_JSONSCHEMA, "--version"], root),
        runs,
    )


def bench_version(work: Path, runs: int) -> Result:
    result = Result("freezer --version", "python -c pass", "<= 8")
    return interleave(
        result,
        lambda: run_command([*FREEZER, "--version"], work),
        lambda: run_command([PY, "-c", "pass"], work),
        runs,
    )


def bench_cut(work: Path, fixtures: int, runs: int) -> Result:
    root = generate.registry(work / f"cut-{fixtures}", fixtures)
    copy_target = work / "cp-target"

    def reset() -> None:
        _clear_cut(root, copy_target)

    timings: list[dict[str, float]] = []

    def freezer_cut() -> Sample:
        reset()
        with tempfile.NamedTemporaryFile(suffix=".json") as stdout:
            os.environ["PEAK_STDOUT"] = stdout.name
            ENV["PEAK_STDOUT"] = stdout.name
            try:
                sample = run_command([*FREEZER, "cut", "v1", "--format", "json"], root)
            finally:
                ENV.pop("PEAK_STDOUT", None)
                os.environ.pop("PEAK_STDOUT", None)
            timings.append(json.loads(Path(stdout.name).read_text())["result"]["timings"])
        # Compared without the git checks, which cp has no counterpart for; they are reported apart.
        return Sample(sample.seconds - timings[-1]["git_checks"], sample.peak_kib)

    shell = f"cp -r drafts {copy_target} && find {copy_target} -type f -exec sha256sum {{}} + > /dev/null"
    result = Result(
        f"cut of a {fixtures:,}-fixture version (without git checks)", "cp -r + sha256sum of the same files", "<= 3"
    )
    interleave(result, freezer_cut, lambda: run_command(["bash", "-c", shell], root, reset), runs)
    git_checks = statistics.median(t["git_checks"] for t in timings)
    result.notes.append(f"git checks (ground truth, Gate B, provenance) reported apart: median {git_checks:.2f} s")
    return result


def bench_against(work: Path, versions: int, fixtures: int, runs: int) -> dict[str, object]:
    root = generate.registry(work / "against", fixtures)
    for number in range(1, versions + 1):
        if number > 1:
            version_file = root / "drafts" / "version.yaml"
            version_file.write_text(version_file.read_text().replace(f"version: {number - 1}", f"version: {number}"))
            first = root / "drafts" / "fixtures" / "fx-000000.yaml"
            first.write_text(first.read_text().replace("question: ", f"question: (v{number}) ", 1))
        subprocess.run([*FREEZER, "cut", f"v{number}"], cwd=root, env=ENV, check=True, capture_output=True)
    head = generate.git(root / "code", "rev-parse", "HEAD").strip()
    scaling: dict[int, float] = {}
    cores_used: dict[int, float] = {}
    for count in sorted({1, versions}):
        names = [f"bench_v{n}" for n in range(1, count + 1)]
        samples = [run_command([*FREEZER, "audit", *names, "--against", head], root) for _ in range(runs)]
        scaling[count] = statistics.median(s.seconds for s in samples)
        # CPU time (workers included) over wall time: how many cores the audit kept busy.
        cores_used[count] = statistics.median(s.cpu_seconds / s.seconds for s in samples)
    return {
        "workload": f"audit --against over {versions} versions x {fixtures:,} fixtures",
        "median_s_by_versions": {str(k): round(v, 3) for k, v in scaling.items()},
        "per_version_s": {str(k): round(v / k, 3) for k, v in scaling.items()},
        "cores_used_by_versions": {str(k): round(v, 2) for k, v in cores_used.items()},
        "cores": os.cpu_count(),
    }


def scaling_rows(work: Path, sizes: list[int], versions: list[int], runs: int) -> dict[str, dict[str, float]]:
    table: dict[str, dict[str, float]] = {"validate": {}, "check": {}}
    for size in sizes:
        root = generate.registry(work / f"scale-{size}", size)
        samples = [run_command([*FREEZER, "validate", "drafts"], root) for _ in range(runs)]
        table["validate"][str(size)] = round(statistics.median(s.seconds for s in samples), 3)
    for count in versions:
        root = registry_with_versions(work / f"scale-check-{count}", count)
        samples = [run_command([*FREEZER, "check", "--base", "HEAD"], root) for _ in range(runs)]
        table["check"][str(count)] = round(statistics.median(s.seconds for s in samples), 3)
    return table


def machine() -> dict[str, object]:
    def version_of(command: list[str]) -> str:
        try:
            return subprocess.run(command, capture_output=True, text=True, check=False).stdout.strip().splitlines()[0]
        except (OSError, IndexError):
            return "unavailable"

    from importlib.metadata import version

    return {
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "freezer": version("freezer"),
        "jsonschema": version("jsonschema"),
        "fastjsonschema": version("fastjsonschema"),
        "pyyaml": version("pyyaml"),
        "check-jsonschema": version_of([CHECK_JSONSCHEMA, "--version"]),
        "sha256sum": version_of(["sha256sum", "--version"]),
        "git": version_of(["git", "--version"]),
    }


SIZES = {
    "quick": {
        "validate": 1_000,
        "audit_files": 1_000,
        "audit_bytes": 100 << 20,
        "refs": 1_000,
        "check": 100,
        # Quick sizes keep CI under its ten minutes: a cut now runs one rg process per fixture.
        "cut": 500,
        "gate_b": [100],
        "tree": (1_000, 20 << 20),
        "against": (2, 100),
        "scale_validate": [100, 1_000],
        "scale_check": [10, 100],
        # Three runs keep CI's quick run under two minutes now that a cut runs one rg per fixture.
        "runs": 3,
    },
    "full": {
        "validate": 10_000,
        "audit_files": 10_000,
        "audit_bytes": 1 << 30,
        "refs": 10_000,
        "check": 100,
        "cut": 10_000,
        "gate_b": [100, 2_000],
        "tree": (10_000, 200 << 20),
        "against": (10, 1_000),
        "scale_validate": [100, 1_000, 10_000, 100_000],
        "scale_check": [10, 100, 1_000],
        "runs": 5,
    },
}


def write_markdown(report: dict[str, object], path: Path) -> None:
    rows = report["workloads"]
    assert isinstance(rows, list)
    lines = [
        "# Benchmarks",
        "",
        f"Measured {report['date']} on {report['machine']['platform']} ({report['machine']['cpus']} cores), "  # type: ignore[index]
        f"mode `{report['mode']}`. Ratio = freezer / comparator, medians of interleaved runs in the same session.",
        "",
        f"Rerun: `{report['command']}`",
        "",
        "| workload | comparator | freezer (s) | comparator (s) | ratio | bar | peak RSS (MiB) | notes |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        bar = str(row["bar"]).replace("<= ", "")
        held = "✓" if row["ratio"] <= float(bar) else "✗"
        notes = "; ".join(row["notes"]).replace("|", "\\|")
        lines.append(
            f"| {row['workload']} | {row['comparator']} | {row['freezer_median_s']} | {row['peer_median_s']} | "
            f"**{row['ratio']}** {held} | ≤ {bar} | {row['freezer_peak_mib']} / {row['peer_peak_mib']} | {notes} |"
        )
    against = report["against"]
    assert isinstance(against, dict)
    lines += [
        "",
        f"## {against['workload']}",
        "",
        f"| versions | median (s) | per version (s) | cores kept busy (of {against['cores']}) |",
        "|---|---|---|---|",
    ]
    busy = against.get("cores_used_by_versions", {})
    for count, seconds in against["median_s_by_versions"].items():
        lines.append(f"| {count} | {seconds} | {against['per_version_s'][count]} | {busy.get(count, 'n/a')} |")
    scaling = report["scaling"]
    assert isinstance(scaling, dict)
    lines += ["", "## Scaling", "", "| command | size | median (s) |", "|---|---|---|"]
    for command, sizes in scaling.items():
        for size, seconds in sizes.items():
            unit = "fixtures" if command == "validate" else "versions"
            lines.append(f"| {command} | {int(size):,} {unit} | {seconds} |")
    lines += [
        "",
        "## How these are measured",
        "",
        "- Every workload runs freezer and its comparator alternately (A B A B ...), after one warm-up run of each,",
        "  so both see the same page cache and machine load; the medians are compared. Bytecode caching is on for",
        "  freezer, as for any installed tool.",
        "- Peak RSS is measured by `bench/peak.py`, a small process that forks each command itself: Linux charges a",
        "  child the high-water mark of the process it was forked from, which would charge the runner's memory.",
        "- `check` is measured on registries whose versions are copies of one real version: check never reads a",
        "  version that did not change, so their contents do not matter to it.",
        "- `cut` is compared without its git checks (ground truth, Gate B and provenance read the code repository;",
        "  `cp` has no counterpart); their median is reported in the notes column.",
        "- The audit workload's version is a real cut plus mixed-size data files listed in its manifest.",
        "",
    ]
    # Hand-written history (what was tried, what changed) lives beside the runner so a rerun keeps it.
    history = HERE / "NOTES.md"
    if history.is_file():
        lines += [history.read_text(encoding="utf-8").rstrip(), ""]
    lines += [
        "## Machine",
        "",
        "```json",
        json.dumps(report["machine"], indent=2),
        "```",
        "",
    ]
    path.write_text("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes; finishes in under two minutes")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument("--markdown", type=Path, default=REPO / "BENCHMARKS.md")
    args = parser.parse_args()
    mode = "quick" if args.quick else "full"
    size = SIZES[mode]
    runs = int(size["runs"])  # type: ignore[call-overload]
    work = Path(tempfile.mkdtemp(prefix="freezer-bench-"))
    started = time.monotonic()
    try:
        workloads = [
            bench_validate(work, size["validate"], runs),  # type: ignore[arg-type]
            bench_audit(work, size["audit_files"], size["audit_bytes"], runs),  # type: ignore[arg-type]
            bench_ground_truth(work, size["refs"], runs),  # type: ignore[arg-type]
            bench_check(work, size["check"], runs),  # type: ignore[arg-type]
            bench_version(work, max(runs, 10)),
            bench_cut(work, size["cut"], runs),  # type: ignore[arg-type]
            bench_cut_assets(work, size["audit_files"], size["audit_bytes"], runs),  # type: ignore[arg-type]
            *(bench_gate_b(work, n, runs) for n in size["gate_b"]),  # type: ignore[attr-defined]
            bench_materialize(work, *size["tree"], runs=runs),  # type: ignore[misc]
        ]
        against = bench_against(work, *size["against"], runs=3)  # type: ignore[misc]
        scaling = scaling_rows(work, size["scale_validate"], size["scale_check"], 3)  # type: ignore[arg-type]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report: dict[str, object] = {
        "date": time.strftime("%Y-%m-%d"),
        "mode": mode,
        "command": f"python bench/run.py{' --quick' if args.quick else ''}",
        "seconds": round(time.monotonic() - started, 1),
        "machine": machine(),
        "workloads": [w.to_json() for w in workloads],
        "against": against,
        "scaling": scaling,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    suffix = "-quick" if args.quick else ""
    (args.out / f"{report['date']}{suffix}.json").write_text(json.dumps(report, indent=2) + "\n")
    if not args.quick:
        write_markdown(report, args.markdown)
    if args.quick:
        print("quick mode: small sizes, where fixed start-up costs weigh more; the bars are set for the full sizes")
    for workload in workloads:
        row = workload.to_json()
        print(f"{row['ratio']:>7}  (bar {row['bar']})  {row['workload']}")
    print(f"audit --against: {against['median_s_by_versions']}")
    print(f"scaling: {scaling}")
    print(f"done in {report['seconds']} s")


if __name__ == "__main__":
    main()
