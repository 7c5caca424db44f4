"""The workloads of bench/run.py: each builds its inputs and returns a Result with its sides and bars."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import tempfile
from functools import partial
from pathlib import Path

import generate
from harness import CORES, ENV, FREEZER, HERE, ONE_CORE, PY, REPO, Bar, Result, Sample, Side, run_command

# The peer is installed next to this interpreter (pip install -e '.[dev]'), which need not be on PATH.
CHECK_JSONSCHEMA = shutil.which("check-jsonschema") or str(Path(PY).parent / "check-jsonschema")
LIMIT = str(HERE / "limit.py")
# ruamel.yaml (check-jsonschema's parser) uses its C loader only when this optional package is importable.
RUAMEL_CLIB = "ruamel.yaml.clib==0.2.15"


def c_loader_env(work: Path) -> dict[str, str] | None:
    """PYTHONPATH that gives check-jsonschema ruamel's C loader, or None if it cannot be installed."""
    target = work / "ruamel-clib"
    done = subprocess.run(
        [PY, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), RUAMEL_CLIB],
        capture_output=True,
        check=False,
    )
    env = {"PYTHONPATH": f"{target}{os.pathsep}{ENV['PYTHONPATH']}"}
    probe = subprocess.run(
        [PY, "-c", "import ruamel.yaml.main as m; assert m.CParser is not None"], env={**ENV, **env}, check=False
    )
    return env if done.returncode == 0 and probe.returncode == 0 else None


def one_core(name: str, command: list[str], cwd: Path) -> list[Side]:
    """The same command pinned to one core, when taskset exists."""
    if not ONE_CORE:
        return []
    return [Side(f"{name}, 1 core", "freezer", lambda: run_command([*ONE_CORE, *command], cwd))]


def bench_validate(work: Path, fixtures: int, profile: str, clib: dict[str, str] | None) -> Result:
    root = generate.registry(work / f"validate-{profile}-{fixtures}", fixtures, profile=profile)
    folder = root / "drafts" / "fixtures"
    files = sorted(str(p) for p in folder.glob("*.yaml"))
    schema = str(REPO / "schemas" / "fixture.schema.json")
    validate = [*FREEZER, "validate", "drafts"]
    sides = [
        Side("freezer", "freezer", lambda: run_command(validate, root)),
        *one_core("freezer", validate, root),
        Side("check-jsonschema", "peer", lambda: run_command([CHECK_JSONSCHEMA, "--schemafile", schema, *files], root)),
    ]
    if clib:
        sides.append(
            Side(
                "check-jsonschema, C loader",
                "peer",
                lambda: run_command([CHECK_JSONSCHEMA, "--schemafile", schema, *files], root, env=clib),
            )
        )
    for cores in sorted({1, CORES}):
        loop = [PY, LIMIT, "validate", str(cores), str(folder)]
        label = "limit, 1 core" if cores == 1 else f"limit, {cores} cores"
        sides.append(Side(label, "limit", partial(run_command, loop, root)))
    size = sum(Path(f).stat().st_size for f in files) / len(files)
    result = Result(
        f"validate {fixtures:,} fixture files, {profile} profile ({size / 1024:.1f} KB each)",
        sides,
        [
            Bar("wall ≤ 0.10× check-jsonschema", "check-jsonschema", 0.10),
            Bar("CPU ≤ 1.25× the limit loop", "limit, 1 core", 1.25, "cpu_seconds"),
        ],
    )
    if not clib:
        result.notes.append(f"check-jsonschema with the C loader not measured: {RUAMEL_CLIB} could not be installed")
    return result


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


def _copy_sides(root: Path, target: Path) -> list[Side]:
    """cp -r and a hash of every copied file: sha256sum (the peer) and hashlib (the limit)."""

    def reset() -> None:
        _clear_cut(root, target)

    peer = f"cp -r drafts {target} && find {target} -type f -exec sha256sum {{}} + > /dev/null"
    limit = f"cp -r drafts {target} && {PY} {LIMIT} hash 1 {target}"
    return [
        Side("cp -r + sha256sum", "peer", lambda: run_command(["bash", "-c", peer], root, reset)),
        Side("cp -r + hashlib", "limit", lambda: run_command(["bash", "-c", limit], root, reset)),
    ]


def bench_cut_assets(work: Path, count: int, total: int) -> Result:
    """A cut of drafts with ``total`` bytes of assets, against copying and hashing the same files."""
    root = _registry_with_assets(work / "cut-assets", count, total)
    target = work / "cp-assets"
    cut = [*FREEZER, "cut", "v1"]

    def reset() -> None:
        _clear_cut(root, target)

    sides = [Side("freezer", "freezer", lambda: run_command(cut, root, reset))]
    if ONE_CORE:
        sides.append(Side("freezer, 1 core", "freezer", lambda: run_command([*ONE_CORE, *cut], root, reset)))
    result = Result(
        f"cut of a version with {count:,} asset files ({total >> 20} MB)", [*sides, *_copy_sides(root, target)]
    )
    result.notes.append("freezer reads each asset twice (hash, then copy checked against the hash) and syncs to disk")
    return result


def bench_audit(work: Path, count: int, total: int) -> Result:
    root = _registry_with_assets(work, count, total)
    subprocess.run([*FREEZER, "cut", "v1"], cwd=root, env=ENV, check=True, capture_output=True)
    version = root / "versions" / "bench_v1"
    size_mb = sum(p.stat().st_size for p in version.rglob("*") if p.is_file()) / 1e6
    audit = [*FREEZER, "audit", "--no-code"]
    openssl = "find . -type f ! -name SHA256SUMS -print0 | xargs -0 openssl dgst -sha256 > /dev/null"
    sides = [
        Side("freezer", "freezer", lambda: run_command(audit, root)),
        *one_core("freezer", audit, root),
        Side("sha256sum -c", "peer", lambda: run_command(["sha256sum", "--quiet", "-c", "SHA256SUMS"], version)),
        Side("openssl dgst -sha256", "peer", lambda: run_command(["bash", "-c", openssl], version)),
    ]
    for cores in sorted({1, CORES}):
        loop = [PY, LIMIT, "hash", str(cores), str(version)]
        label = "limit, 1 core" if cores == 1 else f"limit, {cores} cores"
        sides.append(Side(label, "limit", partial(run_command, loop, root)))
    result = Result(
        f"audit of a version freezer cut: {count:,} asset files ({size_mb:,.0f} MB)",
        sides,
        [
            Bar("wall ≤ 0.35× sha256sum -c", "sha256sum -c", 0.35),
            Bar(f"throughput ≥ 0.8× hashlib on {CORES} cores", f"limit, {CORES} cores", 1.25),
        ],
    )
    result.notes.append(f"{size_mb:,.0f} MB")
    return result


def bench_folders(work: Path, tasks: int, files: int = 30) -> Result:
    """validate then cut of a folders suite (Harbor-like task folders, no code under test), against
    sha256sum over the same files and the limit loop (tomllib of each task file, hashlib of every file)."""
    root = generate.folders_registry(work / f"folders-{tasks}", tasks, files)
    target = work / "cp-folders"

    def reset() -> None:
        _clear_cut(root, target)

    validate_and_cut = f"{' '.join(FREEZER)} validate > /dev/null && {' '.join(FREEZER)} cut v1 > /dev/null"
    cut = [*FREEZER, "cut", "v1"]
    hashed = "find drafts -type f -exec sha256sum {} + > /dev/null"
    copied = f"cp -r drafts {target} && find {target} -type f -exec sha256sum {{}} + > /dev/null"
    sides = [
        Side("freezer", "freezer", lambda: run_command(["bash", "-c", validate_and_cut], root, reset)),
        Side("freezer cut alone", "freezer", lambda: run_command(cut, root, reset)),
        Side("sha256sum", "peer", lambda: run_command(["bash", "-c", hashed], root)),
        Side("cp -r + sha256sum", "peer", lambda: run_command(["bash", "-c", copied], root, reset)),
    ]
    for cores in sorted({1, CORES}):
        loop = [PY, LIMIT, "folders", str(cores), str(root / "drafts")]
        label = "limit, 1 core" if cores == 1 else f"limit, {cores} cores"
        sides.append(Side(label, "limit", partial(run_command, loop, root)))
    count = sum(1 for p in (root / "drafts").rglob("*") if p.is_file())
    size_mb = sum(p.stat().st_size for p in (root / "drafts").rglob("*") if p.is_file()) / 1e6
    result = Result(f"validate and cut of {tasks:,} folder fixtures ({count:,} files, {size_mb:,.0f} MB)", sides)
    result.notes.append(
        "freezer runs validate, then cut (which validates again before it writes); the limit parses each"
        " task.toml and hashes every file once, and copies nothing"
    )
    return result


def bench_ground_truth(work: Path, refs: int) -> Result:
    root = generate.registry(work / f"gt-{refs}", refs)
    sha = generate.git(root / "code", "rev-parse", "HEAD").strip()
    modules = generate.files_per_repo(refs)
    data = [{"file": f"src/mod_{i % modules}.rs", "line": i // modules + 1, "symbol": f"sym_{i}"} for i in range(refs)]
    refs_file = work / "refs.json"
    refs_file.write_text(json.dumps(data))
    gt = str(HERE / "gt.py")
    arguments = [str(root / "code"), sha, str(refs_file)]
    sides = [
        Side("freezer", "freezer", lambda: run_command([PY, gt, "freezer", *arguments], root)),
        Side("cat-file --batch loop", "limit", lambda: run_command([PY, gt, "catfile", *arguments], root)),
    ]
    bars = [Bar("≤ 1.5× the bare loop", "cat-file --batch loop", 1.5)]
    return Result(f"ground truth, {refs:,} file:line refs at one SHA", sides, bars)


def bench_gate_b(work: Path, fixtures: int) -> Result:
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
    rg_args = "--no-config --no-ignore-global --count --null --with-filename -n"
    loop = f'while IFS= read -r p; do {rg} {rg_args} -e "$p" -- src >/dev/null; done < {patterns}'
    parallel = f"xargs -d '\\n' -P {CORES} -I PATTERN {rg} {rg_args} -e PATTERN -- src < {patterns} > /dev/null"
    gate = [PY, str(HERE / "gateb.py"), "gate", str(code), sha, str(fixtures_file)]
    sides = [
        Side("freezer", "freezer", lambda: run_command(gate, root)),
        *one_core("freezer", gate, root),
        Side("shell loop of rg", "peer", lambda: run_command(["bash", "-c", loop], tree)),
        Side(f"xargs -P {CORES} of rg", "limit", lambda: run_command(["bash", "-c", parallel], tree)),
    ]
    result = Result(
        f"Gate B, {fixtures:,} fixtures at one commit (freezer also writes the tree out)",
        sides,
        [Bar("≤ 1.3× the shell loop", "shell loop of rg", 1.3)],
    )
    result.notes.append(f"{modules} source files; the loops run in a tree already written out")
    return result


def bench_materialize(work: Path, files: int, total: int) -> Result:
    """Writing a commit's tree out for rg, against git archive | tar -x of the same commit."""
    code = work / "tree-code"
    generate.blobs(code / "data", files, total)
    generate.git(code, "init", "-q", "-b", "main")
    generate.git(code, "add", "-A")
    generate.git(code, "commit", "-q", "-m", "files")
    sha = generate.git(code, "rev-parse", "HEAD").strip()
    out = work / "tree-out"
    shell = f"mkdir {out} && git archive {sha} | tar -x -C {out} && rm -rf {out}"
    tree = [PY, str(HERE / "gateb.py"), "tree", str(code), sha, str(out)]
    sides = [
        Side("freezer", "freezer", lambda: run_command(tree, code)),
        Side("git archive | tar -x", "limit", lambda: run_command(["bash", "-c", shell], code)),
    ]
    bars = [Bar("≤ 1.5× git archive | tar -x", "git archive | tar -x", 1.5)]
    return Result(f"write out a commit's tree, {files:,} files ({total >> 20} MB), then remove it", sides, bars)


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


def bench_check(work: Path, versions: int) -> Result:
    root = registry_with_versions(work, versions)
    bare = f"{PY} -c pass && git diff --quiet HEAD"
    sides = [
        Side("freezer", "freezer", lambda: run_command([*FREEZER, "check", "--base", "HEAD"], root)),
        Side("check-jsonschema --version", "peer", lambda: run_command([CHECK_JSONSCHEMA, "--version"], root)),
        Side("python start-up + git diff --quiet", "limit", lambda: run_command(["bash", "-c", bare], root)),
    ]
    bars = [Bar("≤ 0.6× check-jsonschema --version", "check-jsonschema --version", 0.6)]
    return Result(f"check, registry of {versions:,} frozen versions, nothing changed", sides, bars)


def bench_version(work: Path) -> Result:
    sides = [
        Side("freezer", "freezer", lambda: run_command([*FREEZER, "--version"], work)),
        Side("python -c pass", "limit", lambda: run_command([PY, "-c", "pass"], work)),
    ]
    return Result("freezer --version", sides, [Bar("≤ 8× python -c pass", "python -c pass", 8)])


def _lmeval_results(path: Path, tasks: int) -> None:
    """lm-eval's results JSON, pretty-printed as lm-eval writes it, of ``tasks`` tasks no version holds."""
    names = [f"bench_task_{n:05}" for n in range(tasks)]
    config = {"dataset_path": "bench/none", "test_split": "test", "output_type": "generate_until", "num_fewshot": 0}
    document = {
        "results": {name: {"alias": name, "exact_match,none": 0.5, "exact_match_stderr,none": 0.1} for name in names},
        "configs": {name: {"task": name, **config} for name in names},
        "versions": dict.fromkeys(names, 1.0),
        "n-shot": dict.fromkeys(names, 0),
        "n-samples": {name: {"original": 20, "effective": 20} for name in names},
        "config": {"model": "hf", "limit": None},
    }
    path.write_text(json.dumps(document, indent=2))


def bench_results_import(work: Path, tasks: int) -> Result:
    """results import --from lm-eval of a file whose every task is unknown: one problem a task, each
    located in the file (it was quadratic: 6,000 tasks took 351 s), the count printed past 200."""
    root = work / "results-import"
    run_command([*FREEZER, "demo", str(root)], work)
    results = work / f"lmeval-{tasks}.json"
    _lmeval_results(results, tasks)
    # The import refuses the file (exit 1, as it must); the shell turns that one exit status into 0.
    refused = ["sh", "-c", '"$@"; test $? -eq 1', "sh", *FREEZER, "results", "import", "--from", "lm-eval"]
    command = [*refused, str(results), "--version", "bbh_v2"]
    limit = [PY, "-c", "import json, sys; json.load(open(sys.argv[1]))", str(results)]
    return Result(
        f"results import --from lm-eval of {tasks:,} unknown tasks",
        [
            Side("freezer", "freezer", lambda: run_command(command, root)),
            Side("python json.load", "limit", lambda: run_command(limit, root)),
        ],
        [Bar("≤ 30× python json.load (CPU)", "python json.load", 30, "cpu_seconds")],
        notes=["the job's absolute bar: under 1 s of CPU for 6,000 tasks (issue 34)"],
    )


def bench_cut(work: Path, fixtures: int) -> Result:
    root = generate.registry(work / f"cut-{fixtures}", fixtures)
    copy_target = work / "cp-target"
    timings: list[dict[str, float]] = []

    def freezer_cut() -> Sample:
        _clear_cut(root, copy_target)
        with tempfile.NamedTemporaryFile(suffix=".json") as stdout:
            sample = run_command([*FREEZER, "cut", "v1", "--format", "json"], root, env={"PEAK_STDOUT": stdout.name})
            timings.append(json.loads(Path(stdout.name).read_text())["result"]["timings"])
        # Compared without the git checks, which cp has no counterpart for; they are reported apart.
        return Sample(sample.seconds - timings[-1]["git_checks"], sample.peak_kib)

    def git_checks() -> str:
        median = statistics.median(t["git_checks"] for t in timings)
        return f"git checks (ground truth, Gate B, provenance) reported apart: median {median:.2f} s"

    return Result(
        f"cut of a {fixtures:,}-fixture version (without git checks)",
        [Side("freezer", "freezer", freezer_cut), *_copy_sides(root, copy_target)],
        [Bar("≤ 3× cp -r + sha256sum", "cp -r + sha256sum", 3)],
        late_note=git_checks,
    )


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
        "cores": CORES,
    }


def scaling_rows(
    work: Path, sizes: tuple[int, ...], versions: tuple[int, ...], runs: int
) -> dict[str, dict[str, float]]:
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
