"""The cut's checks against the code repository: pinned SHA, ground truth, Gate B, provenance.

Each check stops the cut with every problem it found; what passed is told as a
:class:`~freezer.domain.steps.Step`, and what is worth a look (an unpushed pin, an
unknown build) as a warning.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from freezer.domain.errors import InvalidInput
from freezer.domain.manifest import Manifest, Scan
from freezer.domain.manifestparts import CodeRepoIdentity
from freezer.domain.model import Fixture
from freezer.domain.problems import Problem
from freezer.domain.steps import Step, StepLog
from freezer.git.gitrepo import CodeRepo
from freezer.git.globs import compile_glob
from freezer.registry.config import RegistryConfig, SuiteConfig
from freezer.resolve.grep import PINNED_VERSION, locate
from freezer.resolve.groundtruth import check_gate_b_all, check_sites
from freezer.resolve.provenance import ResolvedProvenance, check_provenance, code_history, resolve_sha
from freezer.resolve.surface import above
from freezer.validate.fixtureset import FixtureSet


def shown_repo_path(config: RegistryConfig, suite: SuiteConfig) -> str:
    if suite.code_repo is None:
        return "(no code under test)"
    if suite.code_repo.is_relative_to(config.root):
        return suite.code_repo.relative_to(config.root).as_posix()
    return str(suite.code_repo)


def fail(step: str, problems: list[Problem]) -> InvalidInput:
    return InvalidInput(f"cut refused at step '{step}': {len(problems)} problem(s)", problems)


def _check_surface_globs(
    suite: SuiteConfig,
    previous: Manifest | None,
    scan: Scan,
    matches: Callable[[str, str], bool],
    warnings: list[str],
) -> Scan:
    """A glob of the scan that matched something at the previous version's tip and matches nothing
    at this one's (a file, or a link or submodule it follows) is refused, unless the suite says that
    part of the surface is gone: a folder that moved leaves its glob matching nothing, and every
    later commit to the folder's new place would pass undeclared while METHOD.md said the surface
    did not move. Returns the scan with the globs that are gone recorded."""
    sha = scan.tips[0]
    where = suite.origin("tool_surface")
    file, _, line = where.rpartition(":")
    allowed = {*suite.tool_surface_gone, *(previous.scan.gone if previous and previous.scan else ())}
    empty = [glob for glob in scan.globs if not matches(sha, glob)]
    before = previous.scan_tips[0] if previous else None
    # A rollback that takes the paths away is stated as a move (the rolled-back commits), not refused.
    rolled = [path for commit in scan.rolled_back for path in commit.paths]
    vanished = [
        glob
        for glob in empty
        if before is not None and matches(before, glob) and not any(compile_glob(glob).matches(p) for p in rolled)
    ]

    def problem(path: tuple[str | int, ...], message: str) -> Problem:
        return Problem(file or where, int(line) if line.isdigit() else None, None, path, message, "config")

    if len(empty) == len(scan.globs) and not allowed & set(empty):
        raise InvalidInput(
            "cut refused at step 'check provenance'",
            [
                problem(
                    ("suites", suite.name, "tool_surface"),
                    f"no tool_surface glob matches any file at {sha[:8]}; check their spelling "
                    "(an empty tool surface would let every commit through undeclared)",
                )
            ],
        )
    problems = []
    for glob in vanished:
        if glob in allowed:
            continue
        index = suite.tool_surface.index(glob) if glob in suite.tool_surface else None
        kept = "" if index is not None else f" (kept from {previous.name if previous else ''}'s scan)"
        problems.append(
            problem(
                ("suites", suite.name, "tool_surface", *((index,) if index is not None else ())),
                f"tool_surface glob {glob!r}{kept} matched files at {str(before)[:8]} "
                f"({previous.name if previous else ''}) and matches none at {sha[:8]}: if that part of the tool "
                "surface moved, add where it is now to tool_surface; if it is gone, list the glob under "
                "tool_surface_gone (until then the scan cannot see it, and METHOD.md would say it did not move)",
            )
        )
    if problems:
        raise InvalidInput("cut refused at step 'check provenance'", problems)
    for glob in empty:
        if glob not in allowed and glob not in vanished:
            warnings.append(f"tool_surface glob {glob!r} matches no file at {sha[:8]} ({where})")
    for glob in suite.tool_surface_gone:
        if glob not in empty:
            warnings.append(
                f"tool_surface_gone lists {glob!r}, which matches at {sha[:8]} or is not scanned "
                f"({suite.origin('tool_surface_gone')})"
            )
    return replace(scan, gone=tuple(glob for glob in empty if glob in allowed))


def _matcher(repo: CodeRepo, scan: Scan) -> Callable[[str, str], bool]:
    """Does a glob name anything at a commit: a file, or a link or gitlink the scan follows?"""
    followed = {f.path for f in scan.followed}

    def matches(sha: str, glob: str) -> bool:
        if repo.matching_paths(sha, glob):
            return True
        here = followed | {path for _, kind, _, path in repo.entries(sha) if kind == "commit"}
        compiled = compile_glob(glob)
        return any(compiled.matches(p) or above(p, glob) for p in here)

    return matches


def _code_changed(suite: SuiteConfig, previous: Manifest) -> Problem:
    """A suite cannot gain or lose its code under test between versions: the scan of a version with
    code starts from the previous build, and §Delta would compare a pin with nothing."""
    where, _, line = suite.origin("code_repo").rpartition(":")
    if previous.code_under_test:
        why = (
            f"{previous.name} was cut with code under test, and the suite now names no code_repo: a version "
            "without code under test cannot be compared with one that has it; start a suite of its own"
        )
    else:
        why = (
            f"{previous.name} was cut with no code under test, and the suite now names a code_repo: the "
            "tool-surface scan has no earlier build to start from; start a suite of its own"
        )
    number = int(line) if line.isdigit() else None
    return Problem(where or "freezer.yaml", number, None, ("suites", suite.name, "code_repo"), why, "config")


def check_against_code(
    config: RegistryConfig,
    suite: SuiteConfig,
    fixture_set: FixtureSet,
    previous: Manifest | None,
    steps: StepLog,
    warnings: list[str],
) -> ResolvedProvenance | None:
    """What the cut records of the code under test; None for a suite that has none (no code_repo):
    then no step runs (no pinned SHA, ground truth, Gate B, tool-surface scan nor code history)."""
    version = fixture_set.version
    assert version is not None
    if previous is not None and (suite.code_repo is None) == previous.code_under_test:
        raise fail("resolve pinned SHA", [_code_changed(suite, previous)])
    if suite.code_repo is None:
        steps.append(Step("code", "no code under test: no pinned SHA, ground truth, Gate B or tool-surface scan"))
        return None
    with CodeRepo(suite.code_repo, suite.origin("code_repo")) as repo:
        problems: list[Problem] = []
        pinned = resolve_sha(repo, version, ("pinned_sha",), problems)
        if pinned is None:
            raise fail("resolve pinned SHA", problems)
        if repo.shallow_boundary:
            # The manifest identifies the repository by its root commits, and the scan reads history
            # back to the previous version: a shallow clone shows neither truly.
            where, _, line = suite.origin("code_repo").rpartition(":")
            why = (
                f"code_repo {shown_repo_path(config, suite)} is a shallow clone (its history is cut at "
                f"{repo.shallow_boundary[0][:12]}): freezer cannot identify the repository by its root commits "
                "nor scan the history since the previous version; fetch its whole history (git fetch --unshallow)"
            )
            problem = Problem(
                where or "freezer.yaml",
                int(line) if line.isdigit() else None,
                None,
                ("suites", suite.name, "code_repo"),
                why,
                "git",
            )
            raise fail("resolve pinned SHA", [problem])
        steps.append(Step("pinned_sha", f"pinned SHA {version.data['pinned_sha']} resolves to {pinned}"))
        landed = [d for d in fixture_set.fixtures if d.data["status"] == "landed"]
        steps.now(f"verifying ground truth of {len(landed)} landed fixture(s)")
        for doc in landed:
            problems.extend(check_sites(repo, pinned, doc))
        if problems:
            raise fail("verify ground truth", problems)
        sites = sum(len(d.data.get("ground_truth") or []) + len(d.data.get("traps") or []) for d in landed)
        steps.append(
            Step(
                "ground_truth",
                f"ground truth verified at {pinned[:8]}: {sites} site(s) in {len(landed)} landed fixture(s)",
            )
        )
        rg = locate()
        steps.now("reproducing Gate B with ripgrep")
        if rg.explicit:
            warnings.append(f"Gate B runs {rg.label}, not the pinned ripgrep {PINNED_VERSION}; the manifest says so")
        problems.extend(check_gate_b_all(repo, pinned, landed, rg))
        if problems:
            raise fail("reproduce Gate B", problems)
        gated = sum(1 for d in landed if d.data.get("naive_grep") and d.data.get("gate_b"))
        steps.append(
            Step("gate_b", f"Gate B reproduced at {pinned[:8]} by {rg.label} for {gated} fixture(s)")
            if gated
            else Step("gate_b", "Gate B: no landed fixture carries a naive grep and a Gate B record")
        )
        steps.now("scanning the tool surface for undeclared commits")
        resolved, problems = check_provenance(repo, version, pinned, previous, suite.tool_surface)
        if resolved is None:
            raise fail("check provenance", problems)
        resolved.scan = _check_surface_globs(suite, previous, resolved.scan, _matcher(repo, resolved.scan), warnings)
        for unseen in resolved.scan.unseen:
            warnings.append(f"tool surface unknown: {unseen}; METHOD.md and the manifest say so")
        tips = ", ".join(t[:8] for t in resolved.scan.tips)
        if previous:
            steps.append(
                Step(
                    "provenance",
                    f"provenance: {len(resolved.commits)} declared tool-surface commit(s); none undeclared "
                    f"between {previous.name} and {tips}",
                )
            )
            watched = sorted({f for d in landed for f in Fixture.from_data(d.data).site_files()})
            resolved.code_history = code_history(repo, previous.pinned_sha, pinned, watched)
        else:
            steps.append(
                Step(
                    "provenance",
                    f"provenance: {len(resolved.commits)} declared commit(s); first version, "
                    "no earlier build to scan from",
                )
            )
        unpublished = repo.publication(pinned)
        if unpublished:
            warnings.append(
                f"the pinned SHA {pinned[:8]} may exist only on this machine ({unpublished}): push it, "
                "or an audit elsewhere cannot find it"
            )
        if not resolved.scan.build_sha_known:
            warnings.append(
                f"the binary's build SHA is unknown: the scan stopped at {tips}; METHOD.md says the tool-surface "
                "record may be incomplete"
            )
        resolved.repo_identity = CodeRepoIdentity.from_data(
            {**repo.identity, "configured_path": shown_repo_path(config, suite)}
        )
        resolved.grep = rg.describe()
    return resolved
