"""Deterministic synthetic registries for the benchmarks.

A registry of N fixtures (valid against the real schemas) over a sample code
repository in which every fixture's ground truth and naive grep really hold:
fixture ``i`` names ``sym_i`` on line ``i // M + 1`` of ``src/mod_{i % M}.rs``.

Two profiles: ``standard`` (about 40 lines, 1.5 KB, one ground-truth row) and
``large`` (about 3.2 KB: long question and explanations, 11 ground-truth rows),
the size of the hand-written fixtures a held-out review measured.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import yaml

CLASSES = ("trace", "impact", "locate", "deps")
PROFILES = ("standard", "large")
WORDS = ("graph", "grep", "call", "site", "trace", "enum", "refs", "module", "handler", "dispatch", "visitor")
ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@freezer.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@freezer.invalid",
    "GIT_AUTHOR_DATE": "@1776938400 +0000",
    "GIT_COMMITTER_DATE": "@1776938400 +0000",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=ENV, check=True, capture_output=True, text=True).stdout


def files_per_repo(fixtures: int) -> int:
    return max(1, min(200, fixtures // 50))


def code_repo(path: Path, fixtures: int) -> str:
    """Create the code repository; return the commit SHA."""
    modules = files_per_repo(fixtures)
    per_file = -(-fixtures // modules)
    (path / "src").mkdir(parents=True)
    (path / "tools").mkdir()
    for module in range(modules):
        lines = [f"pub fn sym_{line * modules + module}() {{}}" for line in range(per_file)]
        (path / "src" / f"mod_{module}.rs").write_text("\n".join(lines) + "\n")
    (path / "tools" / "search.rs").write_text('pub const SEARCH: &str = "v1";\n')
    git(path, "init", "-q", "-b", "main")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "bench code")
    return git(path, "rev-parse", "HEAD").strip()


def fixture(index: int, modules: int, rng: random.Random) -> dict[str, object]:
    module, line = index % modules, index // modules + 1
    symbol = f"sym_{index}"
    words = " ".join(rng.choice(("graph", "grep", "call", "site", "trace", "enum", "refs")) for _ in range(12))
    return {
        "task_id": f"fx-{index:06d}",
        "class": CLASSES[index % len(CLASSES)],
        "difficulty": rng.choice(("easy", "medium", "hard")),
        "status": "landed",
        "question": f"Where is {symbol} defined, and which module holds it? {words}",
        "naive_grep": {"pattern": rf"\b{symbol}\b", "paths": ["src"], "flags": ["-n"]},
        "why_grep_fails": f"Grep finds {symbol} but cannot tell definitions from uses: {words}.",
        "graph_tool_path": {"tools": ["orbit.graph.show", "orbit.graph.refs"], "resolution": f"show {symbol}: {words}"},
        "ground_truth": [
            {"file": f"src/mod_{module}.rs", "line": line, "symbol": symbol, "container": symbol, "note": words},
        ],
        "oracle": {"must_include": [symbol, f"mod_{module}.rs"], "must_not_include": [f"sym_{index}x", "AuditSink"]},
        "gate_b": {"status": "pass", "expected_matches": 1, "expected_files": 1, "evidence": f"one match: {words}"},
        "gate_c": [
            {
                "provider": "claude",
                "model": "claude-sonnet-4-6",
                "seed": 1,
                "budget": 1.0,
                "verdict": "pass",
                "cost_usd": round(rng.uniform(0.01, 2.0), 2),
                "wall_seconds": rng.randint(10, 300),
            },
        ],
    }


def large_fixture(index: int, modules: int, fixtures: int, rng: random.Random) -> dict[str, object]:
    """A standard fixture grown to the held-out set's size: long texts and eleven ground-truth rows."""
    data = fixture(index, modules, rng)

    def prose(count: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(count))

    data["question"] = f"{data['question']} {prose(45)}"
    data["why_grep_fails"] = f"{data['why_grep_fails']} {prose(30)}"
    tool_path = data["graph_tool_path"]
    assert isinstance(tool_path, dict)
    tool_path["resolution"] = f"{tool_path['resolution']} {prose(25)}"
    module, line = index % modules, index // modules + 1
    per_file = -(-fixtures // modules)
    rows = data["ground_truth"]
    assert isinstance(rows, list)
    # Ten more rows: the neighbouring lines of the same module, each a real definition.
    for step in range(1, per_file):
        other = (line - 1 + step) % per_file
        symbol_index = other * modules + module
        if symbol_index < fixtures:
            symbol = f"sym_{symbol_index}"
            where = {"file": f"src/mod_{module}.rs", "line": other + 1}
            rows.append({**where, "symbol": symbol, "container": symbol, "note": prose(8)})
        if len(rows) == 11:
            break
    return data


def drafts(path: Path, fixtures: int, sha: str, version: int = 1, seed: int = 1, profile: str = "standard") -> None:
    rng = random.Random(seed)
    modules = files_per_repo(fixtures)
    (path / "fixtures").mkdir(parents=True)
    for index in range(fixtures):
        data = large_fixture(index, modules, fixtures, rng) if profile == "large" else fixture(index, modules, rng)
        text = yaml.safe_dump(data, sort_keys=False, width=100)
        (path / "fixtures" / f"fx-{index:06d}.yaml").write_text(text)
    version_data = {
        "suite": "bench",
        "version": version,
        "task_id": "BENCH-1",
        "purpose": "Synthetic registry for freezer's benchmarks.",
        "pinned_sha": sha,
        "binary": {
            "name": "orbit",
            "build_sha": sha,
            "consumers": [{"provider": "claude", "mechanism": "orbit serve mcp"}],
        },
        "tool_surface_commits": [],
        "provenance_text": "Synthetic provenance block.\n\nNothing to see.",
        "acceptance": {"min_landed": 1, "min_classes": 1},
    }
    (path / "version.yaml").write_text(yaml.safe_dump(version_data, sort_keys=False))


def registry(root: Path, fixtures: int, seed: int = 1, profile: str = "standard") -> Path:
    """A registry (a git repository) with drafts for v1 over a matching code repository."""
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    sha = code_repo(root / "code", fixtures)
    drafts(root / "drafts", fixtures, sha, seed=seed, profile=profile)
    (root / "freezer.yaml").write_text(
        "freezer: 1\nsuites:\n  bench:\n    drafts: drafts\n    versions: versions\n"
        "    code_repo: code\n    tool_surface: ['tools/**']\n"
    )
    (root / ".gitignore").write_text("/code/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "bench registry")
    return root


def blobs(folder: Path, count: int, total_bytes: int, seed: int = 1) -> None:
    """Mixed-size files (many small, a few large) adding up to about ``total_bytes``."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    weights = [rng.paretovariate(1.2) for _ in range(count)]
    scale = total_bytes / sum(weights)
    chunk = rng.randbytes(1 << 20)
    for index, weight in enumerate(weights):
        size = max(64, int(weight * scale))
        with open(folder / f"blob-{index:06d}.bin", "wb") as handle:
            while size > 0:
                handle.write(chunk[: min(size, len(chunk))])
                size -= len(chunk)


# The four files of a Harbor-like task folder; the rest of its files are inputs and expected outputs.
TASK_TOML = """\
version = "1.0"

[metadata]
author_name = "bench"
difficulty = "{difficulty}"
category = "shell"
tags = ["bench", "{name}"]

[verifier]
timeout_sec = 120.0

[agent]
timeout_sec = 600.0

[environment]
build_timeout_sec = 600.0
cpus = 1
memory_mb = 2048
"""
DIGEST = "sha256:" + "3f" * 32


def folder_task(folder: Path, index: int, files: int, rng: random.Random, image: str = "") -> None:
    """One task folder of ``files`` files: task.toml, instruction.md, environment/Dockerfile (FROM
    ``image``, else an image pinned by digest), tests/test.sh (executable), then inputs under
    environment/ and expected outputs under tests/."""
    name = f"task-{index:06d}"
    (folder / "environment" / "data").mkdir(parents=True)
    (folder / "tests" / "expected").mkdir(parents=True)

    def prose(count: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(count))

    (folder / "task.toml").write_text(TASK_TOML.format(difficulty=rng.choice(("easy", "medium", "hard")), name=name))
    (folder / "instruction.md").write_text(f"# {name}\n\n{prose(60)}\n\n{prose(40)}\n")
    (folder / "environment" / "Dockerfile").write_text(
        f"FROM {image or f'python:3.12-slim@{DIGEST}'}\nWORKDIR /app\nCOPY data/ /app/data/\n"
    )
    test = folder / "tests" / "test.sh"
    test.write_text(f"#!/bin/bash\nset -euo pipefail\ndiff -r /app/out /tests/expected  # {prose(6)}\n")
    test.chmod(0o755)
    extra = max(0, files - 4)
    inputs = extra - extra // 2
    for number in range(extra):
        where = folder / "environment" / "data" if number < inputs else folder / "tests" / "expected"
        lines = "".join(f"{prose(10)}\n" for _ in range(rng.randint(2, 30)))
        (where / f"part-{number:02d}.txt").write_text(lines)


def folders_registry(root: Path, tasks: int, files: int = 30, seed: int = 1, images: tuple[str, ...] = ()) -> Path:
    """A registry (a git repository) whose one suite is ``tasks`` task folders of ``files`` files each,
    kind folders, with no code under test. With ``images`` (names by tag), task N's Dockerfile starts
    FROM images[N % len(images)], as a real suite shares a handful of base images."""
    if root.exists():
        shutil.rmtree(root)
    rng = random.Random(seed)
    drafts = root / "drafts"
    for index in range(tasks):
        image = images[index % len(images)] if images else ""
        folder_task(drafts / "tasks" / f"task-{index:06d}", index, files, rng, image)
    (drafts / "version.yaml").write_text(
        "suite: bench\nversion: 1\ntitle: Synthetic task folders\n"
        "purpose: Synthetic folders suite for freezer's benchmarks.\n"
    )
    (root / "freezer.yaml").write_text(
        "freezer: 1\nsuites:\n  bench:\n    kind: folders\n    drafts: drafts\n"
        '    fixtures: "tasks/*/"\n    task_file: task.toml\n    versions: versions\n'
    )
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "bench folders registry")
    return root
