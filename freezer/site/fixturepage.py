"""A fixture's page: the fixture itself as its newest version froze it, its files, and its history.

Every field is shown (nested values as nested lists, long or multi-line text in a wrapping ``<pre>``);
the files are the ones its file fields name (assets, graders, a folder's files) and the file that
holds it, each with its size and sha256 from the manifest; the history is one row per version that
holds it, with its frozen class and the field diffs, a line diff for multi-line text.
"""

from __future__ import annotations

import os
import stat
from typing import TypedDict

from freezer.compare import fieldtext
from freezer.compare.claims import file_fields_of
from freezer.compare.fieldlevel import field_changes
from freezer.domain import canonical
from freezer.domain.jsontypes import JsonObject, JsonValue
from freezer.kinds.yamlfiles import entries
from freezer.site.codelinks import CodeSite, code_sites
from freezer.site.filepage import INLINE_BYTES, text_of
from freezer.site.names import frozen_file_page, version_file
from freezer.site.versionpage import VersionPage, fixture_files_named, fixture_of, title_in
from freezer.trust.lifecycle import VersionStatus
from freezer.validate.namedfiles import AssetFiles, named_files

# One row of a fixture's history (fixture.html.j2 reads these keys; "class" is not a Python name).
HistoryRow = TypedDict(
    "HistoryRow",
    {
        "version": str,
        "path": str,
        "status": JsonValue,
        "class": str,
        "yanked": bool,
        "lifecycle": VersionStatus,
        "fields": list[JsonObject],
    },
)


class FixtureContext(TypedDict):
    """Everything fixture.html.j2 shows (its variables)."""

    task_id: str
    title: str
    shown_in: str
    shown_path: str
    fixture: JsonObject
    groups: dict[str, str]
    files: list[JsonObject]
    rows: list[HistoryRow]
    code: list[CodeSite]  # its ground-truth sites, linked to the code at the pinned SHA when it has a web address
    pinned: str | None


def histories(versions: list[VersionPage], classes: list[dict[str, str]]) -> dict[str, list[HistoryRow]]:
    """Per task id, one row per version that holds it: its frozen class against the previous version,
    and the field diff against the last version that held it."""
    out: dict[str, list[HistoryRow]] = {}
    last: dict[str, JsonObject] = {}
    for page, frozen in zip(versions, classes, strict=True):
        for fixture in page.data.fixtures:
            task = str(fixture["task_id"])
            previous = last.get(task)
            fields = [] if previous is None else field_changes(previous, fixture, full=True)
            out.setdefault(task, []).append(
                {
                    "version": page.frozen.name,
                    "path": f"../{version_file(page.frozen.name)}",
                    "status": fixture["status"],
                    "class": frozen.get(task, "added" if previous is None else "unchanged"),
                    "yanked": page.status.status == "yanked",
                    "lifecycle": page.status,
                    "fields": [history_field(f) for f in fields],
                }
            )
            last[task] = fixture
    return out


def history_field(change: JsonObject) -> JsonObject:
    """A field change as the page shows it: a line diff for multi-line text; two values that would
    read alike (a trailing space, another Unicode normal form) are shown apart (fieldtext)."""
    shown = {side: shown_value(change[side]) if side in change else "—" for side in ("old", "new")}
    if change["change"] == "changed" and not fieldtext.tellable(shown["old"], shown["new"]):
        shown["old"], shown["new"] = fieldtext.shown_pair(change["old"], change["new"], width=None)
    recorded = change.get("lines")
    lines = [str(line) for line in recorded] if isinstance(recorded, list) else []
    if recorded is None and change["change"] in ("changed", "added", "removed"):
        old, new = change.get("old"), change.get("new")
        if fieldtext.multiline(old) or fieldtext.multiline(new):
            texts = [v if isinstance(v, str) else None for v in (old, new)]
            lines = list(fieldtext.line_diff(texts[0], texts[1], full=True))
    out: JsonObject = {**change, **shown}
    out["lines"] = [diff_line(line) for line in lines]
    if change["change"] == "items":
        for side in ("added", "removed"):
            values = change.get(side, [])
            out[side] = [shown_value(v) for v in values] if isinstance(values, list) else []
    return out


def diff_line(line: str) -> JsonObject:
    """One line of a unified-style diff and its kind, for the colour of its row."""
    kind = {"+": "add", "-": "del", "@": "hunk"}.get(line[:1], "same")
    return {"kind": kind, "text": line}


def shown_value(value: JsonValue) -> str:
    # Shown, never hashed: the canonical form only so that one value always reads the same.
    return (
        value
        if isinstance(value, str)
        else canonical.dumps(value, ascii_only=False, separators=canonical.SPACED, nan=True)
    )


def fixture_files(page: VersionPage, fixture: JsonObject) -> list[JsonObject]:
    """The frozen files of one fixture, with their sizes and sha256: the file that holds it (when the
    version keeps one file per fixture) and every file its file fields name."""
    manifest = page.data.manifest
    files = AssetFiles.of(manifest)
    wanted = fixture_files_named(page, str(fixture["task_id"]))
    for key in file_fields_of(manifest):
        for entry in entries(fixture, key):
            wanted.extend(named_files(entry, files))
    rows: list[JsonObject] = []
    for rel in dict.fromkeys(wanted):
        digest = manifest.files.get(rel)
        rows.append(
            {
                "path": rel,
                "sha256": digest,
                "size": frozen_size(page, rel) if digest else None,
                "page": f"../{frozen_file_page(page.frozen.name, rel)}" if digest else None,
                # Read on the fixture's own page (a folder task's instruction and test script).
                "text": text_of(page.frozen.path / rel, INLINE_BYTES) if digest else None,
            }
        )
    return rows


def frozen_size(page: VersionPage, rel: str) -> int | None:
    """The size of a file the manifest lists; it was hash-checked when the version was read, and a
    link or anything but a plain file inside the version is not followed."""
    try:
        info = os.lstat(page.frozen.path / rel)
    except (OSError, ValueError):
        return None
    return info.st_size if stat.S_ISREG(info.st_mode) else None


def fixture_context(task_id: str, rows: list[HistoryRow], versions: list[VersionPage]) -> FixtureContext:
    """Everything fixture.html.j2 shows: the fixture as the newest version holding it froze it."""
    newest = next(page for page in reversed(versions) if page.frozen.name == rows[-1]["version"])
    fixture = fixture_of(newest, task_id)
    manifest = newest.data.manifest
    return {
        "task_id": task_id,
        "title": title_in(newest, fixture),
        "shown_in": newest.frozen.name,
        "shown_path": f"../{version_file(newest.frozen.name)}",
        "fixture": fixture,
        "groups": {key: newest.groups.get(key, "input") for key in fixture if key not in ("task_id", "status")},
        "files": fixture_files(newest, fixture),
        "rows": list(reversed(rows)),
        "code": code_sites(fixture, manifest.pinned_full, manifest.code_repo.origin if manifest.code_repo else None),
        "pinned": manifest.pinned_full,
    }
