"""freezer's rg interpreter against real rg, and against itself on tricky patterns."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from freezer.gitrepo import CodeRepo, glob_regex
from freezer.grep import PatternError, compile_rg, grep_at

from conftest import EXAMPLES
from registry_helpers import sample_repo

FIXTURES = [p for p in sorted(EXAMPLES.glob("graph/*/fixtures/*.yaml")) if "status: landed" in p.read_text()]


@pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep is not installed (CI installs it)")
@pytest.mark.parametrize("path", FIXTURES, ids=[f"{p.parent.parent.name}-{p.stem}" for p in FIXTURES])
def test_interpreter_matches_real_rg(path: Path, cache_root: Path) -> None:
    repo = sample_repo(cache_root)
    fixture = yaml.safe_load(path.read_text())
    grep = fixture["naive_grep"]
    real = subprocess.run(
        [
            "rg",
            "-c",
            "--no-config",
            *[f for f in grep.get("flags", []) if f != "-n"],
            "--",
            grep["pattern"],
            *grep["paths"],
        ],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    counts = [int(line.rsplit(":", 1)[1]) for line in real.stdout.splitlines()]
    with CodeRepo(repo) as code:
        ours = grep_at(code, code.resolve("HEAD"), grep["pattern"], grep["paths"], grep.get("flags", []))
    assert (ours.matches, ours.files) == (sum(counts), len(counts))
    assert (ours.matches, ours.files) == (fixture["gate_b"]["expected_matches"], fixture["gate_b"]["expected_files"])


@pytest.mark.parametrize(
    ("pattern", "flags", "line", "matches"),
    [
        (r"(?<name>foo)\d+", [], "foo12", True),
        (r"[[:upper:]]{3}", [], "abcDEF", True),
        ("a.b", ["-F"], "axb", False),
        ("a.b", ["-F"], "a.b", True),
        ("word", ["-w"], "swordfish", False),
        ("word", ["-w"], "a word here", True),
        ("LOUD", ["-i"], "loud", True),
    ],
)
def test_rust_syntax_translation(pattern: str, flags: list[str], line: str, matches: bool) -> None:
    assert bool(compile_rg(pattern, flags).search(line)) is matches


@pytest.mark.parametrize("pattern", [r"foo(?=bar)", r"(?<!x)y", r"(a)\1", r"\p{Greek}", "[[:nope:]]", "(unclosed"])
def test_patterns_rg_would_refuse_are_refused(pattern: str) -> None:
    with pytest.raises(PatternError):
        compile_rg(pattern, [])


@pytest.mark.parametrize(
    ("glob", "path", "matches"),
    [
        ("crates/orbit-graph/src/tools/**", "crates/orbit-graph/src/tools/refs.rs", True),
        ("crates/orbit-graph/src/tools/**", "crates/orbit-graph/src/registry.rs", False),
        ("*.rs", "src/a.rs", False),
        ("**/*.rs", "src/deep/a.rs", True),
        (".orbitignore", ".orbitignore", True),
        ("docs", "docs/ARCHITECTURE.md", True),
        ("src/?.py", "src/ab.py", False),
    ],
)
def test_tool_surface_globs_follow_git(glob: str, path: str, matches: bool) -> None:
    assert bool(glob_regex(glob).match(path)) is matches


@pytest.mark.parametrize(
    ("pattern", "flags", "literal"),
    [
        (r"\.run_deterministic\s*\(", [], ".run_deterministic"),
        ("LoopAuditEvent::(ToolCallRequested|ToolCallResult)", [], None),
        ("colou?r", [], "colo"),
        ("a.b", ["-F"], "a.b"),
        ("x", ["-i"], None),
        (r"\x41bc", [], None),
        ("ab{2}c", [], "a"),
    ],
)
def test_required_literal_is_conservative(pattern: str, flags: list[str], literal: str | None) -> None:
    from freezer.grep import required_literal

    assert required_literal(pattern, flags) == literal
    if literal is not None and "-F" not in flags:
        # Soundness: any text the regex matches contains the literal.
        import re

        for text in (".run_deterministic (", "color", "colour", "abbc", "aXb"):
            if re.search(compile_rg(pattern, flags), text):
                assert literal in text
