"""git's ``:(glob)`` pathspec magic, as a regular expression.

Tool-surface globs come from ``freezer.yaml`` and from frozen manifests, so a
glob that cannot be translated is reported where it is written, never raised
as a crash.
"""

from __future__ import annotations

import re


class GlobError(ValueError):
    """The glob cannot be read; the message says why."""


def glob_regex(glob: str) -> re.Pattern[str]:
    """``*`` and ``?`` stay within a folder, ``**`` crosses folders; as in git, a pattern that
    names a folder also matches everything under it. Raises :class:`GlobError`."""
    out = []
    index = 0
    while index < len(glob):
        char = glob[index]
        if glob.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
            continue
        if glob.startswith("**", index):
            out.append(".*")
            index += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            # As in fnmatch, a "]" right after "[" or "[!" is a member, not the end.
            end = glob.find("]", index + (3 if glob.startswith(("[!", "[^"), index) else 2))
            if end == -1:
                # git's wildmatch matches nothing at all with an unclosed bracket.
                raise GlobError(
                    f"{glob!r}: '[' opens a bracket expression that is never closed; write [[] for a literal ["
                )
            out.append(_bracket(glob[index + 1 : end], glob))
            index = end
        else:
            out.append(re.escape(char))
        index += 1
    # \Z and DOTALL: a file name may hold a newline, and "$" would also match before a final one.
    return re.compile("".join(out).rstrip("/") + "(?:/.*)?\\Z", re.DOTALL)


def _bracket(body: str, glob: str) -> str:
    negated = body[:1] in ("!", "^")
    if negated:
        body = body[1:]
    if not body:
        raise GlobError(f"{glob!r}: the bracket expression '[{'!' if negated else ''}]' matches nothing")
    members = []
    index = 0
    while index < len(body):
        if index + 2 < len(body) and body[index + 1] == "-":
            low, high = body[index], body[index + 2]
            if low > high:
                raise GlobError(f"{glob!r}: the range {low}-{high} is reversed; write {high}-{low}")
            members.append(f"{re.escape(low)}-{re.escape(high)}")
            index += 3
        else:
            members.append(re.escape(body[index]))
            index += 1
    return f"[{'^' if negated else ''}{''.join(members)}]"


def glob_problem(glob: str) -> str | None:
    """Why ``glob`` cannot be used, or None."""
    if not glob.strip():
        return "an empty glob matches nothing"
    try:
        glob_regex(glob)
    except GlobError as exc:
        return str(exc)
    return None
