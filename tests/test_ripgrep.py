"""Gate B by the real ripgrep: a differential test against rg run directly in a clone.

Every case runs twice: through freezer's Gate B path (the commit's tree written
out by freezer.git.trees, rg run by freezer.resolve.grep) and as an author would, ``rg
FLAGS -c -e PATTERN PATHS`` in a real ``git clone`` checkout of the same
commit. Counts must be equal, and so must accepting or refusing the pattern.
The cases cover every disagreement the review found in 0.1.0's emulation.
"""

from __future__ import annotations

import itertools
import json
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from freezer.git.gitrepo import DETERMINISTIC_ENV, CodeRepo, run_git
from freezer.resolve.grep import PINNED_VERSION, count, locate
from freezer.resolve.rgflags import flag_problems

from conftest import assert_clean_failure, run_cli
from registry_helpers import set_drafts

# Slow (the differential test: 334 cases through Gate B and through rg): CI runs it; `pytest -m slow` runs it here.
pytestmark = pytest.mark.slow

FILES: dict[str, bytes] = {
    "src/nums.rs": (
        b"let year = 2024;\nlet a = f12(3);\nlet aaa = 1;\nfoobar fobar fooobar\nfoo{,2}\n"
        b"let long_line_for_the_counted_repetition_case_with_more_than_sixty = 1;\n"
        b"pub fn calc(x: u32) -> u32 { x * 10 }\n"
    ),
    "src/words.rs": (
        b" -foo x\nfoo-bar\nlet c = &ToolContext::new();\nstruct ToolContext {\nToolcontext tool\n"
        b"ABCX abc\nDEF\nhello world\n\tindented\nend\n"
    ),
    "crates/x/lib.rs": b"pub struct ToolContext;\nimpl ToolContext { fn new() }\n// ToolContext again\n",
    "crates/y/mod.rs": b"use crate::ToolContext;\nfn run(ctx: &ToolContext) {}\n",
    "docs/notes.md": b"ToolContext is documented here.\nfoo bar baz\n",
    "latin1.txt": b"caf\xe9\nnaive\n",
    "utf16.txt": "\ufeffhello utf16\nfoo line\n".encode("utf-16-le"),
    "bin/data.bin": b"foo\x00binary\nfoo again\n",
    ".hidden/secret.rs": b"foo hidden\n",
    ".gitignore": b"ignored/\n*.log\n",
    "ignored/x.rs": b"foo ignored\n",
    "build.log": b"foo in a log\n",
    "vendor/.ignore": b"skip.rs\n",
    "vendor/skip.rs": b"foo skipped by .ignore\n",
    "vendor/keep.rs": b"foo kept\n",
    "crlf.txt": b"foo\r\nbar\r\n",
}
LINKS = {"link.rs": "src/nums.rs"}

PATTERNS = [
    r"\d{4}", r"a{3}", r"fo{0,2}bar", r"\d{2}\(", r".{60,}", r"ToolContext", r"-foo", r"foo-",
    r"&ToolContext", r"[A-Z&&[^X]]", r"[a-z--b]", r"[[:^alpha:]]", r"[[:word:]]+", r"ToolContext {",
    r"fo{,2}", r"\<x\>", r"\Z", r"foo\n", r"Tool(?i)context", r"(?U)o+", r"\x{54}", r"(?-u:\w)",
    r"caf.$", r"hello", r"foo", r"^foo$", r"\bfoo\b", r"(?i)toolcontext", r"\p{Greek}", r"(a+)+$",
    r"[", r"\w+\s\w+", r"end$", r"^\t", r"utf16", r"naive", r"impl \w+", r"x\s*\*", r"\.", r"(?x) foo # c",
]  # fmt: skip
FLAG_SETS: list[list[str]] = [[], ["-w"], ["-i"], ["-F"], ["-x"], ["-v"], ["-s", "-n"], ["-S", "-c"]]
SCOPES: list[list[str]] = [
    ["."], ["src"], ["./crates"], ["crates", "crates/x"], ["bin/data.bin"], ["link.rs"], ["utf16.txt", "latin1.txt"],
    ["vendor"], ["ignored"], ["missing"],
]  # fmt: skip


@dataclass(frozen=True)
class Case:
    pattern: str
    flags: tuple[str, ...]
    scopes: tuple[str, ...]


def _cases() -> Iterator[Case]:
    for index, (pattern, flags) in enumerate(itertools.product(PATTERNS, FLAG_SETS)):
        yield Case(pattern, tuple(flags), tuple(SCOPES[index % len(SCOPES)]))
    extra = [
        Case("foo", ("-g", "*.rs"), (".",)),
        Case("foo", ("--glob=!vendor/**",), (".",)),
        Case("foo", ("-t", "rust"), (".",)),
        Case("foo", ("-T", "rust"), (".",)),
        Case("foo", ("--hidden",), (".",)),
        Case("foo", ("--no-ignore",), (".",)),
        Case("foo", ("-u",), (".",)),
        Case("foo", ("-uu",), (".",)),
        Case("foo", ("-a",), ("bin",)),
        Case("foo", ("-m", "1"), (".",)),
        Case("foo", ("-E", "utf-16le"), ("utf16.txt",)),
        Case("foo", (), ("bin",)),
        Case("ToolContext", ("-U",), (".",)),
        Case("-foo", (), ("src",)),
    ]
    yield from extra


CASES = list(_cases())


@pytest.fixture(scope="module")
def code(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path, str]]:
    root = tmp_path_factory.mktemp("rgdiff")
    repo = root / "repo"
    repo.mkdir()
    for rel, data in FILES.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_bytes(data)
    for rel, target in LINKS.items():
        (repo / rel).symlink_to(target)
    run_git(["init", "-q", "-b", "main", "."], repo, DETERMINISTIC_ENV)
    run_git(["add", "-A", "-f", "."], repo, DETERMINISTIC_ENV)
    run_git(["commit", "-q", "-m", "tree"], repo, DETERMINISTIC_ENV)
    sha = run_git(["rev-parse", "HEAD"], repo, DETERMINISTIC_ENV).strip()
    clone = root / "clone"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True, env={"PATH": "/usr/bin:/bin"})
    yield repo, clone, sha


def _direct(clone: Path, case: Case) -> tuple[int, int, bool]:
    """rg as the author typed it in a clone: (matches, files, refused)."""
    rg = locate()
    argv = [str(rg.path), *case.flags, "-c", "-e", case.pattern, "--", *case.scopes]
    done = subprocess.run(argv, cwd=clone, env={"PATH": "/usr/bin:/bin"}, capture_output=True, check=False)
    matches = files = 0
    for line in done.stdout.decode("utf-8", "surrogateescape").splitlines():
        _, _, number = line.rpartition(":")
        matches, files = matches + int(number), files + 1
    refused = done.returncode == 2 and not done.stdout and b"No such file" not in done.stderr
    return matches, files, refused


def test_there_are_enough_cases() -> None:
    assert len(CASES) >= 200


def test_the_pinned_ripgrep_is_installed_with_freezer() -> None:
    rg = locate()
    assert rg.version == PINNED_VERSION and not rg.explicit


@pytest.fixture(scope="module")
def written(code: tuple[Path, Path, str]) -> Iterator[Path]:
    """The commit's tree as freezer.git.trees writes it out, once for every case: rg only reads it
    (it was written out again, by a new reader, for each of the cases)."""
    repo, _, sha = code
    with CodeRepo(repo) as reader:
        yield reader.checkout(sha)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.pattern!r} {' '.join(c.flags)} @ {' '.join(c.scopes)}")
def test_gate_b_equals_rg_in_a_clone(code: tuple[Path, Path, str], written: Path, case: Case) -> None:
    _, clone, _ = code
    ours = count(locate(), written, case.pattern, list(case.scopes), list(case.flags))
    matches, files, refused = _direct(clone, case)
    assert (ours.pattern_error is not None) == refused, (ours, matches, files)
    if not refused:  # rg looks at the paths only once it has accepted the pattern
        assert (ours.matches, ours.files) == (matches, files)
        assert ("missing" in case.scopes) == ("missing" in ours.missing_scopes)


def test_the_materialized_tree_is_removed_and_the_clone_untouched(code: tuple[Path, Path, str]) -> None:
    repo, _, sha = code
    before = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout
    with CodeRepo(repo) as reader:
        tree = reader.checkout(sha)
        assert (tree / "src/nums.rs").read_bytes() == FILES["src/nums.rs"]
        assert (tree / "link.rs").is_symlink() and (tree / ".git").is_dir()
        assert not (tree / "src/nums.rs").stat().st_mode & 0o222
    assert not tree.exists()
    assert subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout == before


@pytest.mark.parametrize(
    ("flags", "index", "words"),
    [
        (["--pre", "cat"], 0, "runs a program"),
        (["-z"], 0, "decompression"),
        (["-L"], 0, "follows links"),
        (["-i", "--ignore-file=/etc/x"], 1, "reads ignore rules"),
        (["-f", "pats"], 0, "reads patterns"),
        (["--json"], 0, "not one freezer runs"),
        (["-g"], 0, "needs a value"),
        (["-P"], 0, "PCRE2"),
    ],
)
def test_unsafe_flags_are_refused_with_their_place(flags: list[str], index: int, words: str) -> None:
    [(where, message)] = flag_problems(flags)
    assert where == index and words in message


def test_refused_flag_and_pattern_are_located_in_the_fixture(reg: Path) -> None:
    fixture = reg / "drafts/graph/fixtures/locate-register-tools.yaml"
    original = fixture.read_text()
    assert "  flags: [-n]\n" in original
    fixture.write_text(original.replace("  flags: [-n]\n", "  flags: [-n, --pre, cat]\n", 1))
    result = run_cli("validate", cwd=reg)
    assert_clean_failure(result)
    assert "$.naive_grep.flags[1]: rg flag --pre is refused: it runs a program on every file" in result.out
    fixture.write_text(original.replace("  pattern: 'fn register_tools'", "  pattern: 'ToolContext {'", 1))
    result = run_cli("cut", "v1", cwd=reg)
    assert_clean_failure(result)
    assert f"$.naive_grep.pattern: ripgrep {PINNED_VERSION} refuses it: regex parse error" in result.err


def test_another_rg_is_used_only_when_named_and_never_silently(reg: Path, tmp_path: Path) -> None:
    real = locate().path
    other = tmp_path / "rg-other"
    # A second ripgrep that reports another release (the work is the real rg's).
    other.write_text(f'#!/bin/sh\n[ "$1" = --version ] && {{ echo "ripgrep 15.1.0"; exit 0; }}\nexec {real} "$@"\n')
    other.chmod(0o755)
    assert run_cli("cut", "v1", cwd=reg).code == 0
    set_drafts(reg, "v2")
    result = run_cli("cut", "v2", cwd=reg, env={"FREEZER_RG": str(other)})
    assert result.code == 0, result.text
    assert f"Gate B runs ripgrep 15.1.0 (FREEZER_RG={other})" in result.err
    method = (reg / "versions/graph_v2/METHOD.md").read_text()
    assert "Gate B grep oracle: ripgrep 15.2.0 → ripgrep 15.1.0" in method
    manifest = json.loads((reg / "versions/graph_v2/manifest.json").read_text())
    assert manifest["checks"]["grep"] == {"engine": "ripgrep", "version": "15.1.0"}
    audit = run_cli("audit", "v2", cwd=reg)
    assert audit.code == 0, audit.text
    assert f"Gate B re-run by ripgrep {PINNED_VERSION}; graph_v2 was cut with ripgrep 15.1.0" in audit.out
    missing = run_cli("audit", "v2", cwd=reg, env={"FREEZER_RG": str(tmp_path / "nope")})
    assert_clean_failure(missing, code=2)
    assert "FREEZER_RG=" in missing.err
