"""The drafts' lock file, ``freezer.lock.json``: the digest each image named by tag had when locked,
the commit each git source named by a branch or tag had, and the commit each Hugging Face dataset
an lm-eval task reads at a branch or tag (``main`` when it names none) had.

``freezer lock`` writes it beside ``version.yaml`` (the benchmark's own files are never rewritten);
nothing else writes it, and nothing reads the network but ``freezer lock``. In the drafts it is an
asset like any other file, so a cut freezes its bytes with the version and hashes them; what it
pins is read from it at the cut into the manifest's images (``pinned_by: lock``), so §Delta,
``compare`` and the site read the digest, never the file again. Its format, version 1::

    {"lock_format": 1, "images": {"ubuntu:24.04": "sha256:<64 hex>", ...},
     "git": {"https://host/data.git": {"main": "<40 hex>"}, ...},
     "datasets": {"owner/name": {"main": "<40 hex>"}, ...}}

images keyed by the image as the drafts name it (after a Dockerfile's build arguments are
substituted); git by a ``sources:`` entry's name (its URL), then the branch or tag its revision
names; datasets by the tasks' ``dataset_path``, then the branch or tag they read it at; all sorted,
with no time stamp: locking again when nothing moved writes the same bytes. ``git`` and
``datasets`` are written only when one is locked, so a lock of images alone keeps its bytes.
A cut reads the commits into the manifest's ``locked_sources`` and ``locked_datasets``.
"""

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from freezer.domain.canonical import frozen_file
from freezer.domain.errors import FreezerError, InvalidInput
from freezer.domain.images import ImageRef
from freezer.domain.problems import Problem, display_path
from freezer.runtime.limits import MAX_LOCK_BYTES
from freezer.runtime.reading import read_whole

if TYPE_CHECKING:
    from freezer.domain.model import Raw

LOCK_NAME = "freezer.lock.json"
LOCK_FORMAT = 1
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
# The layer of a problem with the lock file: freezer lock rewrites the file such a problem is about.
LOCK_LAYER = "lock"


class ImageLock(NamedTuple):
    """Image as named (a tag) → the content digest the registry gave for it when locked."""

    images: Mapping[str, str]
    # A git source's name (its URL) → the branch or tag its revision names → the commit it named.
    git: Mapping[str, Mapping[str, str]]
    # A hub dataset (dataset_path) → the branch or tag the tasks read it at → the commit it named.
    datasets: Mapping[str, Mapping[str, str]]

    def pin(self, ref: ImageRef) -> ImageRef:
        """``ref`` pinned by this lock when it names a tag the lock holds; otherwise ``ref`` itself
        (already pinned by its own digest, unknown through a build argument, or not locked)."""
        if ref.digest is not None or ref.unresolved is not None or ref.name not in self.images:
            return ref
        return ref._replace(digest=self.images[ref.name], locked=True)

    def pin_all(self, refs: Iterable[ImageRef]) -> tuple[ImageRef, ...]:
        return tuple(sorted(self.pin(ref) for ref in refs))

    def source_commits(self, version: "Raw") -> dict[str, str]:
        """Each git source of version.yaml whose revision names a branch or tag this lock holds →
        the commit it pins, by source name (unique in the list); what a cut records."""
        from freezer.domain.model import sources_of  # start-up time: validate reads no source through a lock

        return {
            source.name: self.git[source.name][source.revision]
            for source in sources_of(version)
            if source.kind == "git"
            and not _COMMIT.match(source.revision)
            and source.revision in self.git.get(source.name, {})
        }

    def dataset_commits(self, refs: Iterable[tuple[str, str]]) -> dict[str, dict[str, str]]:
        """Of the datasets the tasks read at a branch or tag (``refs``: (dataset, revision)), each
        this lock holds → its commit, as dataset → revision → commit; what a cut records."""
        found: dict[str, dict[str, str]] = {}
        for name, revision in sorted(set(refs)):
            commit = self.datasets.get(name, {}).get(revision)
            if commit is not None:
                found.setdefault(name, {})[revision] = commit
        return found

    def to_bytes(self) -> bytes:
        document: dict[str, object] = {"lock_format": LOCK_FORMAT, "images": dict(sorted(self.images.items()))}
        if self.git:
            document["git"] = {url: dict(sorted(refs.items())) for url, refs in sorted(self.git.items())}
        if self.datasets:
            document["datasets"] = {name: dict(sorted(refs.items())) for name, refs in sorted(self.datasets.items())}
        return frozen_file(document)


# The lock of drafts that have none: it pins nothing (read-only, as every lock is).
NO_LOCK = ImageLock({}, {}, {})


def named_git_refs(version: "Raw") -> list[tuple[str, str]]:
    """The git sources of version.yaml named by a branch or tag (not a full commit), as (URL, ref):
    what a lock can pin."""
    from freezer.domain.model import sources_of  # start-up time: as above

    return [(s.name, s.revision) for s in sources_of(version) if s.kind == "git" and not _COMMIT.match(s.revision)]


def lockable(refs: Iterable[ImageRef]) -> set[str]:
    """The images among ``refs`` a lock can pin: named by tag, neither by digest nor through an
    argument no one can know before the build."""
    return {ref.name for ref in refs if ref.digest is None and ref.unresolved is None}


def parse_lock(data: bytes, shown: str) -> ImageLock:
    """The lock in ``data`` (the file ``shown``), or :class:`InvalidInput` naming each fault at
    ``shown::$.path`` and what to do."""
    from freezer.parse import strictjson  # start-up time: validate reads a lock only where the drafts hold one

    try:
        document = strictjson.loads(data)
    except strictjson.NotStrictJson as exc:
        raise _refused(shown, (), f"not strict JSON: {exc}") from None
    if not isinstance(document, dict):
        raise _refused(shown, (), "is not a JSON object")
    if document.get("lock_format") != LOCK_FORMAT:
        raise _refused(shown, ("lock_format",), f"must be {LOCK_FORMAT} (this freezer reads lock format {LOCK_FORMAT})")
    unknown = sorted(set(document) - {"lock_format", "images", "git", "datasets"})
    if unknown:
        raise _refused(shown, (unknown[0],), "is no field of a lock file (lock_format, images, git, datasets)")
    images = document.get("images", {})
    if not isinstance(images, dict):
        raise _refused(shown, ("images",), "must be an object: image name → sha256:<64 hex>")
    problems = [
        Problem(shown, None, None, ("images", name), f"{digest!r} is no sha256:<64 hex> digest; {_HINT}", LOCK_LAYER)
        for name, digest in images.items()
        if not isinstance(digest, str) or not _DIGEST.match(digest)
    ]
    git = document.get("git", {})
    if not isinstance(git, dict) or not all(isinstance(refs, dict) for refs in git.values()):
        raise _refused(shown, ("git",), "must be an object: repository URL → branch or tag → commit (40 hex)")
    problems += [
        Problem(shown, None, None, ("git", url, ref), f"{sha!r} is no commit (40 hex); {_HINT}", LOCK_LAYER)
        for url, refs in git.items()
        for ref, sha in refs.items()
        if not isinstance(sha, str) or not _COMMIT.match(sha)
    ]
    datasets = document.get("datasets", {})
    if not isinstance(datasets, dict) or not all(isinstance(refs, dict) for refs in datasets.values()):
        raise _refused(shown, ("datasets",), "must be an object: dataset → branch or tag → commit (40 hex)")
    problems += [
        Problem(shown, None, None, ("datasets", name, ref), f"{sha!r} is no commit (40 hex); {_HINT}", LOCK_LAYER)
        for name, refs in datasets.items()
        for ref, sha in refs.items()
        if not isinstance(sha, str) or not _COMMIT.match(sha)
    ]
    if problems:
        raise InvalidInput(f"{shown} is not a valid lock file", problems, hint=_HINT)
    return ImageLock(
        dict(images), {url: dict(refs) for url, refs in git.items()}, {n: dict(refs) for n, refs in datasets.items()}
    )


_HINT = "run freezer lock to write it again (it is freezer's own file: never edit it by hand)"


def _refused(shown: str, path: tuple[str, ...], message: str) -> InvalidInput:
    problem = Problem(shown, None, None, path, f"{message}; {_HINT}", LOCK_LAYER)
    return InvalidInput(f"{shown} is not a valid lock file", [problem], hint=_HINT)


def drafts_lock(assets: Mapping[str, Path]) -> ImageLock:
    """The lock among a fixture set's assets (by path relative to the drafts folder): the file a
    cut freezes, so what pins an image is what the version holds. Empty when there is none."""
    path = assets.get(LOCK_NAME)
    if path is None:
        return NO_LOCK
    return parse_lock(read_whole(path, MAX_LOCK_BYTES), display_path(path))


def lock_problems(assets: Mapping[str, Path]) -> list[Problem]:
    """What is wrong with the lock among a fixture set's assets, for validate (none without one)."""
    try:
        drafts_lock(assets)
    except InvalidInput as exc:
        return list(exc.problems)
    except FreezerError as exc:  # unreadable, or larger than any lock
        return [Problem(display_path(assets[LOCK_NAME]), None, None, (), f"{exc.message}; {_HINT}", LOCK_LAYER)]
    return []


def read_lock(drafts: Path) -> ImageLock | None:
    """The lock of the drafts folder ``drafts``, or None when it has none."""
    path = drafts / LOCK_NAME
    if not path.is_file():
        return None
    return parse_lock(read_whole(path, MAX_LOCK_BYTES), display_path(path))
