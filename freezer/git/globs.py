"""git's ``:(glob)`` pathspec, the one glob engine: the scan, the checks and the drafts all match with it.

The undeclared-commit scan hands tool-surface globs to git itself (``git log --
':(glob)GLOB'``); everything else that asks "which paths does this glob name"
(the "matches no file" check on a commit's tree, the fixtures glob over a
drafts folder) asks :class:`PathGlob`, which follows git's rules to the byte,
so the two can never disagree. ``tests/test_git_globs.py`` checks it against
real ``git ls-files`` and ``git log``. The rules, from git's ``pathspec.c``,
``dir.c`` (``match_pathspec_item``) and ``wildmatch.c``:

* the glob is normalised as a path first: ``./`` and ``//`` are dropped, and
  ``..`` takes a folder off (one that climbs out of the repository, or a glob
  starting with ``/``, is refused: git dies on it);
* the glob read literally (wildcards included) names a path exactly, or a
  folder whose whole contents it names (``tools`` and ``tools/`` name
  ``tools/a/b``);
* otherwise it is matched byte by byte against the whole path: ``*`` and ``?``
  never match ``/``; ``**`` matches across folders only as a whole component
  (``**/x``, ``a/**/b``, ``a/**``), or right after the glob's leading literal
  part (git slices that part off before matching, so ``tools/a**`` names
  ``tools/a/x``); elsewhere it is ``*``. ``?`` and ``[...]`` match one byte,
  so one of a multi-byte UTF-8 character; ``[!...]`` and ``[^...]`` negate,
  ``[[:alpha:]]``-style classes hold ASCII only, ``\\`` escapes;
* a glob with a wildcard never names a folder's contents (``tools/*`` is not
  ``tools/a/b``; ``tools/*/`` names nothing, as no file path ends in ``/``).

Globs come from ``freezer.yaml`` and from frozen manifests, so a glob that git
would refuse, or that can match nothing (an unclosed ``[``, an unknown class),
is reported where it is written (:func:`glob_problem`), never raised as a crash.
"""

import re
from typing import NamedTuple

_SPECIAL = b"*?[\\"
_ALL = frozenset(range(256)) - {ord("/")}


def _ascii(test: str) -> frozenset[int]:
    return frozenset(byte for byte in range(128) if getattr(chr(byte), test)())


# git's own ctype, ASCII only (wildmatch.c and git-compat-util.h): not the C library's locale.
_SPACE = frozenset(b" \t\n\r")
_PUNCT = frozenset(b"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_CLASSES: dict[bytes, frozenset[int]] = {
    b"alnum": _ascii("isalnum"),
    b"alpha": _ascii("isalpha"),
    b"blank": frozenset(b" \t"),
    b"cntrl": frozenset([*range(32), 127]),
    b"digit": _ascii("isdigit"),
    b"graph": frozenset(range(33, 127)),
    b"lower": _ascii("islower"),
    b"print": frozenset(range(32, 127)),
    b"punct": _PUNCT,
    b"space": _SPACE,
    b"upper": _ascii("isupper"),
    b"xdigit": frozenset(b"0123456789abcdefABCDEF"),
}


class GlobError(ValueError):
    """The glob cannot be read, or can never match; the message says why."""


class _Never(Exception):  # control flow: the wildcard part can match no path
    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def _normalise(glob: bytes) -> bytes:
    """The glob as git normalises a pathspec (``normalize_path_copy_len``). Raises GlobError."""
    if glob.startswith(b"/"):
        raise GlobError("starts with '/': git reads it as a path outside the repository; write it from the top")
    out: list[bytes] = []
    parts = glob.split(b"/")
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if part in (b"", b"."):
            if last and out:
                out.append(b"")  # a trailing slash (or "/.") stays: "tools/" names a folder
            continue
        if part == b"..":
            if not out or out == [b""]:
                raise GlobError("'..' climbs out of the repository; git refuses such a pathspec")
            out.pop()
            if last:
                out.append(b"")
            continue
        out.append(part)
    return b"/".join(out)


def _bracket(pattern: bytes, start: int) -> tuple[frozenset[int], int]:
    """The bytes ``[...]`` at ``start`` matches, and the index after it (wildmatch.c's loop)."""
    at = start + 1
    negated = at < len(pattern) and pattern[at] in b"!^"
    if negated:
        at += 1
    members: set[int] = set()
    prev: int | None = None
    first = True
    while first or at >= len(pattern) or pattern[at] != ord("]"):
        first = False
        if at >= len(pattern):
            raise _Never("'[' opens a bracket expression that is never closed; write [[] for a literal [")
        char = pattern[at]
        if char == ord("\\"):
            at += 1
            if at >= len(pattern):
                raise _Never("'[' opens a bracket expression that is never closed; write [[] for a literal [")
            members.add(pattern[at])
            prev = pattern[at]
        elif char == ord("-") and prev is not None and at + 1 < len(pattern) and pattern[at + 1] != ord("]"):
            at += 1
            high = pattern[at]
            if high == ord("\\"):
                at += 1
                if at >= len(pattern):
                    raise _Never("'[' opens a bracket expression that is never closed; write [[] for a literal [")
                high = pattern[at]
            if prev > high:
                raise GlobError(f"the range {chr(prev)}-{chr(high)} is reversed; write {chr(high)}-{chr(prev)}")
            members.update(range(prev, high + 1))
            prev = None
        elif char == ord("[") and pattern[at + 1 : at + 2] == b":":
            end = pattern.find(b"]", at + 2)
            if end == -1:
                raise _Never("'[' opens a bracket expression that is never closed; write [[] for a literal [")
            if end - (at + 2) < 1 or pattern[end - 1] != ord(":"):
                members.add(char)  # no ":]": an ordinary "[" member
                prev = char
            else:
                name = pattern[at + 2 : end - 1]
                if name not in _CLASSES:
                    raise _Never(f"[:{name.decode('utf-8', 'replace')}:] is not a character class")
                members.update(_CLASSES[name])
                prev = None
                at = end
        else:
            members.add(char)
            prev = char
        at += 1
    chosen = (_ALL - members) if negated else (members - {ord("/")})
    if not chosen:
        raise _Never("the bracket expression matches no character")
    return frozenset(chosen), at + 1


def _class(members: frozenset[int]) -> bytes:
    return b"[" + b"".join(re.escape(bytes([m])) for m in sorted(members)) + b"]"


def _wildmatch(pattern: bytes) -> bytes:
    """``pattern`` (what follows the glob's literal part) as a regex with wildmatch's WM_PATHNAME rules."""
    out: list[bytes] = []
    at = 0
    while at < len(pattern):
        char = pattern[at]
        if char == ord("\\"):
            if at + 1 >= len(pattern):
                raise _Never("ends in a lone '\\', which escapes nothing")
            out.append(re.escape(pattern[at + 1 : at + 2]))
            at += 2
        elif char == ord("?"):
            out.append(b"[^/]")
            at += 1
        elif char == ord("["):
            members, at = _bracket(pattern, at)
            out.append(_class(members))
        elif char == ord("*"):
            stars = at
            while at < len(pattern) and pattern[at] == ord("*"):
                at += 1
            rest = pattern[at:]
            whole = at - stars > 1 and (stars == 0 or pattern[stars - 1] == ord("/"))
            if whole and rest.startswith(b"/"):
                out.append(b"(?:.*/)?")
                at += 1
            elif whole and (not rest or rest.startswith(b"\\/")):
                out.append(b".*")
            else:
                out.append(b"[^/]*")
        else:
            out.append(re.escape(bytes([char])))
            at += 1
    return b"".join(out)


class PathGlob(NamedTuple):
    """One glob, compiled: :meth:`matches` says whether git's ``:(glob)`` pathspec names a path."""

    glob: str
    regex: re.Pattern[bytes]  # the literal reading or the wildcard one, in one expression
    never: str | None  # why the wildcard part can match nothing, if it cannot

    def matches(self, path: str) -> bool:
        """Does the glob name ``path`` (a file's path from the top, ``/``-separated)?"""
        return self.regex.fullmatch(path.encode("utf-8", "surrogateescape")) is not None

    def names(self, name: bytes) -> bool:
        """:meth:`matches` for a path as git stores it, in bytes."""
        return self.regex.fullmatch(name) is not None


def compile_glob(glob: str) -> PathGlob:
    """Raises :class:`GlobError` for a glob git would refuse or that is unreadable."""
    literal = _normalise(glob.encode("utf-8", "surrogateescape"))
    # Read literally, the glob names a path, or a folder and everything in it (match_pathspec_item).
    folder = b".*" if not literal or literal.endswith(b"/") else b"(?:/.*)?"
    alternatives = [re.escape(literal) + folder]
    plain = len(literal)
    for special in _SPECIAL:
        found = literal.find(bytes([special]))
        if found != -1:
            plain = min(plain, found)
    never = None
    if plain < len(literal):
        try:
            alternatives.append(re.escape(literal[:plain]) + _wildmatch(literal[plain:]))
        except _Never as why:
            never = why.why
    return PathGlob(glob, re.compile(b"(?:" + b"|".join(alternatives) + rb")\Z", re.DOTALL), never)


def glob_problem(glob: str) -> str | None:
    """Why ``glob`` cannot be used, or None."""
    if not glob.strip():
        return "an empty glob matches nothing"
    try:
        compiled = compile_glob(glob)
    except GlobError as exc:
        return f"{glob!r}: {exc}"
    if compiled.never:
        return f"{glob!r}: {compiled.never}"
    return None
