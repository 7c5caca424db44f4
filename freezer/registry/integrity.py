"""The integrity check of a frozen version: every file is the one its manifest lists, with the
hash it lists, and nothing else is there.

What ``freezer list`` and ``show`` need to trust what they print, what the Python API
and every other reader of a frozen version check first, and the first half of
``freezer audit``: the deeper proofs (the chain, the recomputed delta and
comparability, the re-rendered METHOD.md and provenance statement) are the
audit's (:mod:`freezer.guard.rederive`), passed in as ``deep``.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path

from freezer.domain.errors import FreezerError, IntegrityError
from freezer.domain.manifest import EXECUTABLE, REGULAR, Manifest
from freezer.domain.problems import display_path
from freezer.domain.steps import Step
from freezer.kinds.catalog import kind_of
from freezer.registry import registry
from freezer.registry.verdict import Failure, VersionAudit
from freezer.runtime import hashing
from freezer.runtime.limits import MAX_WHOLE_FILE_BYTES
from freezer.runtime.reading import read_whole
from freezer.schema import schemas

# The re-derivation of what a version claims, run while its files hash:
# (version, manifest, manifest bytes, data files read, every file by path, where to report).
DeepCheck = Callable[[registry.FrozenVersion, Manifest, bytes, dict[str, bytes], dict[str, str], VersionAudit], None]

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
    # A fixture file may be as large as a kind reads (a records file); validate read it under the same bound.
    return read_whole(path, MAX_WHOLE_FILE_BYTES)


def _needed(manifest: Manifest) -> set[str]:
    """The files an audit reads again (to re-render and re-check): version.yaml, the fixtures the
    manifest lists, the delta, the comparability record, the templates and the frozen schema."""
    derived = (
        registry.DELTA,
        registry.COMPARABILITY,
        registry.TEMPLATE_COPY,
        registry.DELTA_TEMPLATE_COPY,
        registry.FROZEN_SCHEMA,
    )
    # A kind whose fixtures depend on assets (an lm-eval task's template, a grader's imports) reads those too.
    assets = kind_of(manifest.fixture_kind).assets_read(manifest.asset_names())
    return {"version.yaml", *registry.frozen_fixture_files(manifest), *derived, *assets}


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
    frozen: registry.FrozenVersion, result: VersionAudit, deep: DeepCheck | None = None
) -> dict[str, bytes] | None:
    """Integrity checks; returns the frozen data files when the manifest could be read.

    Without ``deep`` it stops once every file matches its hash (what list and show need to trust what
    they print); the chain, the recomputed delta and the re-rendered METHOD.md are the audit's.
    """
    where = display_path(frozen.path)

    def fail(rel: str, message: str) -> None:
        result.failures.append(Failure(f"{where}/{rel}" if rel else where, message))

    files, odd = _walk(frozen.path)
    # The files hash in forked children from here on, while this process reads the manifest and
    # re-renders what the version claims; nothing below depends on the digests until they are collected.
    pending = hashing.PendingHashes({rel: path for rel, path in files.items() if rel != registry.SUMS})
    try:
        for rel, message in odd:
            fail(rel, message)
        if registry.MANIFEST not in files:
            fail(registry.MANIFEST, "missing: without its manifest the version cannot be verified")
            return None
        manifest_bytes = _read(files[registry.MANIFEST])
        try:
            loaded = json.loads(manifest_bytes)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            fail(registry.MANIFEST, f"not valid JSON: {exc}")
            return None
        except RecursionError:
            fail(registry.MANIFEST, "not a manifest: its JSON is nested too deeply")
            return None
        errors = schemas.schema_errors(schemas.MANIFEST, loaded)
        if errors:
            for path, message in errors[:10]:
                fail(registry.MANIFEST, f"{'.'.join(map(str, path)) or '$'}: {message}")
            return None
        # The boundary: from here on the manifest is read typed.
        manifest = Manifest.from_data(loaded)
        if (manifest.suite, manifest.number, manifest.name) != (frozen.suite, frozen.number, frozen.name):
            fail(registry.MANIFEST, f"describes {manifest.name}, but the directory is {frozen.name}")
        generated = (*GENERATED, registry.STATEMENT) if manifest.format >= 3 else GENERATED
        expected = set(manifest.files) | set(generated)
        for rel in sorted(expected - set(files)):
            fail(rel, "missing (listed in the manifest)" if rel in manifest.files else "missing")
        for rel in sorted(set(files) - expected):
            fail(rel, "stray file: not part of the frozen version")
        # Only the drafts, the delta and the template are needed again (to re-render and re-check);
        # other data files are verified by their hashes and are not held in memory.
        needed = _needed(manifest)
        data = {rel: _read(files[rel]) for rel in manifest.files if rel in files and rel in needed}
        rendered = VersionAudit(result.name, result.path)
        broke: Exception | None = None
        if deep is not None:
            try:
                deep(frozen, manifest, manifest_bytes, data, files, rendered)
            except Exception as exc:  # noqa: BLE001 - raised below only if every file matches its hash
                broke = exc
        digests, unreadable = pending.result()
        for rel, why in sorted(unreadable.items()):
            fail(rel, f"cannot be read: {why}")
        for rel, digest in sorted(manifest.files.items()):
            if rel in digests and digests[rel] != digest:
                fail(rel, f"content changed: sha256 {digests[rel]} != manifest {digest}")
        if registry.SUMS in files:
            _check_sums(_read(files[registry.SUMS]), manifest, expected, digests, fail)
        _check_modes(manifest, files, fail)
        result.checks.append(Step("hashes", f"{len(manifest.files)} data files hashed"))
        if result.failures:
            return None  # what was re-rendered from files that changed says nothing more
        if broke is not None:
            raise broke
        result.failures += rendered.failures
        result.checks += rendered.checks
        result.warnings += rendered.warnings
        result.hidden_delta = rendered.hidden_delta
        return data
    finally:
        pending.cancel()


def _check_sums(
    raw: bytes, manifest: Manifest, expected: set[str], digests: dict[str, str], fail: Callable[[str, str], None]
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
        elif rel in manifest.files and sums[rel] != manifest.files[rel]:
            fail(registry.SUMS, f"disagrees with the manifest about {rel}")
        elif rel in digests and sums[rel] != digests[rel]:
            fail(rel, "content does not match SHA256SUMS")


def _check_modes(manifest: Manifest, files: dict[str, str], fail: Callable[[str, str], None]) -> None:
    """Each frozen file is executable exactly when the manifest records it 100755 (git's model: the
    owner's execute bit). A manifest without modes froze every file 100644, so none may be executable."""
    for rel in sorted(set(manifest.modes) - set(manifest.files)):
        fail(registry.MANIFEST, f"modes lists {rel}, which is not a data file of the version")
    for rel, path in sorted(files.items()):  # the generated files too: a cut never makes one executable
        executable = bool(os.lstat(path).st_mode & stat.S_IXUSR)
        recorded = manifest.mode(rel)
        if executable != (recorded == EXECUTABLE):
            found = f"{EXECUTABLE} (executable)" if executable else f"{REGULAR} (not executable)"
            fail(rel, f"mode changed: the file is {found}, the manifest records {recorded}")


def integrity(
    frozen: registry.FrozenVersion, deep: DeepCheck | None = None
) -> tuple[VersionAudit, dict[str, bytes] | None]:
    """The integrity audit of one version, and the data files it read (None if unusable)."""
    result = VersionAudit(frozen.name, frozen.path)
    try:
        data = check_integrity(frozen, result, deep)
    except FreezerError as exc:
        result.failures.append(Failure(display_path(frozen.path), exc.message))
        data = None
    except OSError as exc:
        where = display_path(Path(exc.filename)) if exc.filename else display_path(frozen.path)
        result.failures.append(Failure(where, f"cannot be read: {exc.strerror or exc}"))
        data = None
    return result, data


def require_intact(frozen: registry.FrozenVersion, result: VersionAudit) -> None:
    """Refuse a version whose integrity check failed, naming the first failures."""
    if result.failures:
        listed = "; ".join(str(f) for f in result.failures[:5])
        raise IntegrityError(
            f"{frozen.name} failed its integrity check: {listed}", hint="run freezer audit for the full report"
        )
