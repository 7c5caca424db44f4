"""Reproducing a fixture's naive ``rg`` at a commit, without rg and without a checkout.

How the seed's ``rg`` commands are interpreted:

* The pattern is Rust regex syntax, run with Python's ``re`` after a small
  translation: ``(?<name>`` becomes ``(?P<name>``, ``\\z`` becomes ``\\Z``, and
  the POSIX classes ``[[:alpha:]]`` and friends are expanded. Look-around and
  backreferences are refused, because rg's default engine refuses them too;
  ``\\p{..}`` Unicode classes are refused because ``re`` lacks them.
* Matching is per line, like ``rg -n``: the match count is the number of
  matching lines (the sum of ``rg -c``), and the file count is the number of
  files with at least one.
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
from dataclasses import dataclass, field

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


def grep_at(repo: CodeRepo, sha: str, pattern: str, scopes: list[str], flags: list[str]) -> GrepResult:
    """Run the interpreted ``rg`` over the tree of ``sha``."""
    regex = compile_rg(pattern, flags)
    literal = required_literal(pattern, flags)
    tree = repo.tree(sha)
    result = GrepResult()
    for scope in scopes:
        clean = scope.strip("/")
        if clean in ("", "."):
            continue
        if clean not in tree and not any(p.startswith(clean + "/") for p in tree):
            result.missing_scopes.append(scope)
    for path in sorted(tree):
        if not _in_scope(path, scopes):
            continue
        text = repo.text(tree[path][1])
        # Most files do not match at all: a substring test, then one search over the
        # whole text, rule them out before any line is looked at.
        if text is None or (literal is not None and literal not in text) or not regex.search(text):
            continue
        hits = [number for number, line in enumerate(text.split("\n"), 1) if regex.search(line)]
        if hits:
            result.per_file[path] = hits
            result.matches += len(hits)
            result.files += 1
    return result


def rg_command(pattern: str, scopes: list[str], flags: list[str]) -> str:
    """The shell command a reader can run to reproduce the grep."""
    import shlex

    separator = ["--"] if pattern.startswith("-") else []
    parts = ["rg", *(flags or ["-n"]), *separator, shlex.quote(pattern), *(shlex.quote(s) for s in scopes)]
    return " ".join(parts)
