"""A version's page: its record, comparability, the fixture table with each fixture's class, METHOD.md.

A fixture's class against the previous version (added, changed, cosmetic, unchanged) is what the
version froze: its ``comparability.json`` (manifest format 3 on, digest-based, so it tells cosmetic
from changed), else its ``delta.json`` (added, changed, unchanged). It is never recomputed from today's
freezer.yaml, so a page says what the version said when it was cut.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TypedDict

from freezer.compare.comparability import compare
from freezer.domain.jsontypes import JsonObject, JsonValue, as_object, json_list, objects_in
from freezer.registry import registry
from freezer.registry.record import Side, VersionData, arms_of, dimensions_of, groups_of
from freezer.runtime.reading import read_whole
from freezer.site.filepage import folder_title
from freezer.site.names import diff_file, fixture_file, version_file
from freezer.trust import lifecycle, signing

CLASS_ORDER = ("added", "changed", "cosmetic", "unchanged", "removed")


class LogRow(TypedDict):
    """What the timeline shows of a version (site templates read these keys)."""

    cut_at: str
    pinned_sha: str | None
    landed: int
    dropped: int
    previous: JsonValue
    moved: list[JsonValue]


class Comparison(TypedDict):
    """The version against an earlier one: that one's name, and each arm's record as comparability.json has it."""

    other: JsonValue
    arms: JsonValue


class FixtureRow(TypedDict):
    task_id: JsonValue
    path: str
    title: str
    kind: JsonValue
    change: str
    status: JsonValue


class RemovedRow(TypedDict):
    task_id: str
    path: str


class VersionContext(TypedDict):
    """Everything version.html.j2 shows of one version (its variables)."""

    page: VersionPage
    previous: str | None
    previous_path: str | None
    diff_path: str | None
    manifest: JsonObject
    manifest_sha256: str
    title: str | None
    method_html: str  # a markupsafe.Markup (a str): HTML the template inserts unescaped
    statement: str | None
    comparisons: list[Comparison]
    fixtures: list[FixtureRow]
    removed: list[RemovedRow]
    counts: list[tuple[str, int]]


@dataclass
class VersionPage:
    """One frozen version as the site shows it: read once, with its verified status and its signature, for
    its page and its fixtures' pages."""

    frozen: registry.FrozenVersion
    data: VersionData
    status: lifecycle.VersionStatus
    signature: signing.SignatureStatus
    # Unverified events that name the version and a checkpoint that contradicts it: the page says so.
    against: tuple[str, ...] = ()
    # Field → input, grading or cosmetic, from the schema the version was cut with (a suite's own
    # frozen copy is vetted as a suite schema is): the fixture page says what each field counts as.
    groups: dict[str, str] = field(default_factory=dict)
    # The manifest's files by their folder's name, and its fixture files by their stem and their folder's
    # name, built on first use (folder_files, fixture_files_named): finding one task's files by scanning
    # every file, for each of thousands of tasks, made the site quadratic (bench/harborscale.py).
    by_folder: dict[str, list[str]] | None = field(default=None, repr=False, compare=False)
    fixtures_by_name: dict[str, list[str]] | None = field(default=None, repr=False, compare=False)
    # The fixtures by task id, built on first use (fixture_of): the fixture page looked each one up by
    # scanning every fixture, quadratic in a records suite of thousands of records.
    fixtures_by_id: dict[str, JsonObject] | None = field(default=None, repr=False, compare=False)


def _frozen_json(page: VersionPage, name: str) -> JsonObject | None:
    path = page.frozen.path / name
    if not path.is_file():
        return None
    loaded = json.loads(read_whole(path))
    return loaded if isinstance(loaded, dict) else None


def frozen_classes(page: VersionPage, previous: str | None) -> dict[str, str]:
    """Task id → its class against ``previous`` (None: the suite's first version, every fixture added),
    as the version froze it; a removed fixture is named too."""
    if previous is None:
        return {str(f["task_id"]): "added" for f in page.data.fixtures}
    delta = as_object((_frozen_json(page, registry.DELTA) or {}).get("fixtures")) or {}
    classes: dict[str, str] = {}
    for change in ("added", "removed", "changed"):
        for item in objects_in(delta.get(change)):
            classes[str(item["task_id"])] = change
    # Older delta formats froze the unchanged fixtures as a count: every fixture not named above.
    present = {str(f["task_id"]) for f in page.data.fixtures}
    for task in sorted(present):
        classes.setdefault(task, "unchanged")
    # The comparability record (format 3 on) tells cosmetic from changed, from the digests the version
    # froze; it names landed fixtures only, and "removed" there may mean dropped, which the delta says.
    record = _frozen_json(page, registry.COMPARABILITY) or {}
    for entry in objects_in(record.get("against")):
        arms = objects_in(entry.get("arms"))
        first = arms[0].get("classes") if arms else None
        if entry.get("version") == previous and isinstance(first, dict):
            for task, kind in first.items():
                if str(task) in present and kind in ("unchanged", "cosmetic", "changed", "added"):
                    classes[str(task)] = str(kind)
            break
    return classes


def log_row(page: VersionPage) -> LogRow:
    """What the timeline shows of a version, from its manifest and its frozen delta."""
    delta = _frozen_json(page, registry.DELTA) or {}
    landed = sum(1 for f in page.data.fixtures if f["status"] == "landed")
    moved = delta.get("moved")
    return {
        "cut_at": page.data.manifest.cut_at,
        "pinned_sha": page.data.manifest.pinned_full,
        "landed": landed,
        "dropped": len(page.data.fixtures) - landed,
        "previous": delta.get("from"),
        "moved": json_list(moved) if isinstance(moved, list) else [],
    }


def comparisons(page: VersionPage, chain: list[Side]) -> list[Comparison]:
    """The version against every earlier one, newest first: its frozen, audited record when it has
    one (manifest format 3), else computed by the same engine from the sides already read."""
    frozen = _frozen_json(page, registry.COMPARABILITY)
    if frozen is not None:
        return [{"other": entry["version"], "arms": entry["arms"]} for entry in objects_in(frozen["against"])]
    # No record (before manifest format 3): the arms, dimensions and groups the version was cut with.
    meanings = dimensions_of(chain[-1].manifest)
    arms = arms_of(chain[-1].manifest)
    groups = groups_of(page.frozen, chain[-1].manifest)
    return [
        {
            "other": chain[start].name,
            "arms": json_list(r.to_json() for r in compare(chain[start:], meanings, arms, groups)),
        }
        for start in reversed(range(len(chain) - 1))
    ]


def fixture_rows(page: VersionPage, classes: dict[str, str]) -> list[FixtureRow]:
    """The version's fixture table: freezer needs only task_id and status, whatever the suite's schema,
    so every other field may be absent."""
    return [
        {
            "task_id": fixture["task_id"],
            "path": f"../{fixture_file(fixture['task_id'])}",
            "title": title_in(page, fixture),
            "kind": fixture.get("class"),
            "change": classes.get(str(fixture["task_id"]), "unchanged"),
            "status": fixture["status"],
        }
        for fixture in page.data.fixtures
    ]


def removed_rows(classes: dict[str, str]) -> list[RemovedRow]:
    return [
        {"task_id": task, "path": f"../{fixture_file(task)}"} for task, kind in classes.items() if kind == "removed"
    ]


def class_counts(classes: dict[str, str]) -> list[tuple[str, int]]:
    counted = [(kind, sum(1 for k in classes.values() if k == kind)) for kind in CLASS_ORDER]
    return [(kind, count) for kind, count in counted if count]


# Fields a suite's fixtures use for a one-line description, in the order they are tried.
_TITLE_FIELDS = ("title", "question", "prompt", "instruction", "problem_statement", "description")


def fixture_title(fixture: JsonObject) -> str:
    """A fixture's first line of prose, clipped, for tables and the search index ("" when it has none)."""
    for key in _TITLE_FIELDS:
        value = fixture.get(key)
        if isinstance(value, str) and value.strip():
            line = value.strip().splitlines()[0]
            return line if len(line) <= 140 else line[:139] + "…"
    return ""


def title_in(page: VersionPage, fixture: JsonObject) -> str:
    """A fixture's title as a version froze it: its first line of prose, else, for a folder task,
    its instruction's first heading."""
    own = fixture_title(fixture)
    if own:
        return own
    return folder_title(page.frozen.path, folder_files(page, str(fixture["task_id"])))


def folder_files(page: VersionPage, folder: str) -> list[str]:
    """The files the version froze in a folder named ``folder`` (a folder task's own files), sorted."""
    if page.by_folder is None:
        index: dict[str, list[str]] = {}
        for rel in sorted(page.data.manifest.files):
            index.setdefault(PurePosixPath(rel).parent.name, []).append(rel)
        page.by_folder = index
    return list(page.by_folder.get(folder, ()))


def fixture_files_named(page: VersionPage, stem: str) -> list[str]:
    """The fixture files named after ``stem`` (fixtures/ID.yaml) or in its folder (a folders kind's
    tasks/ID/task.toml), in the manifest's order."""
    if page.fixtures_by_name is None:
        manifest = page.data.manifest
        index: dict[str, list[str]] = {}
        for rel in manifest.fixture_names() or [r for r in manifest.files if r.endswith((".yaml", ".yml", ".json"))]:
            path = PurePosixPath(rel)
            for key in dict.fromkeys((path.stem, path.parent.name)):
                index.setdefault(key, []).append(rel)
        page.fixtures_by_name = index
    return list(page.fixtures_by_name.get(stem, ()))


def fixture_of(page: VersionPage, task_id: str) -> JsonObject:
    """The fixture of ``page``'s version whose task id is ``task_id`` (the first, should two share it)."""
    if page.fixtures_by_id is None:
        index: dict[str, JsonObject] = {}
        for fixture in page.data.fixtures:
            index.setdefault(str(fixture["task_id"]), fixture)
        page.fixtures_by_id = index
    return page.fixtures_by_id[task_id]


def version_context(page: VersionPage, previous: str | None, chain: list[Side], method_html: str) -> VersionContext:
    """Everything version.html.j2 shows of one version."""
    classes = frozen_classes(page, previous)
    statement = (
        read_whole(page.frozen.path / "provenance.json").decode("utf-8")
        if (page.frozen.path / "provenance.json").is_file()
        else None
    )
    return {
        "page": page,
        "previous": previous,
        "previous_path": f"../{version_file(previous)}" if previous else None,
        "diff_path": f"../{diff_file(previous, page.frozen.name)}" if previous else None,
        "manifest": page.data.manifest_json,
        "manifest_sha256": page.frozen.manifest_sha256(),
        "title": page.data.version.get("title") if isinstance(page.data.version.get("title"), str) else None,
        "method_html": method_html,
        "statement": statement,
        "comparisons": comparisons(page, chain),
        "fixtures": fixture_rows(page, classes),
        "removed": removed_rows(classes),
        "counts": class_counts(classes),
    }
