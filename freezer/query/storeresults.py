"""``freezer results add``: store an imported run in the registry, beside the version it scored.

The harness's files are imported as ``results import`` imports them (:mod:`freezer.query.harness`);
only a run that import accepts is stored, as :mod:`freezer.guard.storedresults` lays it out. Adding
is append-only: a stored file is never replaced. The same files added again (same sha256, same
options) find their file and write nothing; the same files with other options are refused. The
write takes the registry lock and is one rename, so a failed add leaves the registry as it was.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

from freezer.domain.errors import FreezerError, InvalidInput
from freezer.domain.problems import display_path
from freezer.guard.storedresults import SourceFile, StoredRow, StoredRun
from freezer.query.harness import Imported, harbor, import_files
from freezer.registry import registry
from freezer.registry.config import RegistryConfig
from freezer.runtime import writing
from freezer.runtime.hashing import digest_file
from freezer.runtime.limits import MAX_RESULTS_FILE_BYTES
from freezer.runtime.lock import lock_wait_seconds, registry_lock
from freezer.runtime.paths import require_safe
from freezer.runtime.reading import read_whole


@dataclass(frozen=True)
class RunLabels:
    """What the user says of a run that its files may not record."""

    model: str | None = None
    harness_version: str | None = None


@dataclass
class Added:
    """What ``results add`` did: the import, and where its run is stored (None when refused)."""

    imported: Imported
    stored: str | None = None  # the stored file, relative to the registry
    already: bool = False  # the same run was stored before: nothing written

    @property
    def ok(self) -> bool:
        return self.imported.ok

    def to_json(self) -> dict[str, object]:
        return {**self.imported.to_json(), "stored": self.stored, "already_stored": self.already}


def sources_of(harness: str, paths: list[Path]) -> tuple[SourceFile, ...]:
    """Each file the import reads, by the name the user gave it (a trial's below its job folder) and sha256."""
    out = []
    for path in paths:
        files = harbor.files_of(path)[0] if harness == "harbor" else [path]
        for file in files:
            name = path.name if file == path else f"{path.name}/{file.relative_to(path).as_posix()}"
            try:
                out.append(SourceFile(name, digest_file(str(file))))
            except OSError as exc:
                raise FreezerError(f"{display_path(file)}: cannot be read: {exc.strerror or exc}") from None
    return tuple(sorted(out, key=lambda s: (s.name, s.sha256)))


def add(
    config: RegistryConfig,
    harness: str,
    paths: list[Path],
    *,
    version: str,
    arm: str | None = None,
    metric: str | None = None,
    run: str | None = None,
    labels: RunLabels = RunLabels(),
) -> Added:
    """Import ``paths`` and store the run under ``results/<version>/``; :class:`InvalidInput` when
    another run is stored under the same sources, or the files changed while they were read."""
    imported = import_files(config, harness, paths, version=version, arm=arm, metric=metric, run=run)
    if not imported.ok:
        return Added(imported)
    sources = sources_of(harness, paths)
    rows = tuple(StoredRow(r.task_id, r.score, r.run, r.fixture_digest, r.harness_hash) for r in imported.rows)
    manifest = imported.rows[0].manifest_sha256
    release = labels.harness_version or imported.harness_version
    model = labels.model or imported.model
    stored = StoredRun(imported.version, manifest, imported.arm, harness, release, model, metric, sources, rows)
    data = stored.file_bytes()
    root = config.root
    target = root / stored.relative_path()
    with registry_lock(root, wait=lock_wait_seconds()):
        if sources_of(harness, paths) != sources:
            raise InvalidInput(
                f"{', '.join(display_path(p) for p in paths)}: changed while they were imported; nothing stored",
                hint="add them again once the harness has finished writing",
            )
        # Before anything is read: a results/ or results/<version>/ that is a link would have the
        # file found below it (stored outside the registry) count as stored already.
        for folder in (root / registry.RESULTS_FOLDER, target.parent):
            require_safe(root, folder, "the stored results folder")
        if target.exists() or target.is_symlink():
            if read_whole(target, MAX_RESULTS_FILE_BYTES) == data:
                return Added(imported, stored.relative_path(), already=True)
            raise InvalidInput(
                f"{display_path(target)}: these files are stored already, as another run (another arm, metric, "
                "run name, model or harness version); a stored run is never replaced",
                hint="the stored run stands as it is; a different run of the harness is stored under its own files",
            )
        _write_new(root, target, data)
    return Added(imported, stored.relative_path())


def _write_new(root: Path, target: Path, data: bytes) -> None:
    """Write the stored file, its folders made when missing; on failure, folders this call made are removed."""
    made: list[Path] = []
    try:
        for folder in (root / registry.RESULTS_FOLDER, target.parent):
            require_safe(root, folder, "the stored results folder")
            if folder.exists():
                continue
            try:
                folder.mkdir()
            except OSError as exc:
                raise FreezerError(f"{display_path(folder)}: cannot create it: {exc.strerror or exc}") from None
            made.append(folder)
        writing.replace_file(root, target, data, "the stored run")
    except BaseException:
        for folder in reversed(made):
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise
