"""The search box's index: task ids, version names and titles, embedded in the page as JSON.

The site works from ``file://`` with no server, where a page cannot fetch another file, so the index
travels inside the page in a ``<script type="application/json">``, read by the page's own small
script. Its text comes from data: every ``<``, ``>`` and ``&`` is written as a JSON escape, so no
``</script>`` or ``<!--`` can close the element or open a comment, and the JSON reads the same.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from freezer.site.html import inert


@dataclass(frozen=True)
class SearchEntry:
    label: str  # what is matched and shown first: a task id or a version name
    title: str  # the fixture's first line of prose, or the version's title
    kind: str  # "fixture" or "version"
    suite: str
    path: str  # relative to the site's root

    def to_json(self, prefix: str) -> list[str]:
        return [self.label, self.title, self.kind, self.suite, prefix + self.path]


def embedded(entries: list[SearchEntry], prefix: str) -> str:
    """The index as the text of a ``<script type="application/json">``, links relative to the page
    (``prefix`` leads from the page to the site's root)."""
    rows = [[inert(part) for part in e.to_json(prefix)] for e in entries]
    text = json.dumps(rows, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
