"""Links from a fixture's ground truth (``file:line`` sites) to the code at the version's pinned SHA.

Only where the code repository has a web address: the origin URL the version froze (its manifest's
``code_repo.origin``, never today's remote) on github.com or gitlab.com, written as https, ssh or
scp-like (``git@github.com:owner/repo.git``). Elsewhere, or with no pinned SHA, a site is shown as text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote

from freezer.domain.jsontypes import JsonObject
from freezer.kinds.yamlfiles import SITE_LISTS

# The hosts whose blob URLs are known: host -> the path between the repository and the SHA.
_BLOB = {"github.com": "blob", "gitlab.com": "-/blob"}
_ORIGIN = re.compile(
    r"^(?:https://(?:[^@/]+@)?|ssh://(?:[^@/]+@)?|[^@/:]+@)(?P<host>github\.com|gitlab\.com)[:/]"
    r"(?P<path>[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+)/?$"
)


@dataclass(frozen=True)
class CodeSite:
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
            path, line = str(entry["file"]), entry.get("line")
            has_line = isinstance(line, int) and not isinstance(line, bool) and line > 0
            label = f"{path}:{line}" if has_line else path
            href = None
            if web is not None:
                base, blob = web
                href = f"{base}/{blob}/{pinned}/{quote(path, safe='/')}" + (f"#L{line}" if has_line else "")
            sites.append(CodeSite(label, href))
    return sites
