"""freezer's rg interpreter against real rg, and against itself on tricky patterns."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from freezer.gitrepo import CodeRepo
from freezer.globs import glob_regex
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


def _one_commit_repo(root: Path, files: dict[str, str]) -> Path:
    from freezer.gitrepo import run_git

    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    run_git(["init", "-q", "."], root, env)
    run_git(["add", "-A"], root, env)
    run_git(["commit", "-q", "-m", "files"], root, env)
    return root


ANCHOR_FILES = {
    "src/a.rs": "use std::io;\nfn main() {\n    run();\n}\n",
    "src/b.rs": "// fn main is not here\nlet x = 1;   \nend\n",
    "src/c.rs": "end\nfn helper() {}\n\n  fn indented() {}\n",
    "notes.txt": "word\nswordfish\nend of\nline one\nline two\n",
}
ANCHOR_PATTERNS = [
    (r"^fn \w+", []),  # line starts in the middle of a file
    (r"\{$", []),  # line ends in the middle of a file
    (r"^end$", []),
    (r"^$", []),  # empty lines
    (r"\Afn", []),  # rg reads \A and \z per line, too
    (r"\(\);\z", []),
    (r"one\s+line", []),  # never across a newline
    (r"^word", ["-w"]),
    (r"^\s+fn", []),
    (r"^FN", ["-i"]),
]


@pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep is not installed (CI installs it)")
def test_anchors_and_line_ends_match_real_rg(tmp_path: Path) -> None:
    repo = _one_commit_repo(tmp_path / "code", ANCHOR_FILES)
    with CodeRepo(repo) as code:
        sha = code.resolve("HEAD")
        for pattern, flags in ANCHOR_PATTERNS:
            real = subprocess.run(
                ["rg", "-c", "--no-config", *flags, "--", pattern, "."], cwd=repo, capture_output=True, text=True
            )
            counts = [int(line.rsplit(":", 1)[1]) for line in real.stdout.splitlines()]
            ours = grep_at(code, sha, pattern, ["."], flags)
            assert (ours.matches, ours.files) == (sum(counts), len(counts)), (pattern, real.stdout)
            assert ours.matches > 0 or pattern == r"one\s+line", pattern


def test_catastrophic_backtracking_is_stopped_and_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import signal
    import time

    from freezer import grep

    monkeypatch.setattr(grep, "SECONDS_PER_FILE", 0.3)
    repo = _one_commit_repo(tmp_path / "code", {"ok.rs": "fn a() {}\n", "src/long.rs": "a" * 60 + "!\n"})
    with CodeRepo(repo) as code:
        sha = code.resolve("HEAD")
        started = time.monotonic()
        with pytest.raises(PatternError, match=r"matching src/long.rs took over 0.3 s.*\(a\+\)\+"):
            grep_at(code, sha, r"(a+)+$", ["."], [])
        assert time.monotonic() - started < 5
        # The budget is per file and leaves nothing armed: a sane grep runs normally afterwards.
        assert grep_at(code, sha, r"^fn a", ["."], []).matches == 1
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
        assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL


def test_a_hostile_grep_becomes_a_gate_b_problem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from freezer import grep
    from freezer.document import YamlDocument
    from freezer.groundtruth import check_gate_b

    monkeypatch.setattr(grep, "SECONDS_PER_FILE", 0.3)
    repo = _one_commit_repo(tmp_path / "code", {"long.txt": "x" * 40 + "y\n"})
    data = {
        "naive_grep": {"pattern": r"(x|x)*$", "paths": ["."]},
        "gate_b": {"expected_matches": 1, "expected_files": 1},
    }
    doc = YamlDocument("f.yaml", data, {("naive_grep", "pattern"): (7, 12)})
    with CodeRepo(repo) as code:
        problems = check_gate_b(code, code.resolve("HEAD"), doc)
    assert [(p.line, p.path) for p in problems] == [(7, ("naive_grep", "pattern"))]
    assert "took over 0.3 s" in problems[0].message
