"""``freezer audit``: prove that frozen versions are still exactly what was cut.

Integrity needs nothing but the registry: manifest schema, every file's
sha256, no missing or stray entries, SHA256SUMS in agreement, the chain to
the previous version, and METHOD.md and delta.json reproduced byte for byte.
When the code repository is reachable, the pinned SHA, the ground truth and
Gate B are re-checked there; ``against`` reports which fixtures have gone
stale at a newer commit.
"""

from __future__ import annotations

from functools import partial

from freezer.domain.problems import display_path
from freezer.domain.progress import Progress, no_progress
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


def audit_suite(
    suite: SuiteConfig,
    names: list[str] | None = None,
    *,
    code: bool = True,
    against: str | None = None,
    progress: Progress = no_progress,
) -> list[VersionAudit]:
    """Audit versions; with the code checks, several versions are audited on every core."""
    owner = Suite.of(suite)
    versions = owner.versions()
    odd = owner.impostors()
    if names is not None:
        versions = [v for v in versions if v.name in names]
        odd = [v for v in odd if v.name in names]
    results = _impostor_results(odd)
    return results + _audit_versions(suite, versions, code, against, progress)


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


def _audit_versions(
    suite: SuiteConfig,
    versions: list[registry.FrozenVersion],
    code: bool,
    against: str | None,
    progress: Progress,
) -> list[VersionAudit]:
    workers = work.cores(len(versions)) if code else 1
    one = partial(audit_one, suite, code=code, against=against)
    return work.map_on_cores(one, versions, workers=workers, progress=progress)
