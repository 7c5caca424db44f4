"""One glob engine: freezer's :class:`PathGlob` names exactly the paths git's ``:(glob)`` pathspec names.

A real repository (built with GitPython, a test dependency) holds file names
that exercise every rule: wildcards and brackets, POSIX classes, escapes,
multi-byte and non-UTF-8 names, names holding glob characters themselves.
Each glob is put to real git twice: ``git ls-files`` (what the index matches)
and ``git log --name-only`` (the undeclared-commit scan, which walks trees),
and to :meth:`CodeRepo.matching_paths` (the "matches no file" check) and
:meth:`PathGlob.matches` (the drafts' fixtures glob): all must agree.
"""

from __future__ import annotations

import os
from pathlib import Path

import git as gitpython
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from freezer.git.gitrepo import DETERMINISTIC_ENV, CodeRepo, run_git
from freezer.git.globs import GlobError, compile_glob, glob_problem

NAMES = [
    b"tools/a/x",
    b"tools/b",
    b"tools/Z",
    b"tools/1",
    "tools/é".encode(),
    b"tools/[ab]",
    b"tools/sub/deep.rs",
    b"tools/sub/\xc3\xa9/z",
    b"tools/x.rs",
    b"tools/Ab.RS",
    b"tools/-",
    b"tools/!",
    b"tools/^",
    b"tools/]",
    b"tools/\\",
    b"tools/*",
    b"tools/?",
    b"tools/a b",
    b"tools/\t",
    b"tools/~",
    b"tools/.hidden",
    b"tools/\xff",
    b"tools/ab",
    b"tools/a*b",
    b"docs/readme.md",
    b"docs/tools/x.rs",
    b"x.rs",
    b"ab",
    b"a/b/c/d.rs",
    b"a/bc/d.rs",
]

TABLE = [
    # the issue's case: a POSIX class, once two engines that disagreed
    "tools/[[:alpha:]]",
    "tools/[[:digit:]]",
    "tools/[[:punct:]]",
    "tools/[[:space:]]",
    "tools/[[:upper:]]*",
    "tools/[[:lower:]][[:lower:]]",
    "tools/[[:alnum:]]",
    "tools/[[:xdigit:]]",
    "tools/[[:cntrl:]]",
    "tools/[[:graph:]]",
    "tools/[[:print:]]",
    "tools/[[:blank:]]",
    "tools/[[:alpha:]",  # no closing bracket for the outer set: nothing, via the wildcard
    "tools/[[:foo:]]",  # not a class
    "tools/[[:alpha]",  # no ":]": "[" and the rest are members
    # * ** ?
    "*",
    "**",
    "*.rs",
    "**/*.rs",
    "**/x.rs",
    "tools/*",
    "tools/**",
    "tools/**/*.rs",
    "a/**/d.rs",
    "a/**",
    "tools/a**",
    "tools/x**",
    "a**/d.rs",
    "tools/**x.rs",
    "tools/?",
    "tools/??",
    "tools/?b",
    "?*",
    # brackets
    "tools/[ab]",
    "tools/[!a]",
    "tools/[^a]",
    "tools/[]]",
    "tools/[!]a]",
    "tools/[a-]",
    "tools/[-a]",
    "tools/[a-c]*",
    "tools/[\\]]",
    "tools/[\\\\]",
    "tools/[/]",
    "tools/[",
    "tools/[!]",
    # escapes
    "tools/\\b",
    "tools/\\*",
    "tools/\\?",
    "tools/\\[ab]",
    "tools\\/b",
    "**\\/x.rs",
    "tools/b\\",
    # literal names and folders, trailing slashes, normalisation
    "tools",
    "tools/",
    "tools/*/",
    "tools/**/",
    "tools/sub",
    "tools/sub/",
    "./tools/b",
    "tools//b",
    "tools/.",
    "tools/sub/..",
    "tools/../x.rs",
    ".",
    "docs/readme.md",
    "tool",
    "tools/a*b",
]


def _path(name: bytes) -> str:
    return name.decode("utf-8", "surrogateescape")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("globs") / "repo"
    made = gitpython.Repo.init(root)
    for name in NAMES:
        target = os.path.join(os.fsencode(root), name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as handle:
            handle.write(name)
    made.git.update_environment(**DETERMINISTIC_ENV)
    made.git.add("-A")
    # git's commit, not made.index.commit: GitPython's index reader decodes every path as UTF-8
    # and fails on b"tools/\xff".
    made.git.commit("-q", "-m", "every name")
    made.close()
    return root


def _by_git(repo: Path, glob: str) -> set[str]:
    listed = run_git(["ls-files", "-z", "--", f":(glob){glob}"], repo)
    return {name for name in listed.split("\0") if name}


def _by_log(repo: Path, glob: str) -> set[str]:
    listed = run_git(["log", "-z", "--format=", "--name-only", "--no-renames", "--", f":(glob){glob}"], repo)
    return {name.strip("\n") for name in listed.split("\0") if name.strip("\n")}


def _by_freezer(glob: str) -> set[str]:
    compiled = compile_glob(glob)
    return {_path(name) for name in NAMES if compiled.matches(_path(name))}


@pytest.mark.parametrize("glob", TABLE)
def test_the_engine_names_what_git_names(repo: Path, glob: str) -> None:
    wanted = _by_git(repo, glob)
    assert _by_freezer(glob) == wanted
    assert _by_log(repo, glob) == wanted  # the scan walks trees, and agrees with the index
    with CodeRepo(repo) as code:
        assert set(code.matching_paths(code.resolve("HEAD"), glob)) == wanted


def test_the_issue_case_matches_for_the_check_and_the_scan(repo: Path) -> None:
    with CodeRepo(repo) as code:
        sha = code.resolve("HEAD")
        assert code.matching_paths(sha, "tools/[[:alpha:]]") == ["tools/Z", "tools/b"]
        assert code.commits_touching((), (sha,), ("tools/[[:alpha:]]",))[0].paths == ("tools/Z", "tools/b")


PIECES = st.sampled_from(
    [
        "tools",
        "sub",
        "a",
        "b",
        "x.rs",
        ".rs",
        "é",
        "/",
        "/",
        "*",
        "**",
        "?",
        "[ab]",
        "[!a]",
        "[^b]",
        "[a-c]",
        "[]a]",
        "[[:alpha:]]",
        "[[:digit:]]",
        "[[:punct:]]",
        "[[:space:]]",
        "[[:upper:]]",
        "\\*",
        "\\a",
        "\\",
        "[",
        ".",
        "-",
        " ",
    ]
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(PIECES, min_size=1, max_size=6).map("".join))
def test_any_glob_names_what_git_names(repo: Path, glob: str) -> None:
    try:
        freezer = _by_freezer(glob)
    except GlobError:
        return  # refused before git sees it: a reversed range, or a path outside the repository
    assert freezer == _by_git(repo, glob), glob


@pytest.mark.parametrize(
    ("glob", "message"),
    [
        ("crates/[z-a]*", "reversed"),
        ("[!]", "never closed"),
        ("tools/[", "never closed"),
        ("", "empty"),
        ("tools/[[:foo:]]", "not a character class"),
        ("tools/b\\", "escapes nothing"),
        ("../x", "climbs out of the repository"),
        ("/x", "outside the repository"),
        ("tools/[/]", "matches no character"),
    ],
)
def test_a_glob_git_refuses_or_that_matches_nothing_is_a_problem(glob: str, message: str) -> None:
    problem = glob_problem(glob)
    assert problem is not None and message in problem


@pytest.mark.parametrize("glob", ["tools/**", "tools/[[:alpha:]]", "**/*.rs", "tools/", ".orbitignore", "a\\*"])
def test_usable_globs_are_no_problem(glob: str) -> None:
    assert glob_problem(glob) is None
