"""``freezer status``: what a cut would do now, without doing it.

It validates the drafts, compares them with the latest frozen version field by
field, and scans the code repository for tool-surface commits since that
version's scan that the drafts do not declare. Then it runs the cut itself as
``freezer cut --dry-run`` does (:func:`freezer.freeze.cut.cut`, the one check
path: the pinned SHA, ground truth, Gate B, the code repository, the previous
version's integrity), so "valid" is never said of drafts the cut would refuse.
When the dry run cannot be asked (invalid drafts, drafts for another version),
it says that it skipped it and why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from freezer.compare.fieldlevel import field_changes, fixture_delta, version_record
from freezer.domain.errors import FreezerError, InvalidInput
from freezer.domain.jsontypes import JsonObject
from freezer.domain.problems import Problem
from freezer.domain.scan import TouchingCommit
from freezer.freeze.cut import cut
from freezer.git.gitrepo import CodeRepo
from freezer.registry.config import RegistryConfig, SuiteConfig
from freezer.registry.model import Suite
from freezer.registry.record import load_frozen_drafts
from freezer.resolve.provenance import follow_content, scan_plan, undeclared
from freezer.validate.validate import validate_suite


@dataclass
class SuiteStatus:
    """One suite in ``freezer status``: what its drafts change against the latest frozen version, and what a
    cut would say of them now."""

    suite: str
    next_version: int
    drafts_version: int | None
    problems: int
    latest: str | None = None
    fixtures: dict[str, list[str]] = field(default_factory=dict)  # added / removed / changed task ids
    record: list[str] = field(default_factory=list)  # version.yaml paths that differ
    pinned_sha: dict[str, str] | None = None  # {"before": latest's full SHA, "after": the drafts' SHA as written}
    declared: int = 0
    undeclared: list[TouchingCommit] = field(default_factory=list)
    code: str = "not checked"
    cut: str = "not run"  # "passes", "fails at …" or "skipped: why" (what cut --dry-run says now)
    cut_problems: list[Problem] = field(default_factory=list)
    cut_warnings: list[str] = field(default_factory=list)

    @property
    def cut_ok(self) -> bool:
        return self.cut == "passes"

    def to_json(self) -> JsonObject:
        return {
            **self.__dict__,
            "undeclared": [commit.to_json() for commit in self.undeclared],
            "cut_problems": [p.to_json() for p in self.cut_problems],
        }


@dataclass
class StatusReport:
    """``freezer status``'s outcome: each suite's status; it fails on invalid drafts or undeclared commits."""

    suites: list[SuiteStatus]

    @property
    def ok(self) -> bool:
        return not any(s.problems or s.undeclared or s.cut.startswith("fails") for s in self.suites)

    def to_json(self) -> dict[str, object]:
        return {"suites": [s.to_json() for s in self.suites]}


def status_of(suites: list[SuiteConfig], config: RegistryConfig) -> StatusReport:
    report = StatusReport([])
    for one in suites:
        status = suite_status(one)
        _dry_run(config, one, status)
        report.suites.append(status)
    return report


def _dry_run(config: RegistryConfig, suite: SuiteConfig, status: SuiteStatus) -> None:
    """What ``freezer cut --dry-run v<next>`` says of the drafts now, or why it was not asked."""
    if status.drafts_version is None or status.problems:
        status.cut = "skipped: the drafts do not validate (freezer validate says why)"
        return
    if status.drafts_version != status.next_version:
        status.cut = (
            f"skipped: the drafts say v{status.drafts_version}, and the next free version is v{status.next_version}"
        )
        return
    try:
        result = cut(config, suite, f"v{status.next_version}", dry_run=True)
    except InvalidInput as exc:
        status.cut, status.cut_problems = f"fails: {exc.message}", list(exc.problems)
        if exc.hint:
            status.cut += f" ({exc.hint})"
        return
    except FreezerError as exc:
        status.cut = f"fails: {exc.message}" + (f" ({exc.hint})" if exc.hint else "")
        return
    status.cut, status.cut_warnings = "passes", list(result.warnings)


def suite_status(suite: SuiteConfig) -> SuiteStatus:
    report = validate_suite(suite)
    version_doc = next((s.version for s in report.sets if s.version is not None), None)
    fixtures = {d.data["task_id"]: d.data for s in report.sets for d in s.fixtures}
    owner = Suite.of(suite)
    status = SuiteStatus(
        suite.name,
        owner.next_number(),
        version_doc.data["version"] if version_doc is not None else None,
        len(report.problems),
    )
    if version_doc is not None:
        status.declared = len(version_doc.data.get("tool_surface_commits") or ())
    latest = owner.latest()
    if latest is None:
        status.fixtures = {"added": sorted(fixtures), "removed": [], "changed": []}
        return status
    status.latest = latest.name
    try:
        manifest = latest.manifest_model()
        old_version, old_fixtures = load_frozen_drafts(latest, manifest)
    except (FreezerError, KeyError, TypeError, ValueError, OSError):
        status.code = f"{latest.name} cannot be read (run freezer audit)"
        return status
    compared = fixture_delta({f["task_id"]: f for f in old_fixtures}, fixtures)
    status.fixtures = {
        "added": [f.task_id for f in compared.added],
        "removed": [f.task_id for f in compared.removed],
        "changed": [f.task_id for f in compared.changed],
    }
    if version_doc is not None and manifest.pinned is not None and "pinned_sha" in version_doc.data:
        status.pinned_sha = {"before": manifest.pinned.full, "after": str(version_doc.data["pinned_sha"])}
    if version_doc is not None:
        status.record = [
            str(c["path"]) for c in field_changes(version_record(old_version), version_record(version_doc.data))
        ]
    _scan(suite, manifest, version_doc.data if version_doc is not None else None, status)
    return status


def _scan(suite: SuiteConfig, manifest: Any, draft: JsonObject | None, status: SuiteStatus) -> None:
    """Tool-surface commits since the latest version's scan, up to the code repository's HEAD."""
    if suite.code_repo is None or not manifest.code_under_test:
        status.code = "no code under test"
        return
    try:
        with CodeRepo(suite.code_repo, suite.origin("code_repo")) as repo:
            declared = set()
            listed = draft.get("tool_surface_commits") if draft else None
            for commit in listed if isinstance(listed, list) else []:
                sha = commit.get("sha") if isinstance(commit, dict) else None
                if sha is None:
                    continue  # the draft's own problems say so
                try:
                    declared.add(repo.resolve_object(str(sha)))
                except FreezerError:
                    continue
            head = repo.resolve("HEAD")
            # The scan a cut would run if the binary were built at HEAD.
            # Through links and gitlinks too, as the cut's scan goes (scan rules 2).
            scan = follow_content(repo, scan_plan(head, head, [], manifest, suite.tool_surface))
            for commit in undeclared(repo, scan, declared):
                status.undeclared.append(TouchingCommit(commit.sha, commit.subject, tuple(commit.paths)))
            status.code = f"scanned up to HEAD {head[:8]}"
    except FreezerError as exc:
        status.code = f"unreachable: {exc.message}"
