"""Links from a fixture's ground truth (``file:line`` sites) to the code at the version's pinned SHA.

Only where the code repository has a web address: the origin URL the version froze (its manifest's
``code_repo.origin``, never today's remote) on github.com or gitlab.com, written as https, ssh or
scp-like (``git@github.com:owner/repo.git``). Elsewhere, or with no pinned SHA, a site is shown as text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote

from freezer.domain.fixturekind import SITE_LISTS
from freezer.domain.jsontypes import JsonObject

# The hosts whose blob URLs are known: host -> the path between the repository and the SHA.
_BLOB = {"github.com": "blob", "gitlab.com": "-/blob"}
_ORIGIN = re.compile(
    r"^(?:https://(?:[^@/]+@)?|ssh://(?:[^@/]+@)?|[^@/:]+@)(?P<host>github\.com|gitlab\.com)[:/]"
    r"(?P<path>[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+)/?$"
)


@dataclass(frozen=True)
class CodeSite:
    """A ground-truth or trap site as a fixture's page shows it: linked to the code at the pinned SHA when it can be."""

    label: str  # file:line as the fixture gives it
    href: str | None  # the code at the pinned SHA, or None: no web address known


def web_address(origin: str | None) -> tuple[str, str] | None:
    """(the repository's https address, its blob path) for a github.com or gitlab.com origin, else None."""
    found = _ORIGIN.match(origin or "")
    if found is None:
        return None
    path = found["path"].removesuffix(".git")
    return f"https://{found['host']}/{path}", _BLOB[found["host"]]


def code_sites(fixture: JsonObject, pinned: str | None, origin: str | None) -> list[CodeSite]:
    """Every ground-truth or trap site of the fixture that names a file, linked when it can be."""
    web = web_address(origin) if pinned else None
    sites: list[CodeSite] = []
    for key in SITE_LISTS:
        listed = fixture.get(key)
        for entry in listed if isinstance(listed, list) else []:
            if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
                continue
            path = str(entry["file"])
            shown, anchor = _lines_of(entry)
            label = f"{path}:{shown}" if shown else path
            href = None
            if web is not None:
                base, blob = web
                href = f"{base}/{blob}/{pinned}/{quote(path, safe='/')}" + anchor
            sites.append(CodeSite(label, href))
    return sites


def _line(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _lines_of(entry: JsonObject) -> tuple[str, str]:
    """(the lines as the fixture gives them, the URL anchor): line 48 → ("48", "#L48"); lines [105, 239]
    → ("105, 239", "#L105"), the first of them; range [10, 20] → ("10-20", "#L10-L20"); else ("", "")."""
    line, lines, span = entry.get("line"), entry.get("lines"), entry.get("range")
    if _line(line):
        return f"{line}", f"#L{line}"
    if isinstance(lines, list) and lines and all(_line(n) for n in lines):
        return ", ".join(str(n) for n in lines), f"#L{lines[0]}"
    if isinstance(span, list) and len(span) == 2 and all(_line(n) for n in span):
        return f"{span[0]}-{span[1]}", f"#L{span[0]}-L{span[1]}"
    return "", ""
