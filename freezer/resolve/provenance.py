"""Checking the declared binary provenance and tool-surface commits against git.

The seed's v2-vs-v1 comparison was confounded because four dimensions moved
at once. This module makes leaving one out impossible: every commit that
touched the tool surface since the previous version's scan must be declared
in ``version.yaml``, and every declared commit must touch it.

The scan of a version starts at its *tips* (the binary's build SHA; when that
is unknown, the pinned SHA and every declared commit) and stops at the
previous version's tips. Its globs are the previous version's scan globs plus
the configured ones, so narrowing ``tool_surface`` in freezer.yaml can never
hide a commit. All of it is recorded in the manifest, and audit re-runs it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from freezer.domain.errors import GitError
from freezer.domain.manifest import CodeHistory, Manifest, Scan, SubmoduleScan, TouchingCommit
from freezer.domain.manifestparts import CodeRepoIdentity
from freezer.domain.model import SurfaceCommit, VersionDraft
from freezer.domain.problems import Problem
from freezer.domain.scan import SCAN_RULES
from freezer.git.gitrepo import CodeRepo
from freezer.parse.document import YamlDocument
from freezer.registry.model import scan_globs
from freezer.resolve.surface import Surface, follow, submodule_history


@dataclass
class ResolvedProvenance:
    """What the cut records: full SHAs for everything the draft names, and the scan that ran."""

    pinned_sha: str
    build_sha: str | None
    commits: list[SurfaceCommit]
    scan: Scan
    code_history: CodeHistory | None = None
    repo_identity: CodeRepoIdentity | None = None  # None until the code repository is read
    grep: dict[str, str] = field(default_factory=dict)  # the Gate B oracle: engine and version


def resolve_sha(repo: CodeRepo, doc: YamlDocument, path: tuple[str | int, ...], problems: list[Problem]) -> str | None:
    value = doc.data
    for part in path:
        value = value[part]
    try:
        return repo.resolve_object(str(value), "commit")
    except GitError as exc:
        problems.append(doc.problem(path, exc.message + (f" ({exc.hint})" if exc.hint else ""), "git"))
        return None


def scan_plan(
    pinned: str, build_sha: str | None, declared: list[str], previous: Manifest | None, configured: tuple[str, ...]
) -> Scan:
    tips = (build_sha,) if build_sha else tuple(dict.fromkeys((pinned, *declared)))
    excluded = previous.scan_tips if previous else ()
    globs = scan_globs(previous, configured)
    return Scan(excluded, tips, globs, build_sha is not None)


def undeclared(repo: CodeRepo, scan: Scan, declared: set[str]) -> list[Any]:
    """Commits in the scan's range that touch its globs (or what its links and gitlinks lead to)
    and are not declared."""
    if not scan.excluded:
        return []  # a suite's first version: no earlier build to scan from
    found = repo.commits_touching(scan.excluded, scan.tips, scan.globs, literal=scan.literal)
    return [c for c in found if c.sha not in declared]


def _gitlink(repo: CodeRepo, sha: str, path: str) -> str | None:
    for _, kind, oid, where in repo.entries(sha):
        if where == path and kind == "commit":
            return oid
    return None


def follow_content(repo: CodeRepo, scan: Scan) -> Scan:
    """The scan under rules 2: what the surface's links and gitlinks lead to at both ends, the
    submodules whose gitlink moved (their history read where present), and the commits of the
    previous build that this one does not have (a rollback). Audit re-derives it the same way."""
    surface: Surface = follow(repo, [*scan.tips, *scan.excluded], scan.globs)
    submodules: list[SubmoduleScan] = []
    if scan.excluded:
        for path in sorted(surface.gitlinks):
            after = _gitlink(repo, scan.tips[0], path)
            before = next((b for b in (_gitlink(repo, e, path) for e in scan.excluded) if b is not None), None)
            if before != after:
                submodules.append(submodule_history(repo, path, before, after))
    rolled_back: tuple[TouchingCommit, ...] = ()
    if scan.excluded:
        back = repo.commits_touching(scan.tips, scan.excluded, scan.globs, literal=tuple(surface.literal))
        rolled_back = tuple(TouchingCommit(c.sha, c.subject, tuple(c.paths)) for c in back)
    return replace(
        scan,
        rules=SCAN_RULES,
        followed=tuple(surface.followed),
        submodules=tuple(submodules),
        rolled_back=rolled_back,
        unknown=tuple(surface.unknown),
    )


def _touched(commit: Any) -> str:
    return ", ".join(commit.paths[:10]) + (" ..." if len(commit.paths) > 10 else "")


def check_provenance(
    repo: CodeRepo,
    doc: YamlDocument,
    pinned_sha: str,
    previous: Manifest | None,
    configured: tuple[str, ...],
) -> tuple[ResolvedProvenance | None, list[Problem]]:
    """Resolve and check every declared commit; find undeclared tool-surface commits."""
    problems: list[Problem] = []
    draft = VersionDraft.from_data(doc.data)
    build_sha = None
    if draft.binary.build_sha:
        build_sha = resolve_sha(repo, doc, ("binary", "build_sha"), problems)
    declared: list[SurfaceCommit] = []
    where: dict[str, int] = {}
    for index, commit in enumerate(draft.commits):
        full = resolve_sha(repo, doc, ("tool_surface_commits", index, "sha"), problems)
        if full is None:
            continue
        where[full] = index
        declared.append(
            SurfaceCommit(full, commit.dimension, commit.effect, commit.task, commit.sha, str(repo.subject(full)))
        )
        if build_sha and not repo.is_ancestor(full, build_sha):
            problems.append(
                doc.problem(
                    ("tool_surface_commits", index, "sha"),
                    f"commit {commit.sha} is not an ancestor of the binary's build SHA {build_sha[:8]}: "
                    "the binary cannot contain it",
                    "git",
                )
            )
        if previous and any(repo.is_ancestor(full, tip) for tip in previous.scan_tips):
            problems.append(
                doc.problem(
                    ("tool_surface_commits", index, "sha"),
                    f"commit {commit.sha} was already in {previous.name}'s scanned history "
                    f"({', '.join(t[:8] for t in previous.scan_tips)}); declare only what changed since then",
                    "git",
                )
            )
    if problems:
        return None, problems
    scan = follow_content(repo, scan_plan(pinned_sha, build_sha, [c.sha for c in declared], previous, configured))
    shas = [c.sha for c in declared]
    touching = {c.sha for c in repo.commits_touching((), shas, scan.globs, walk=False, literal=scan.literal)}
    for commit in declared:
        if commit.sha not in touching:
            problems.append(
                doc.problem(
                    ("tool_surface_commits", where[commit.sha], "sha"),
                    f'commit {commit.declared_as} "{commit.subject}" touches none of the tool-surface globs '
                    f"({', '.join(scan.globs)}); widen tool_surface in freezer.yaml if it does change what the "
                    "tools show, or drop the declaration",
                    "provenance",
                )
            )
    for commit in undeclared(repo, scan, set(where)):
        problems.append(
            doc.problem(
                ("tool_surface_commits",),
                f'undeclared tool-surface commit {commit.sha[:12]} "{commit.subject}" touches {_touched(commit)}; '
                f"declare it (sha, task, dimension, effect) or the {previous.name if previous else ''} → this "
                "delta is incomplete",
                "provenance",
            )
        )
    if problems:
        return None, problems
    return ResolvedProvenance(pinned_sha, build_sha, declared, scan), problems


def code_history(repo: CodeRepo, before: str, after: str, watched: list[str]) -> CodeHistory:
    """The commits between two pinned SHAs, and those touching the ground-truth files."""
    touching = repo.commits_touching((before,), (after,), sorted(set(watched)), magic="literal") if watched else []
    return CodeHistory(
        before,
        after,
        repo.count(before, after),
        repo.count(after, before),
        tuple(TouchingCommit(c.sha, c.subject, tuple(c.paths)) for c in touching),
    )
