"""Issue 38's scale workload: lock, cut, compare and site over Harbor-style task folders x 3 versions.

A registry of task folders (task.toml, instruction.md, environment/Dockerfile FROM one of a handful
of images by tag, tests/test.sh, one input, one expected output) whose images live in a real OCI
registry on 127.0.0.1 (Debian's docker-registry, as the lock tests run it). The versions:

- v1: ``freezer lock``, then ``freezer cut v1``;
- v2: one task's instruction edited, cut;
- v3: one image tag re-pointed at other content in the registry, ``freezer lock`` again, cut;

then ``compare v1 v2``, ``compare v2 v3`` and ``site``. Each step runs once (``most_runs=1``): the
steps build on each other, so a step cannot be repeated without undoing the next. The peer of each
cut is ``cp -r`` of that version's drafts and ``sha256sum`` of every copied file. The registry server
runs only while ``lock`` does, so every cut, compare and the site read no network.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

import generate
from harness import FREEZER, REPO, Result, Sample, Side, run_command

# The registry server and the push the lock tests use (tests/ociregistry.py), imported, not copied.
sys.path.append(str(REPO / "tests"))
import ociregistry

# A handful of base images shared by every task, as a real Harbor suite's are (repository, tag).
IMAGES = (
    ("harbor/ubuntu", "24.04"),
    ("harbor/python", "3.12-slim"),
    ("harbor/node", "20"),
    ("harbor/rust", "1.80"),
    ("harbor/golang", "1.22"),
)
# v3 re-points this tag: the tasks FROM it (one in len(IMAGES)) move; every other stays comparable.
MOVED = IMAGES[2]
# task.toml, instruction.md, Dockerfile, test.sh, one input and one expected output per task.
FILES_PER_TASK = 6


def _files(folder: Path) -> tuple[int, int]:
    """How many files ``folder`` holds, and their bytes."""
    sizes = [p.stat().st_size for p in folder.rglob("*") if p.is_file()]
    return len(sizes), sum(sizes)


def _bump(root: Path, number: int) -> None:
    """Commit what the last step wrote, then make the drafts say version ``number``."""
    generate.git(root, "add", "-A")
    generate.git(root, "commit", "-q", "--allow-empty", "-m", f"before bench v{number}")
    version = root / "drafts" / "version.yaml"
    version.write_text(version.read_text().replace(f"version: {number - 1}", f"version: {number}"))


def _commit(root: Path) -> None:
    generate.git(root, "add", "-A")
    generate.git(root, "commit", "-q", "--allow-empty", "-m", "bench step")


def _comparable(path: Path) -> str:
    """What ``compare --format json`` kept: comparable and excluded fixtures by arm."""
    arms = json.loads(path.read_text())["result"]["arms"]
    kept = (f"arm {a['arm']}: {len(a['comparable']):,} comparable, {len(a['excluded']):,} excluded" for a in arms)
    return ", ".join(kept)


def bench_harbor_scale(work: Path, tasks: int) -> Result | None:
    """The workload above at ``tasks`` task folders; None (said why) when docker-registry or skopeo (which
    freezer lock resolves images with) is not installed."""
    if not Path(ociregistry.BINARY).is_file():
        print(f"harbor scale skipped: Debian's docker-registry is not installed ({ociregistry.BINARY})", flush=True)
        return None
    if shutil.which("skopeo") is None:
        print("harbor scale skipped: skopeo, which freezer lock resolves images with, is not installed", flush=True)
        return None
    base = work / f"harbor-{tasks}"
    storage, port = base / "oci-storage", ociregistry.free_port()
    host = f"127.0.0.1:{port}"
    root = generate.folders_registry(
        base / "registry", tasks, FILES_PER_TASK, images=tuple(f"{host}/{name}:{tag}" for name, tag in IMAGES)
    )
    with ociregistry.registry_server(storage, port):
        for name, tag in IMAGES:
            ociregistry.push_image(host, name, tag, {"etc/os-release": f"ID={name}\n".encode()})
    drafts_files, drafts_bytes = _files(root / "drafts")
    copies = base / "copies"
    site = base / "site"
    said: dict[str, str] = {}

    def lock() -> Sample:
        with ociregistry.registry_server(storage, port):
            return run_command([*FREEZER, "lock"], root)

    def relock() -> Sample:
        _bump(root, 3)
        with ociregistry.registry_server(storage, port):
            name, tag = MOVED
            ociregistry.push_image(host, name, tag, {"etc/os-release": f"ID={name}, re-pointed\n".encode()})
            return run_command([*FREEZER, "lock"], root)

    def edit_one_instruction() -> None:
        _bump(root, 2)
        instruction = root / "drafts" / "tasks" / "task-000000" / "instruction.md"
        instruction.write_text(instruction.read_text() + "\nWrite the answer to /app/out/answer.txt.\n")
        _commit(root)

    def cut(number: int) -> Side:
        def run() -> Sample:
            return run_command([*FREEZER, "cut", f"v{number}"], root, lambda: _commit(root))

        return Side(f"freezer cut v{number}", "freezer", run)

    def copy(number: int) -> Side:
        target = copies / f"v{number}"

        def reset() -> None:
            shutil.rmtree(target, ignore_errors=True)
            target.parent.mkdir(parents=True, exist_ok=True)

        peer = f"cp -r drafts {target} && find {target} -type f -exec sha256sum {{}} + > /dev/null"
        name = f"cp -r + sha256sum, v{number} drafts"
        return Side(name, "peer", lambda: run_command(["bash", "-c", peer], root, reset))

    def compare(old: int, new: int) -> Side:
        def run() -> Sample:
            with tempfile.NamedTemporaryFile(suffix=".json") as stdout:
                command = [*FREEZER, "compare", f"bench_v{old}", f"bench_v{new}", "--format", "json"]
                sample = run_command(command, root, lambda: _commit(root), env={"PEAK_STDOUT": stdout.name})
                said[f"compare v{old} v{new}"] = _comparable(Path(stdout.name))
            return sample

        return Side(f"freezer compare v{old} v{new}", "freezer", run)

    def build_site() -> Sample:
        return run_command([*FREEZER, "site", str(site)], root, lambda: shutil.rmtree(site, ignore_errors=True))

    # In the order they run: each step reads what the one before it wrote.
    sides = [
        Side("freezer lock", "freezer", lock),
        cut(1),
        copy(1),
        Side("freezer cut v2", "freezer", lambda: run_command([*FREEZER, "cut", "v2"], root, edit_one_instruction)),
        copy(2),
        Side("freezer lock, one tag re-pointed", "freezer", relock),
        cut(3),
        copy(3),
        compare(1, 2),
        compare(2, 3),
        Side("freezer site", "freezer", build_site),
    ]
    result = Result(
        f"Harbor-style suite, {tasks:,} task folders x 3 versions, {len(IMAGES)} images by tag:"
        " cut of v1 (lock, compare and site under Every side)",
        sides,
        most_runs=1,
        main="freezer cut v1",
    )

    def late_note() -> str:
        medians = {side.name: side.median() for side in sides}
        ratios = ", ".join(
            f"v{n} {medians[f'freezer cut v{n}'] / medians[f'cp -r + sha256sum, v{n} drafts']:.2f}x" for n in (1, 2, 3)
        )
        version_files, version_bytes = _files(root / "versions" / "bench_v3")
        site_files, site_bytes = _files(site)
        return "; ".join(
            [
                f"drafts: {drafts_files:,} files, {drafts_bytes / 1e6:,.1f} MB; bench_v3: {version_files:,} files,"
                f" {version_bytes / 1e6:,.1f} MB",
                f"cut / (cp -r + sha256sum) of the same drafts: {ratios}",
                *(f"{step}: {text}" for step, text in said.items()),
                f"tasks FROM the re-pointed {MOVED[0]}:{MOVED[1]}: {len(range(2, tasks, len(IMAGES))):,}",
                f"site: {site_files:,} files, {site_bytes:,} bytes ({site_bytes / 1e6:,.1f} MB)",
            ]
        )

    result.late_note = late_note
    result.notes.append("each step runs once, in the order listed; the registry server is up only while lock runs")
    return result
