"""Checking the declared binary provenance and tool-surface commits against git.

The seed's v2-vs-v1 comparison was confounded because four dimensions moved
at once. This module makes leaving one out impossible: every commit that
touched the configured tool-surface paths between the previous version's
build and this one must be declared in ``version.yaml``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from freezer.document import YamlDocument
from freezer.errors import GitError
from freezer.gitrepo import CodeRepo
from freezer.problems import Problem


@dataclass
class ResolvedProvenance:
    """What the cut records: full SHAs for everything the draft names."""

    pinned_sha: str
    build_sha: str | None
    commits: list[dict[str, Any]] = field(default_factory=list)
    scanned_from: str | None = None
    scanned_to: str | None = None
    repo_identity: dict[str, Any] = field(default_factory=dict)

    @property
    def upper(self) -> str:
        return self.build_sha or self.pinned_sha


def resolve_sha(repo: CodeRepo, doc: YamlDocument, path: tuple[str | int, ...], problems: list[Problem]) -> str | None:
    value = doc.data
    for part in path:
        value = value[part]
    try:
        return repo.resolve(str(value), "commit")
    except GitError as exc:
        problems.append(doc.problem(path, exc.message + (f" ({exc.hint})" if exc.hint else ""), "git"))
        return None


def check_provenance(
    repo: CodeRepo,
    doc: YamlDocument,
    pinned_sha: str,
    previous_upper: str | None,
    previous_name: str | None,
    globs: tuple[str, ...],
) -> tuple[ResolvedProvenance | None, list[Problem]]:
    """Resolve and check every declared commit; find undeclared tool-surface commits."""
    problems: list[Problem] = []
    data = doc.data
    build_sha = None
    if data["binary"].get("build_sha"):
        build_sha = resolve_sha(repo, doc, ("binary", "build_sha"), problems)
    declared: list[dict[str, Any]] = []
    for index, commit in enumerate(data["tool_surface_commits"]):
        full = resolve_sha(repo, doc, ("tool_surface_commits", index, "sha"), problems)
        if full is None:
            continue
        subject = repo.subject(full)
        declared.append({**commit, "sha": full, "declared_as": commit["sha"], "subject": str(subject)})
        if build_sha and not repo.is_ancestor(full, build_sha):
            problems.append(
                doc.problem(
                    ("tool_surface_commits", index, "sha"),
                    f"commit {commit['sha']} is not an ancestor of the binary's build SHA {build_sha[:8]}: "
                    "the binary cannot contain it",
                    "git",
                )
            )
        if previous_upper and repo.is_ancestor(full, previous_upper):
            problems.append(
                doc.problem(
                    ("tool_surface_commits", index, "sha"),
                    f"commit {commit['sha']} was already in {previous_name}'s build ({previous_upper[:8]}); "
                    "declare only what changed since then",
                    "git",
                )
            )
    if problems:
        return None, problems
    resolved = ResolvedProvenance(pinned_sha, build_sha, declared)
    if previous_upper is not None:
        resolved.scanned_from, resolved.scanned_to = previous_upper, resolved.upper
        known = {c["sha"] for c in declared}
        for commit in repo.commits_touching(previous_upper, resolved.upper, globs):
            if commit.sha in known:
                continue
            touched = ", ".join(commit.paths[:10]) + (" ..." if len(commit.paths) > 10 else "")
            problems.append(
                doc.problem(
                    ("tool_surface_commits",),
                    f'undeclared tool-surface commit {commit.sha[:12]} "{commit.subject}" touches {touched}; '
                    f"declare it (sha, task, dimension, effect) or the {previous_name} → this delta is incomplete",
                    "provenance",
                )
            )
    return (None if problems else resolved), problems
