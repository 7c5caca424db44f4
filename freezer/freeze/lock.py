"""``freezer lock``: pin each image the drafts name by tag to the digest its registry gives today,
each git source of version.yaml named by a branch or tag to the commit it names today, and each
Hugging Face dataset an lm-eval task reads at a branch or tag (``main`` when it names no revision)
to the commit the local hub cache holds for it (offline).

Each is resolved by the standard tool that defines what it means, never by freezer's own copy of
it: images by ``skopeo inspect --raw`` (:mod:`freezer.resolve.imagedigest`), git sources by
``git ls-remote`` (:mod:`freezer.git.remote`), datasets by huggingface_hub's own reading of its
cache (:mod:`freezer.resolve.hubcache`, the ``hub`` extra). The one command that reads the network,
and so the one that needs them: a tool the drafts need and the machine lacks stops it first, with
exit 2 and what to install, before anything is resolved. It reads the images exactly as a cut does
(:mod:`freezer.freeze.environment`: every fixture's fields, Dockerfiles, compose files and
``COPY --from``, and the suite's own Dockerfiles), resolves every one named by tag, and every git
source whose revision is no full commit, and writes the drafts' lock file
(:mod:`freezer.registry.lockfile`) under the registry lock, only when a digest changed. Every
digest is resolved before anything is written: a registry that does not answer, or a dataset the
cache does not hold, leaves every lock as it was. ``check`` reads no network and needs none of the
tools: it says which images, git sources and datasets are named by tag and not locked (unlocked)
and which lock entries no draft names any more (stale).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from freezer.domain.errors import InvalidInput
from freezer.domain.images import ImageRef
from freezer.domain.problems import display_path
from freezer.domain.progress import no_progress
from freezer.freeze.environment import fixture_datasets, fixture_images, suite_images
from freezer.git.gitpolicy import git_executable
from freezer.registry.config import RegistryConfig, SuiteConfig
from freezer.registry.lockfile import LOCK_LAYER, LOCK_NAME, NO_LOCK, ImageLock, lockable, named_git_refs, read_lock
from freezer.resolve import hubcache
from freezer.resolve.hubcache import HubCache
from freezer.runtime.lock import registry_lock
from freezer.runtime.writing import replace_file
from freezer.validate.validate import validate_suite


@dataclass(frozen=True)
class LockedImage:
    """An image the drafts name by tag, pinned by the lock to the digest its registry gives today."""

    name: str
    digest: str
    was: str | None  # the digest the lock held before, None when it held none

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "digest": self.digest, "was": self.was}


@dataclass(frozen=True)
class LockedCommit:
    """A git source of version.yaml named by a branch or tag, pinned by the lock to the commit it names today."""

    url: str
    ref: str
    commit: str
    was: str | None  # the commit the lock held before, None when it held none

    @property
    def name(self) -> str:
        return git_name(self.url, self.ref)

    def to_json(self) -> dict[str, object]:
        return {"url": self.url, "ref": self.ref, "commit": self.commit, "was": self.was}


@dataclass(frozen=True)
class LockedDataset:
    """A Hugging Face dataset an lm-eval task reads at a branch or tag, pinned by the lock to the commit
    the local hub cache holds for it."""

    dataset: str
    ref: str
    commit: str
    was: str | None  # the commit the lock held before, None when it held none

    @property
    def name(self) -> str:
        return dataset_name(self.dataset, self.ref)

    def to_json(self) -> dict[str, object]:
        return {"dataset": self.dataset, "ref": self.ref, "commit": self.commit, "was": self.was}


def dataset_name(dataset: str, ref: str) -> str:
    """How a hub dataset's branch or tag is named among the images (no image name holds a space)."""
    return f"dataset {dataset} {ref}"


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
    datasets: list[LockedDataset] = field(default_factory=list)
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
            "datasets": [dataset.to_json() for dataset in self.datasets],
            "unlocked": [{"name": name, "where": self.named[name]} for name in self.unlocked],
            "stale": self.stale,
            "dropped": self.dropped,
            "written": self.written,
        }


@dataclass
class LockReport:
    """``freezer lock``'s outcome (or ``lock --check``'s): each suite's lock; it fails on anything unlocked or stale."""

    checked: bool  # --check: offline, nothing written
    suites: list[SuiteLock]

    @property
    def ok(self) -> bool:
        return all(one.ok for one in self.suites)

    def to_json(self) -> dict[str, object]:
        return {"check": self.checked, "suites": [one.to_json() for one in self.suites]}


@dataclass(frozen=True)
class Named:
    """What a suite's drafts name by tag: each image, git source and dataset by its name in the
    lock's listing → where it is first named; the git sources as (URL, ref) and the datasets as
    (dataset, ref)."""

    places: dict[str, str]
    git: list[tuple[str, str]]
    datasets: list[tuple[str, str]]

    @property
    def images(self) -> list[str]:
        others = {git_name(*ref) for ref in self.git} | {dataset_name(*ref) for ref in self.datasets}
        return [name for name in self.places if name not in others]


def _named(suite: SuiteConfig, *, relocking: bool = False) -> Named:
    """Each image the suite's drafts name by tag → where it is first named (task and place); each
    git source version.yaml names by a branch or tag, as (URL, ref); and each hub dataset a task
    reads at a branch or tag, as (dataset, ref). ``relocking``: the lock file's own problems are
    no obstacle, for it is written again."""
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
    read = fixture_datasets(fixture_set)
    for task, (dataset, ref) in read.items():
        named.setdefault(dataset_name(dataset, ref), f"{task} $.dataset_path")
    return Named(dict(sorted(named.items())), refs, sorted(set(read.values())))


def _held(lock: ImageLock) -> list[str]:
    """Every entry of ``lock`` by its name in the listing."""
    return [
        *lock.images,
        *(git_name(url, ref) for url, shas in lock.git.items() for ref in shas),
        *(dataset_name(name, ref) for name, shas in lock.datasets.items() for ref in shas),
    ]


def check_locks(suites: list[SuiteConfig]) -> LockReport:
    """Offline: each suite's images named by tag and not locked, and lock entries no draft names."""
    found = []
    for suite in suites:
        named = _named(suite)
        lock = read_lock(suite.drafts) or NO_LOCK
        one = SuiteLock(suite.name, display_path(suite.drafts / LOCK_NAME), named.places)
        held = set(_held(lock))
        one.unlocked = [name for name in named.places if name not in held]
        one.stale = sorted(name for name in held if name not in named.places)
        one.locked = [
            LockedImage(name, lock.images[name], lock.images[name]) for name in named.images if name in lock.images
        ]
        one.git = [
            LockedCommit(url, ref, sha, sha)
            for url, ref in named.git
            if (sha := lock.git.get(url, {}).get(ref)) is not None
        ]
        one.datasets = [
            LockedDataset(dataset, ref, sha, sha)
            for dataset, ref in named.datasets
            if (sha := lock.datasets.get(dataset, {}).get(ref)) is not None
        ]
        found.append(one)
    return LockReport(True, found)


def _dataset_commits(cache: HubCache, wanted: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """The commit the local hub cache holds for each (dataset, ref), read offline; every one the
    cache lacks is named in one :class:`InvalidInput`, with the command that downloads it."""
    commits: dict[tuple[str, str], str] = {}
    missing = []
    for dataset, ref in wanted:
        commit = cache.commit(dataset, ref)
        if commit is None:
            missing.append((dataset, ref))
        else:
            commits[(dataset, ref)] = commit
    if missing:
        listed = "; ".join(f"{dataset} at {ref}" for dataset, ref in missing)
        commands = "; ".join(hubcache.download_command(dataset, ref) for dataset, ref in missing)
        raise InvalidInput(
            f"the Hugging Face hub cache {cache.where} does not hold dataset(s) the tasks read: {listed}",
            hint=f"download each ({commands}), then run freezer lock again; "
            "HF_HUB_CACHE or HF_HOME says where the cache is",
        )
    return commits


def lock_suites(config: RegistryConfig, suites: list[SuiteConfig]) -> LockReport:
    """Resolve every image, git source and dataset each suite names by tag and write the locks that changed."""
    from freezer.git import remote  # the one git call that may reach a repository: this command's alone
    from freezer.resolve import imagedigest  # start-up time: subprocess and tempfile, for this command alone

    named_by_suite = [(suite, _named(suite, relocking=True)) for suite in suites]
    # Every tool the drafts need is found before anything is resolved: a missing one is exit 2 with
    # what to install, and no registry, repository or cache has been asked.
    skopeo = imagedigest.skopeo_executable() if any(named.images for _, named in named_by_suite) else ""
    wanted = sorted({ref for _, named in named_by_suite for ref in named.datasets})
    cache = hubcache.open_hub_cache() if wanted else None
    if any(named.git for _, named in named_by_suite):
        git_executable()
    # The datasets first: the cache is read offline, so a missing one stops the command before any
    # registry or repository is asked.
    datasets = _dataset_commits(cache, wanted) if cache is not None else {}
    found: list[tuple[SuiteConfig, SuiteLock, ImageLock]] = []
    resolved: dict[str, str] = {}
    commits: dict[tuple[str, str], str] = {}
    for suite, named in named_by_suite:
        try:
            before = read_lock(suite.drafts) or NO_LOCK
        except InvalidInput:
            before = NO_LOCK  # freezer's own file, unreadable: written again from the drafts
        for name in named.images:
            if name not in resolved:
                resolved[name] = imagedigest.resolve_digest(skopeo, name)
        for url, ref in named.git:
            if (url, ref) not in commits:
                commits[(url, ref)] = remote.remote_commit(url, ref, config.root)
        git: dict[str, dict[str, str]] = {}
        for url, ref in named.git:
            git.setdefault(url, {})[ref] = commits[(url, ref)]
        hub: dict[str, dict[str, str]] = {}
        for dataset, ref in named.datasets:
            hub.setdefault(dataset, {})[ref] = datasets[(dataset, ref)]
        after = ImageLock({name: resolved[name] for name in named.images}, git, hub)
        one = SuiteLock(suite.name, display_path(suite.drafts / LOCK_NAME), named.places)
        one.locked = [LockedImage(name, resolved[name], before.images.get(name)) for name in named.images]
        one.git = [
            LockedCommit(url, ref, commits[(url, ref)], before.git.get(url, {}).get(ref)) for url, ref in named.git
        ]
        one.datasets = [
            LockedDataset(dataset, ref, datasets[(dataset, ref)], before.datasets.get(dataset, {}).get(ref))
            for dataset, ref in named.datasets
        ]
        one.dropped = sorted(name for name in _held(before) if name not in named.places)
        found.append((suite, one, after))
    with registry_lock(config.root):
        for suite, one, after in found:
            path = suite.drafts / LOCK_NAME
            current = path.read_bytes() if path.is_file() else None
            if current != after.to_bytes() and (after.images or after.git or after.datasets or current is not None):
                replace_file(config.root, path, after.to_bytes(), "the lock file")
                one.written = True
    return LockReport(False, [one for _, one, _ in found])
