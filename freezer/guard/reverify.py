"""Re-verifying a frozen version against its code repository, from what its manifest recorded.

What was frozen rules the past: the pinned SHA, the ground truth and Gate B
are checked at the recorded pinned SHA; the tool-surface scan is re-run over
the recorded range with the recorded globs (and the previous version's, so a
version cut under narrowed globs is caught); the recorded code history is
recounted. The current freezer.yaml only says where the repository is.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from freezer.domain.errors import FreezerError, GitError, UsageError
from freezer.domain.manifest import FixtureKindRecord, Manifest, Scan
from freezer.domain.problems import display_path
from freezer.domain.steps import Step
from freezer.git.gitrepo import CodeRepo
from freezer.kinds.catalog import read_frozen
from freezer.registry import registry
from freezer.registry.config import SuiteConfig
from freezer.registry.model import Suite, scan_globs
from freezer.registry.registry import frozen_fixture_files
from freezer.registry.verdict import FAILED, NO_CODE, Failure, VersionAudit, unreachable, verified_at
from freezer.resolve.grep import ENGINE, locate
from freezer.resolve.groundtruth import check_fixtures
from freezer.resolve.provenance import follow_content, undeclared


def _fixture_docs(
    frozen: registry.FrozenVersion,
    data: dict[str, bytes],
    fixtures: list[str],
    result: VersionAudit,
    kind: FixtureKindRecord,
) -> list[Any]:
    """The landed fixtures, read as their kind reads them (the integrity check already read them whole)."""
    folder = display_path(frozen.path)
    found = read_frozen(kind, dict(sorted(data.items())), set(fixtures), lambda rel: f"{folder}/{rel}")
    # A fixture that cannot be read has ground truth nobody re-checks: that is a failure.
    for problem in found.problems:
        result.code_failures.append(
            Failure(problem.file, f"the frozen fixture cannot be re-checked: {problem.message}")
        )
    return [fixture.document for fixture in found.fixtures if fixture.status == "landed"]


def _previous_manifest(suite: SuiteConfig, frozen: registry.FrozenVersion, manifest: Manifest) -> Manifest | None:
    try:
        previous = Suite.of(suite).predecessor(frozen, manifest.previous)
        return previous.manifest_model() if previous is not None else None
    except (FreezerError, OSError, KeyError, TypeError):
        return None  # the chain check (or the previous version's own audit) reports why


def _rescan_content(repo: CodeRepo, manifest: Manifest, where: str, result: VersionAudit) -> Scan:
    """Scan rules 2, re-derived from the recorded tips and globs as the cut derived them: what the
    surface's links and submodules lead to, the rollback, and what cannot be seen. Each part must be
    what the manifest recorded; what is unknown is said in the audit, not only at cut time."""
    recorded = manifest.scan
    assert recorded is not None
    base = Scan(recorded.excluded, recorded.tips, recorded.globs, recorded.build_sha_known)
    fresh = follow_content(repo, base)
    moves = {(s.path, s.before, s.after) for s in recorded.submodules}
    for label, before, after in (
        ("followed links and gitlinks", set(recorded.followed), set(fresh.followed)),
        ("submodule moves", moves, {(s.path, s.before, s.after) for s in fresh.submodules}),
        ("rolled-back commits", set(recorded.rolled_back), set(fresh.rolled_back)),
        ("unknown parts", set(recorded.unknown), set(fresh.unknown)),
    ):
        if before != after:
            result.code_failures.append(
                Failure(
                    where,
                    f"the tool-surface scan's {label} differ from what the manifest recorded: "
                    f"recorded {len(before)}, found {len(after)} at the recorded tips",
                )
            )
    # A submodule's history depends on what this clone holds: read where it can be, it must agree.
    now = {s.path: s for s in fresh.submodules}
    for sub in recorded.submodules:
        again = now.get(sub.path)
        if again is None or again.unreadable is not None:
            continue
        if sub.unreadable is None and set(sub.commits) != set(again.commits):
            result.code_failures.append(
                Failure(where, f"the submodule {sub.path}'s commits differ from what the manifest recorded")
            )
        elif sub.unreadable is not None:
            result.checks.append(
                Step("scan", f"submodule {sub.path} is readable here: {len(again.commits)} commit(s) in the move")
            )
    for part in recorded.unseen:
        result.checks.append(Step("scan", f"tool surface unknown at {part.path}: {part.why}"))
    for back in recorded.rolled_back:
        result.checks.append(Step("scan", f'tool-surface commit {back.sha[:12]} "{back.subject}" rolled back'))
    return fresh


def check_provenance(
    repo: CodeRepo, suite: SuiteConfig, frozen: registry.FrozenVersion, manifest: Manifest, result: VersionAudit
) -> None:
    where = f"{display_path(frozen.path)}/{registry.MANIFEST}"
    declared = {c.sha for c in manifest.commits}
    for sha in sorted({*declared, *(manifest.scan.tips if manifest.scan else ())}):
        try:
            repo.resolve_object(sha, "recorded commit")
        except GitError as exc:
            result.code_failures.append(Failure(where, exc.message))
            return
    if manifest.scan is None:
        return  # a format-1 first version: nothing was scanned
    scan = manifest.scan
    if scan.rules >= 2:  # rules 1 (every version cut before) is re-run as it was cut
        scan = _rescan_content(repo, manifest, where, result)
    if not scan.excluded:
        return  # a suite's first version: no earlier build to scan from
    previous = _previous_manifest(suite, frozen, manifest)
    globs = scan_globs(previous, manifest.scan.globs, manifest.globs)
    scan = replace(scan, globs=globs)
    missing = undeclared(repo, scan, declared)
    for commit in missing:
        result.code_failures.append(
            Failure(
                where,
                f'undeclared tool-surface commit {commit.sha[:12]} "{commit.subject}" in the recorded range '
                f"touches {', '.join(commit.paths[:10])}: {frozen.name}'s tool-surface record is incomplete",
            )
        )
    if set(globs) != set(manifest.scan.globs) and not missing:
        result.checks.append(Step("scan", "tool-surface scan re-run with the previous version's globs too"))
    history = manifest.code_history
    if history is not None:
        counts = (repo.count(history.from_sha, history.to_sha), repo.count(history.to_sha, history.from_sha))
        if counts != (history.ahead, history.behind):
            result.code_failures.append(
                Failure(
                    where,
                    f"code_history records {history.ahead} ahead / {history.behind} behind, git counts "
                    f"{counts[0]} / {counts[1]}",
                )
            )


def check_code(
    suite: SuiteConfig,
    frozen: registry.FrozenVersion,
    data: dict[str, bytes],
    result: VersionAudit,
    against: str | None,
) -> None:
    manifest = frozen.manifest_model()
    if manifest.code_repo is None:
        result.code = NO_CODE  # nothing of code was recorded, so there is nothing to re-check
        return
    if suite.code_repo is None:
        result.code = unreachable("the suite names no code_repo now, and this version has code under test")
        return
    code_path = suite.code_repo
    try:
        repo = CodeRepo(code_path, suite.origin("code_repo"))
    except GitError as exc:
        result.code = unreachable(exc.message)
        return
    with repo:
        roots = set(manifest.code_repo.root_commits)
        try:
            cut = repo.shallow_boundary
            if cut:
                result.code = unreachable(
                    f"the configured code repository is a shallow clone (its history is cut at "
                    f"{cut[0][:12]}), so it cannot be told to be the same repository nor its history read; "
                    "fetch its whole history (git fetch --unshallow)"
                )
                return
            here = set(repo.identity["root_commits"])
        except GitError as exc:
            result.code = unreachable(exc.message)
            return
        if roots and not roots & here:
            result.code = unreachable("the configured code repository is a different repository (root commits differ)")
            return
        pinned = manifest.pinned_sha
        try:
            repo.resolve_object(pinned, "pinned SHA")
        except GitError as exc:
            result.code_failures.append(Failure(display_path(code_path), exc.message))
            result.code = FAILED
            return
        result.pin_reach = repo.reachable_from(pinned)
        result.checks.append(
            Step("pin", f"pinned commit {pinned[:8]} reachable from {result.pin_reach}")
            if result.pin_reach
            else Step("pin", f"pinned commit {pinned[:8]} is on no branch: only this machine's object store holds it")
        )
        docs = _fixture_docs(frozen, data, frozen_fixture_files(manifest), result, manifest.fixture_kind)
        rg = locate()
        recorded = str(manifest.checks.grep)
        if recorded != f"{ENGINE} {rg.version}":
            result.checks.append(Step("gate_b", f"Gate B re-run by {rg.label}; {frozen.name} was cut with {recorded}"))
        for problems in check_fixtures(repo, pinned, docs, rg=rg).values():
            for problem in problems:
                result.code_failures.append(Failure(problem.location(), f"{problem.path_text()}: {problem.message}"))
        check_provenance(repo, suite, frozen, manifest, result)
        result.code = verified_at(pinned) if not result.code_failures else FAILED
        if against:
            try:
                ref_sha = repo.resolve(against, "--against ref")
            except GitError as exc:
                # A ref that names no commit was typed wrong, not found invalid: a usage error (exit 2).
                raise UsageError(exc.message, hint=exc.hint) from None
            result.against = ref_sha
            by_file = check_fixtures(repo, ref_sha, docs, oracle=True, rg=rg)
            for doc in docs:
                found = by_file.get(doc.display)
                if found:
                    result.stale[doc.data["task_id"]] = [f"{p.path_text()}: {p.message}" for p in found]
