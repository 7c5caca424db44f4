"""The site's root index and each suite's page: every suite with its versions, latest first.

"latest" is :func:`freezer.trust.latest.latest_usable`, the rule ``freezer.load("latest")`` follows
(the newest version that is not yanked); yanked and deprecated versions are marked with their reason.
"""

from __future__ import annotations

import itertools
from typing import TypedDict

from freezer.domain.jsontypes import JsonObject, JsonValue, json_list
from freezer.domain.taskid import safe_file_name
from freezer.site.names import diff_file, fixture_file, version_file
from freezer.site.versionpage import LogRow, VersionPage
from freezer.trust.latest import latest_usable
from freezer.trust.lifecycle import VersionStatus
from freezer.trust.verified import VerifiedView


class VersionRow(TypedDict):
    """A version as the index and the suite page list it (site templates read these keys)."""

    page: VersionPage
    name: str
    path: str
    title: JsonValue
    status: VersionStatus
    latest: bool
    row: LogRow


def latest_name(versions: list[VersionPage], known: VerifiedView) -> str | None:
    newest = latest_usable([v.frozen for v in versions], known)
    return newest.name if newest is not None else None


def version_rows(
    versions: list[VersionPage], log: dict[str, LogRow], latest: str | None, prefix: str
) -> list[VersionRow]:
    """The suite's versions newest first, as the index and the suite page list them."""
    return [
        {
            "page": v,
            "name": v.frozen.name,
            "path": prefix + version_file(v.frozen.name),
            "title": v.data.version.get("title") if isinstance(v.data.version.get("title"), str) else "",
            "status": v.status,
            "latest": v.frozen.name == latest,
            "row": log[v.frozen.name],
        }
        for v in reversed(versions)
    ]


def index_entry(
    name: str, versions: list[VersionPage], diffs: list[dict[str, str]], tasks: list[str], latest: str | None
) -> JsonObject:
    """The suite as index.json describes it for programs (paths relative to the site's root)."""
    folder = safe_file_name(name)
    return {
        "name": name,
        "path": f"{folder}/index.html",
        "latest": latest,
        "versions": [
            {
                "name": v.frozen.name,
                "path": f"{folder}/{version_file(v.frozen.name)}",
                "manifest_sha256": v.frozen.manifest_sha256(),
                "pinned_sha": v.data.manifest.pinned_full,
                "status": v.status.to_json(),
                "signature": v.signature.status,
                "fixtures": json_list(sorted(str(f["task_id"]) for f in v.data.fixtures)),
                **({"problems": json_list(v.against)} if v.against else {}),
            }
            for v in versions
        ],
        "fixtures": {task: f"{folder}/{fixture_file(task)}" for task in tasks},
        "diffs": [{**d, "path": f"{folder}/{d['path']}"} for d in diffs],
    }


def diff_rows(versions: list[VersionPage]) -> list[dict[str, str]]:
    return [
        {"from": a.frozen.name, "to": b.frozen.name, "path": diff_file(a.frozen.name, b.frozen.name)}
        for a, b in itertools.pairwise(versions)
    ]
