"""``freezer lock``: pin each image the drafts name by tag to the digest its registry gives today,
and each git source of version.yaml named by a branch or tag to the commit it names today.

The one command that reads the network (through :mod:`freezer.resolve.imagedigest` and
:mod:`freezer.git.remote`'s ``git ls-remote``, lazily: no other command imports them). It reads
the images exactly as a cut does (:mod:`freezer.freeze.environment`:
every fixture's fields, Dockerfiles, compose files and ``COPY --from``, and the suite's own
Dockerfiles), resolves every one named by tag, and every git source whose revision is no full
commit, and writes the drafts' lock file
(:mod:`freezer.registry.lockfile`) under the registry lock, only when a digest changed. Every
digest is resolved before anything is written: a registry that does not answer leaves every lock
as it was. ``check`` reads no network: it says which images and git sources are named by tag and
not locked (unlocked) and which lock entries no draft names any more (stale).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from freezer.domain.errors import InvalidInput
from freezer.domain.images import ImageRef
from freezer.domain.problems import display_path
from freezer.domain.progress import no_progress
from freezer.freeze.environment import fixture_images, suite_images
from freezer.registry.config import RegistryConfig, SuiteConfig
from freezer.registry.lockfile import LOCK_LAYER, LOCK_NAME, ImageLock, lockable, named_git_refs, read_lock
from freezer.runtime.lock import registry_lock
from freezer.runtime.writing import replace_file
from freezer.validate.validate import validate_suite


@dataclass(frozen=True)
class LockedImage:
    name: str
    digest: str
    was: str | None  # the digest the lock held before, None when it held none

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "digest": self.digest, "was": self.was}


@dataclass(frozen=True)
class LockedCommit:
    url: str
    ref: str
    commit: str
    was: str | None  # the commit the lock held before, None when it held none

    @property
    def name(self) -> str:
        return git_name(self.url, self.ref)

    def to_json(self) -> dict[str, object]:
        return {"url": self.url, "ref": self.ref, "commit": self.commit, "was": self.was}


def git_name(url: str, ref: str) -> str:
    """How a git source's branch or tag is named among the images (no image name holds a space)."""
    return f"git {url} {ref}"


@dataclass
class SuiteLock:
    """One suite's lock: where it is, what it pins, and (checked) what it misses."""

    suite: str
    path: str
    named: dict[str, str] = field(default_factory=dict)  # image named by tag → the first place naming it
    locked: list[LockedImage] = field(default_factory=list)
    git: list[LockedCommit] = field(default_factory=list)
    unlocked: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # locking: entries no draft names any more, removed
    written: bool = False

    @property
    def ok(self) -> bool:
        return not self.unlocked and not self.stale

    def to_json(self) -> dict[str, object]:
        return {
            "suite": self.suite,
            "lock_file": self.path,
            "locked": [image.to_json() for image in self.locked],
            "git": [source.to_json() for source in self.git],
            "unlocked": [{"name": name, "where": self.named[name]} for name in self.unlocked],
            "stale": self.stale,
            "dropped": self.dropped,
            "written": self.written,
        }


@dataclass
class LockReport:
    checked: bool  # --check: offline, nothing written
    suites: list[SuiteLock]

    @property
    def ok(self) -> bool:
        return all(one.ok for one in self.suites)

    def to_json(self) -> dict[str, object]:
        return {"check": self.checked, "suites": [one.to_json() for one in self.suites]}


def _named(suite: SuiteConfig, *, relocking: bool = False) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Each image the suite's drafts name by tag → where it is first named (task and place); and
    each git source version.yaml names by a branch or tag, as (URL, ref). ``relocking``: the lock
    file's own problems are no obstacle, for it is written again."""
    report = validate_suite(suite, no_progress)
    problems = [p for p in report.problems if not (relocking and p.layer == LOCK_LAYER)]
    if problems or not report.sets:
        raise InvalidInput(
            f"the drafts of suite {suite.name} do not validate, so the images they name cannot be read",
            problems,
            hint="fix what freezer validate reports, then lock again",
        )
    [fixture_set] = [s for s in report.sets if s.version is not None]
    places: list[tuple[str, ImageRef]] = [("(suite)", image) for image in suite_images(fixture_set)]
    places += [(task, image) for task, refs in fixture_images(fixture_set).items() for image in refs]
    named: dict[str, str] = {}
    for task, image in places:
        if image.name in lockable([image]):
            named.setdefault(image.name, f"{task} {image.where}")
    assert fixture_set.version is not None
    refs = named_git_refs(fixture_set.version.data)
    for url, ref in refs:
        named[git_name(url, ref)] = "version.yaml $.sources"
    return dict(sorted(named.items())), refs


def check_locks(suites: list[SuiteConfig]) -> LockReport:
    """Offline: each suite's images named by tag and not locked, and lock entries no draft names."""
    found = []
    for suite in suites:
        named, refs = _named(suite)
        lock = read_lock(suite.drafts) or ImageLock()
        one = SuiteLock(suite.name, display_path(suite.drafts / LOCK_NAME), named)
        held = {
            **lock.images,
            **{git_name(url, ref): sha for url, shas in lock.git.items() for ref, sha in shas.items()},
        }
        one.unlocked = [name for name in named if name not in held]
        one.stale = sorted(name for name in held if name not in named)
        one.locked = [LockedImage(name, lock.images[name], lock.images[name]) for name in named if name in lock.images]
        one.git = [
            LockedCommit(url, ref, sha, sha) for url, ref in refs if (sha := lock.git.get(url, {}).get(ref)) is not None
        ]
        found.append(one)
    return LockReport(True, found)


def lock_suites(config: RegistryConfig, suites: list[SuiteConfig]) -> LockReport:
    """Resolve every image and git source each suite names by tag and write the locks that changed."""
    from freezer.git import remote  # the one git call that may reach a repository: this command's alone
    from freezer.resolve import imagedigest  # start-up time: urllib, read by this command alone

    found: list[tuple[SuiteConfig, SuiteLock, ImageLock]] = []
    resolved: dict[str, str] = {}
    commits: dict[tuple[str, str], str] = {}
    for suite in suites:
        named, refs = _named(suite, relocking=True)
        try:
            before = read_lock(suite.drafts) or ImageLock()
        except InvalidInput:
            before = ImageLock()  # freezer's own file, unreadable: written again from the drafts
        images = [name for name in named if name not in {git_name(url, ref) for url, ref in refs}]
        for name in images:
            if name not in resolved:
                resolved[name] = imagedigest.resolve_digest(name)
        for url, ref in refs:
            if (url, ref) not in commits:
                commits[(url, ref)] = remote.remote_commit(url, ref, config.root)
        git: dict[str, dict[str, str]] = {}
        for url, ref in refs:
            git.setdefault(url, {})[ref] = commits[(url, ref)]
        after = ImageLock({name: resolved[name] for name in images}, git)
        one = SuiteLock(suite.name, display_path(suite.drafts / LOCK_NAME), named)
        one.locked = [LockedImage(name, resolved[name], before.images.get(name)) for name in images]
        one.git = [LockedCommit(url, ref, commits[(url, ref)], before.git.get(url, {}).get(ref)) for url, ref in refs]
        held = [*before.images, *(git_name(url, ref) for url, shas in before.git.items() for ref in shas)]
        one.dropped = sorted(name for name in held if name not in named)
        found.append((suite, one, after))
    with registry_lock(config.root):
        for suite, one, after in found:
            path = suite.drafts / LOCK_NAME
            current = path.read_bytes() if path.is_file() else None
            if current != after.to_bytes() and (after.images or after.git or current is not None):
                replace_file(config.root, path, after.to_bytes(), "the lock file")
                one.written = True
    return LockReport(False, [one for _, one, _ in found])
