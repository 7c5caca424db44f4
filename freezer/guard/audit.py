"""``freezer audit``: prove that frozen versions are still exactly what was cut.

Integrity needs nothing but the registry: manifest schema, every file's
sha256, no missing or stray entries, SHA256SUMS in agreement, the chain to
the previous version, and METHOD.md and delta.json reproduced byte for byte.
When the code repository is reachable, the pinned SHA, the ground truth and
Gate B are re-checked there; ``against`` reports which fixtures have gone
stale at a newer commit.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from freezer.domain.errors import FreezerError
from freezer.domain.problems import display_path
from freezer.domain.steps import Progress, Step, no_progress
from freezer.guard import rederive
from freezer.guard.verdict import Failure, VersionAudit
from freezer.registry import registry
from freezer.registry.config import SuiteConfig
from freezer.render.attest import STATEMENT
from freezer.render.method import FROZEN_SCHEMA, frozen_fixture_files
from freezer.runtime import work
from freezer.runtime.reading import read_whole
from freezer.schema import schemas

GENERATED = (registry.MANIFEST, registry.METHOD, registry.SUMS)


def _walk(root: Path) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Regular files by relative path, and everything else found: links, empty folders, specials.

    One ``scandir`` per folder and no ``stat`` (the directory entry's type is enough): a version can
    hold many thousands of files, and each ``stat`` or ``Path`` costs as much as hashing 5 KB.
    """
    files: dict[str, str] = {}
    odd: list[tuple[str, str]] = []
    stack = [("", str(root))]
    while stack:
        prefix, folder = stack.pop()
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=lambda e: e.name)
        if prefix and not entries:
            odd.append((prefix.rstrip("/"), "stray empty directory"))
        for entry in entries:
            rel = prefix + entry.name
            if entry.is_symlink():
                pointed_dir = entry.is_dir()
                odd.append((rel, "is a symbolic link" if pointed_dir else "is a symbolic link, not a frozen file"))
            elif entry.is_dir(follow_symlinks=False):
                stack.append((rel + "/", entry.path))
            elif entry.is_file(follow_symlinks=False):
                files[rel] = entry.path
            else:
                odd.append((rel, "is not a regular file"))
    return files, odd


def _read(path: str) -> bytes:
    return read_whole(path)


def _needed(manifest: dict[str, Any]) -> set[str]:
    """The files an audit reads again (to re-render and re-check): version.yaml, the fixtures the
    manifest lists, the delta, the comparability record, the template and the frozen schema."""
    derived = (registry.DELTA, registry.COMPARABILITY, registry.TEMPLATE_COPY, FROZEN_SCHEMA)
    return {"version.yaml", *frozen_fixture_files(manifest), *derived}


def _parse_sums(data: bytes) -> dict[str, str] | None:
    sums: dict[str, str] = {}
    try:
        text = data.decode("utf-8")
        # Lines end at LF only, as sha256sum reads them: str.splitlines would also split at U+2028.
        for line in text.removesuffix("\n").split("\n") if text else []:
            digest, sep, rel = line.partition("  ")
            if not sep or len(digest) != 64:
                return None
            sums[rel] = digest
    except UnicodeDecodeError:
        return None
    return sums


def check_integrity(
    suite: SuiteConfig, frozen: registry.FrozenVersion, result: VersionAudit, *, deep: bool = True
) -> dict[str, bytes] | None:
    """Integrity checks; returns the frozen data files when the manifest could be read.

    ``deep=False`` stops once every file matches its hash (what list and show need to trust what
    they print); the chain, the recomputed delta and the re-rendered METHOD.md are the audit's.
    """
    where = display_path(frozen.path)

    def fail(rel: str, message: str) -> None:
        result.failures.append(Failure(f"{where}/{rel}" if rel else where, message))

    files, odd = _walk(frozen.path)
    # The files hash in forked children from here on, while this process reads the manifest and
    # re-renders what the version claims; nothing below depends on the digests until they are collected.
    pending = work.start_hashing({rel: path for rel, path in files.items() if rel != registry.SUMS})
    try:
        for rel, message in odd:
            fail(rel, message)
        if registry.MANIFEST not in files:
            fail(registry.MANIFEST, "missing: without its manifest the version cannot be verified")
            return None
        manifest_bytes = _read(files[registry.MANIFEST])
        try:
            manifest = json.loads(manifest_bytes)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            fail(registry.MANIFEST, f"not valid JSON: {exc}")
            return None
        except RecursionError:
            fail(registry.MANIFEST, "not a manifest: its JSON is nested too deeply")
            return None
        errors = schemas.schema_errors(schemas.MANIFEST, manifest)
        if errors:
            for path, message in errors[:10]:
                fail(registry.MANIFEST, f"{'.'.join(map(str, path)) or '$'}: {message}")
            return None
        if (manifest["suite"], manifest["version"], manifest["name"]) != (suite.name, frozen.number, frozen.name):
            fail(registry.MANIFEST, f"describes {manifest['name']}, but the directory is {frozen.name}")
        generated = (*GENERATED, STATEMENT) if manifest["manifest_format"] >= 3 else GENERATED
        expected = set(manifest["files"]) | set(generated)
        for rel in sorted(expected - set(files)):
            fail(rel, "missing (listed in the manifest)" if rel in manifest["files"] else "missing")
        for rel in sorted(set(files) - expected):
            fail(rel, "stray file: not part of the frozen version")
        # Only the drafts, the delta and the template are needed again (to re-render and re-check);
        # other data files are verified by their hashes and are not held in memory.
        needed = _needed(manifest)
        data = {rel: _read(files[rel]) for rel in manifest["files"] if rel in files and rel in needed}
        rendered = VersionAudit(result.name, result.path)
        broke: Exception | None = None
        if deep:
            try:
                rederive.check_rendered(suite, frozen, manifest, manifest_bytes, data, files, rendered)
            except Exception as exc:  # noqa: BLE001 - raised below only if every file matches its hash
                broke = exc
        digests, unreadable = pending.result()
        for rel, why in sorted(unreadable.items()):
            fail(rel, f"cannot be read: {why}")
        for rel, digest in sorted(manifest["files"].items()):
            if rel in digests and digests[rel] != digest:
                fail(rel, f"content changed: sha256 {digests[rel]} != manifest {digest}")
        if registry.SUMS in files:
            _check_sums(_read(files[registry.SUMS]), manifest, expected, digests, fail)
        result.checks.append(Step("hashes", f"{len(manifest['files'])} data files hashed"))
        if result.failures:
            return None  # what was re-rendered from files that changed says nothing more
        if broke is not None:
            raise broke
        result.failures += rendered.failures
        result.checks += rendered.checks
        return data
    finally:
        pending.cancel()


def _check_sums(
    raw: bytes, manifest: dict[str, Any], expected: set[str], digests: dict[str, str], fail: Callable[[str, str], None]
) -> None:
    sums = _parse_sums(raw)
    if sums is None:
        fail(registry.SUMS, "not in sha256sum format")
        return
    for rel in sorted(set(sums) | (expected - {registry.SUMS})):
        if rel not in sums:
            fail(registry.SUMS, f"does not list {rel}")
        elif rel not in expected:
            fail(registry.SUMS, f"lists {rel}, which is not part of the version")
        elif rel in manifest["files"] and sums[rel] != manifest["files"][rel]:
            fail(registry.SUMS, f"disagrees with the manifest about {rel}")
        elif rel in digests and sums[rel] != digests[rel]:
            fail(rel, "content does not match SHA256SUMS")


def integrity(
    suite: SuiteConfig, frozen: registry.FrozenVersion, *, deep: bool = True
) -> tuple[VersionAudit, dict[str, bytes] | None]:
    """The integrity audit of one version, and the data files it read (None if unusable)."""
    result = VersionAudit(frozen.name, frozen.path)
    try:
        data = check_integrity(suite, frozen, result, deep=deep)
    except FreezerError as exc:
        result.failures.append(Failure(display_path(frozen.path), exc.message))
        data = None
    except OSError as exc:
        where = display_path(Path(exc.filename)) if exc.filename else display_path(frozen.path)
        result.failures.append(Failure(where, f"cannot be read: {exc.strerror or exc}"))
        data = None
    return result, data


def audit_one(suite: SuiteConfig, frozen: registry.FrozenVersion, code: bool, against: str | None) -> VersionAudit:
    result, data = integrity(suite, frozen)
    if code and data is not None and not result.failures:
        from freezer.guard.reverify import check_code

        check_code(suite, frozen, data, result, against)
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
    versions = registry.frozen_versions(suite)
    odd = registry.impostors(suite)
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
    one = functools.partial(audit_one, suite, code=code, against=against)
    return work.map_on_cores(one, versions, workers=workers, progress=progress)
