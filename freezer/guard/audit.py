"""``freezer audit``: prove that frozen versions are still exactly what was cut.

Integrity needs nothing but the registry: manifest schema, every file's
sha256, no missing or stray entries, SHA256SUMS in agreement, the chain to
the previous version, and METHOD.md and delta.json reproduced byte for byte.
When the code repository is reachable, the pinned SHA, the ground truth and
Gate B are re-checked there; ``against`` reports which fixtures have gone
stale at a newer commit.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from itertools import accumulate

from freezer.domain.problems import display_path
from freezer.domain.progress import PartProgress, no_part_progress
from freezer.guard import rederive
from freezer.registry import registry
from freezer.registry.config import SuiteConfig
from freezer.registry.integrity import integrity as shallow_integrity
from freezer.registry.model import Suite
from freezer.registry.verdict import NO_CODE, Failure, VersionAudit
from freezer.runtime import work


def integrity(suite: SuiteConfig, frozen: registry.FrozenVersion) -> tuple[VersionAudit, dict[str, bytes] | None]:
    """The integrity audit of one version (every hash, then the chain, the delta, the comparability
    record, METHOD.md and the statement re-derived), and the data files it read (None if unusable)."""
    return shallow_integrity(frozen, partial(rederive.check_rendered, suite))


def audit_one(suite: SuiteConfig, frozen: registry.FrozenVersion, code: bool, against: str | None) -> VersionAudit:
    result, data = integrity(suite, frozen)
    if code and data is not None and not result.failures:
        # start-up time: only audit --code loads the code checks (ripgrep, ground truth, provenance)
        from freezer.guard.reverify import check_code

        check_code(suite, frozen, data, result, against)
    elif data is not None and not result.failures and not frozen.manifest_model().code_under_test:
        result.code = NO_CODE  # a property of the version, not a check --no-code skipped
    return result


def audit_suites(
    selection: Sequence[tuple[SuiteConfig, list[str] | None]],
    *,
    code: bool = True,
    against: str | None = None,
    progress: PartProgress = no_part_progress,
) -> list[VersionAudit]:
    """Audit the versions of each suite of ``selection`` (a suite, and the names of its versions to
    audit or None for all), suite after suite: for each, the impostors in its versions folder, then
    its versions in order. With the code checks, every version of every suite goes to one pool of
    workers: a pool per suite cost more than it saved (the demo's seven versions in five suites:
    417-459 ms with a pool per suite, 397-462 ms serially, 293-340 ms on one pool).
    ``progress(index, done, total)`` counts within the suite at ``index``; (index, 0, total) comes
    as the work reaches that suite."""
    plans: list[tuple[list[VersionAudit], list[registry.FrozenVersion]]] = []
    for suite, names in selection:
        owner = Suite.of(suite)
        versions, odd = owner.versions(), owner.impostors()
        if names is not None:
            versions = [v for v in versions if v.name in names]
            odd = [v for v in odd if v.name in names]
        plans.append((_impostor_results(odd), versions))
    items = [
        (suite, version) for (suite, _), (_, versions) in zip(selection, plans, strict=True) for version in versions
    ]
    owners = [index for index, (_, versions) in enumerate(plans) for _ in versions]  # each item's suite
    sizes = [len(versions) for _, versions in plans]
    starts = list(accumulate(sizes, initial=0))  # each suite's first item

    def advance(done: int, _total: int) -> None:
        index = owners[done - 1]
        progress(index, done - starts[index], sizes[index])
        if done == starts[index + 1] and done < len(items):  # this suite is done: the next one starts
            progress(owners[done], 0, sizes[owners[done]])

    if items:
        progress(owners[0], 0, sizes[owners[0]])
    workers = work.cores(len(items)) if code else 1
    # Each item carries its own suite only: the function and each item are pickled for every task.
    audited = work.map_on_cores(
        partial(_audit_pair, code=code, against=against), items, workers=workers, progress=advance
    )
    results: list[VersionAudit] = []
    for index, (impostors, _) in enumerate(plans):
        results += impostors + audited[starts[index] : starts[index + 1]]
    return results


def _audit_pair(pair: tuple[SuiteConfig, registry.FrozenVersion], code: bool, against: str | None) -> VersionAudit:
    suite, frozen = pair
    return audit_one(suite, frozen, code, against)


def _impostor_results(odd: list[registry.FrozenVersion]) -> list[VersionAudit]:
    results = []
    for entry in odd:
        kind = "a symbolic link" if entry.path.is_symlink() else "not a folder"
        result = VersionAudit(entry.name, entry.path)
        result.failures.append(
            Failure(display_path(entry.path), f"is {kind}: a frozen version is a real folder; remove it or restore it")
        )
        results.append(result)
    return results
