"""Reproducing a fixture's naive ``rg`` at a commit, without rg and without a checkout.

How the seed's ``rg`` commands are interpreted:

* The pattern is Rust regex syntax, run with Python's ``re`` after a small
  translation: ``(?<name>`` becomes ``(?P<name>``, ``\\z`` becomes ``\\Z``, and
  the POSIX classes ``[[:alpha:]]`` and friends are expanded. Look-around and
  backreferences are refused, because rg's default engine refuses them too;
  ``\\p{..}`` Unicode classes are refused because ``re`` lacks them.
* Matching is per line, like ``rg -n``: the match count is the number of
  matching lines (the sum of ``rg -c``), and the file count is the number of
  files with at least one. ``^``, ``$``, ``\\A`` and ``\\z`` anchor at each line.
* rg's engine runs in linear time and Python's backtracks: a pattern that
  takes more than ``SECONDS_PER_FILE`` on one file is refused with a message
  saying so, rather than hanging a cut or an audit.
* The path scope is the list of paths after the pattern. Only files tracked
  at the commit are searched. As rg does, hidden paths (a component starting
  with ``.``) are skipped unless named in the scope, and binary files (a NUL
  byte) are skipped. Ignore files are not applied: at a pinned commit the
  tracked content is what the fixture refers to.
* Flags: ``-i`` ignores case, ``-w`` wraps the pattern in ``\\b``, ``-F`` takes
  it literally; ``-n``, ``-c`` and ``-s`` do not change what matches.
"""

from __future__ import annotations

import re
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial

from freezer.gitrepo import CodeRepo

_POSIX = {
    "alpha": "a-zA-Z",
    "digit": "0-9",
    "alnum": "a-zA-Z0-9",
    "upper": "A-Z",
    "lower": "a-z",
    "space": r"\s",
    "word": r"\w",
    "xdigit": "0-9A-Fa-f",
    "punct": r"!-/:-@\[-`{-~",
    "blank": r" \t",
}
_UNSUPPORTED = (
    (re.compile(r"\(\?<?[=!]"), "look-around is not supported by rg's default regex engine"),
    (re.compile(r"(?<!\\)\\[1-9]"), "backreferences are not supported by rg's default regex engine"),
    (re.compile(r"(?<!\\)\\[pP]"), "Unicode classes (\\p{..}) are not supported by freezer's interpreter"),
)


class PatternError(ValueError):
    """The pattern cannot be interpreted faithfully."""


def compile_rg(pattern: str, flags: list[str] | tuple[str, ...] = ()) -> re.Pattern[str]:
    """A Python regex that matches what ``rg FLAGS PATTERN`` matches on a line."""
    if "-F" in flags:
        source = re.escape(pattern)
    else:
        for finder, why in _UNSUPPORTED:
            if finder.search(pattern):
                raise PatternError(why)
        source = re.sub(r"\(\?<([A-Za-z_]\w*)>", r"(?P<\1>", pattern)
        source = source.replace(r"\z", r"\Z")

        def posix(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in _POSIX:
                raise PatternError(f"unknown POSIX class [:{name}:]")
            return _POSIX[name]

        source = re.sub(r"\[:(\w+):\]", posix, source)
    if "-w" in flags:
        source = rf"\b(?:{source})\b"
    try:
        return re.compile(source, re.IGNORECASE if "-i" in flags else 0)
    except re.error as exc:
        raise PatternError(f"invalid regular expression: {exc}") from None


_META = set(".^$*+?()[]{}|\\")
_ESCAPED_LITERALS = set(".^$*+?()[]{}|\\/-#&~ \"'")


def required_literal(pattern: str, flags: list[str] | tuple[str, ...] = ()) -> str | None:
    """The longest plain string every match must contain, or None when none is certain.

    As rg does, a file that lacks this string is ruled out with one substring search
    instead of a regex over every line. Conservative: any alternation, case folding or
    construct it does not understand gives None.
    """
    if "-i" in flags:
        return None
    if "-F" in flags:
        return pattern if "\n" not in pattern else None
    if "|" in pattern:
        return None
    runs: list[str] = []
    current: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern):
            nxt = pattern[index + 1]
            if nxt in _ESCAPED_LITERALS:
                current.append(nxt)
                index += 2
            elif nxt in "sSdDwWbBAzZ":  # a class or an assertion: ends the run
                runs.append("".join(current))
                current = []
                index += 2
            else:  # \x41, \u{..}, \n...: an escape whose text is not what it matches
                return None
            continue
        if char in "?*{":
            if current:
                current.pop()  # the previous character may be absent
            runs.append("".join(current))
            current = []
        elif char in _META:
            runs.append("".join(current))
            current = []
            if char in "([":
                return _longest(runs)  # groups and classes: keep only what came before
        else:
            current.append(char)
        index += 1
    runs.append("".join(current))
    return _longest(runs)


def _longest(runs: list[str]) -> str | None:
    best = max(runs, key=len, default="")
    return best or None


@dataclass
class GrepResult:
    matches: int = 0
    files: int = 0
    per_file: dict[str, list[int]] = field(default_factory=dict)
    missing_scopes: list[str] = field(default_factory=list)


# (commit, scopes) -> the paths rg would search, sorted. A commit names one tree for good, and
# thousands of fixtures share a few scopes: without this, a 10,000-fixture cut tested every path
# of the tree against the scopes 10,000 times.
_SCOPED: dict[tuple[str, tuple[str, ...]], list[str]] = {}


def _paths_in_scope(tree: dict[str, tuple[str, str]], sha: str, scopes: list[str]) -> list[str]:
    key = (sha, tuple(scopes))
    found = _SCOPED.get(key)
    if found is None:
        if len(_SCOPED) >= 256:
            _SCOPED.clear()
        found = _SCOPED[key] = [path for path in sorted(tree) if _in_scope(path, scopes)]
    return found


def _in_scope(path: str, scopes: list[str]) -> bool:
    """Whether rg, given ``scopes``, would search ``path`` (hidden paths only when named outright)."""
    for scope in scopes:
        scope = scope.strip("/")
        if path == scope:
            return True
        if scope in ("", "."):
            rest = path
        elif path.startswith(scope + "/"):
            rest = path[len(scope) + 1 :]
        else:
            continue
        if not any(part.startswith(".") for part in rest.split("/")):
            return True
    return False


def whole_text_filter(regex: re.Pattern[str]) -> re.Pattern[str] | None:
    r"""A regex that finds, in a whole file, every file where ``regex`` matches some line.

    Per line, ``^`` and ``$`` are the line's ends: MULTILINE gives them that meaning in the
    whole text. ``\A`` and ``\Z`` cannot be given it, so a pattern using them (or a literal
    backslash before A or Z, to stay on the safe side) gets no whole-text filter. Matching
    across a newline can only let through a file the per-line pass then rules out.
    """
    if "\\A" in regex.pattern or "\\Z" in regex.pattern:
        return None
    return re.compile(regex.pattern, regex.flags | re.MULTILINE)


# rg's engine runs in linear time; Python's backtracks, and a pattern such as (a+)+$ can take
# hours on one unlucky line. No sane pattern needs this long for one file.
SECONDS_PER_FILE = 10.0


class _OutOfTime(Exception):
    pass


@contextmanager
def _per_file_budget(seconds: float) -> Iterator[Callable[[Callable[[], list[int]]], list[int]]]:
    """Yields ``within``: ``within(call)`` runs ``call`` and raises _OutOfTime after ``seconds``.

    Python's regex engine checks for signals while it matches, so SIGALRM can stop it. Only the
    main thread may set a handler; elsewhere, or where the program using freezer has a timer
    running, calls run without a budget.
    """
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable or signal.getitimer(signal.ITIMER_REAL)[0] > 0:
        yield lambda call: call()
        return

    def out_of_time(signum: int, frame: object) -> None:
        raise _OutOfTime

    def within(call: Callable[[], list[int]]) -> list[int]:
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            return call()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)  # never left armed while blobs are read

    previous = signal.signal(signal.SIGALRM, out_of_time)
    try:
        yield within
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def grep_at(repo: CodeRepo, sha: str, pattern: str, scopes: list[str], flags: list[str]) -> GrepResult:
    """Run the interpreted ``rg`` over the tree of ``sha``."""
    regex = compile_rg(pattern, flags)
    whole_text = whole_text_filter(regex)
    literal = required_literal(pattern, flags)
    tree = repo.tree(sha)
    result = GrepResult()
    for scope in scopes:
        clean = scope.strip("/")
        if clean in ("", "."):
            continue
        if clean not in tree and not any(p.startswith(clean + "/") for p in tree):
            result.missing_scopes.append(scope)
    with _per_file_budget(SECONDS_PER_FILE) as within:
        for path in _paths_in_scope(tree, sha, scopes):
            blob = tree[path][1]
            text = repo.text(blob)
            # Most files do not match at all: a substring test, then one search over the
            # whole text, rule them out before any line is looked at.
            if text is None or (literal is not None and literal not in text):
                continue
            try:
                hits = within(partial(_matching_lines, regex, whole_text, text, partial(repo.lines, blob)))
            except _OutOfTime:
                raise PatternError(
                    f"matching {path} took over {SECONDS_PER_FILE:g} s: Python's backtracking regex engine, "
                    "which freezer uses to reproduce rg, explodes on nested repetition such as (a+)+; "
                    "rewrite the pattern without it"
                ) from None
            if hits:
                result.per_file[path] = hits
                result.matches += len(hits)
                result.files += 1
    return result


def _matching_lines(
    regex: re.Pattern[str], whole_text: re.Pattern[str] | None, text: str, lines: Callable[[], list[str]]
) -> list[int]:
    """Numbers of the matching lines; ``lines`` (the blob's lines, split once per blob) only if needed."""
    if whole_text is not None and not whole_text.search(text):
        return []
    return [number for number, line in enumerate(lines(), 1) if regex.search(line)]


def rg_command(pattern: str, scopes: list[str], flags: list[str]) -> str:
    """The shell command a reader can run to reproduce the grep."""
    import shlex

    separator = ["--"] if pattern.startswith("-") else []
    parts = ["rg", *(flags or ["-n"]), *separator, shlex.quote(pattern), *(shlex.quote(s) for s in scopes)]
    return " ".join(parts)
