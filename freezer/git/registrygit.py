"""The registry's own git repository, for the pre-merge guard (``freezer check``).

Every call runs through :func:`freezer.git.gitpolicy.run_git`, under the same policy as
the code repository's: no configured program, no fetch, no hooks. git is asked
only about stored objects (commits, trees, blobs, the index's object ids);
the working tree is read by :mod:`freezer.git.worktree`, never through git.
"""

from pathlib import Path
from typing import NamedTuple

from freezer.domain.errors import GitError, UsageError
from freezer.domain.problems import display_path
from freezer.git.catfile import CatFile, Unreadable
from freezer.git.cibase import CiEvent, ci_event, is_object_id
from freezer.git.gitpolicy import check_ref, run_git
from freezer.git.worktree import Entry, WorkingTree

# git's empty tree: the base of a registry with nothing committed yet.
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
# Statuses from least to most telling: a path both restaged and deleted is reported deleted.
_SEVERITY = ("A", "M", "T", "D", "U")


class Change(NamedTuple):
    """A path of a frozen version that differs from the base."""

    status: str  # A, M, T (another kind of file), D, U (unmerged), as git diff --name-status says
    path: str  # relative to the registry root
    staged: bool  # the index differs too; if not, only the working tree's bytes do


class Staged(NamedTuple):
    """A path's entry in the index."""

    mode: str
    object_id: str
    unmerged: bool
    skip_worktree: bool  # a sparse checkout leaves it out of the working tree


def _index_status(was: Entry | None, now: Staged | None) -> str | None:
    """How the index's entry for a path differs from the base's."""
    if now is None:
        return None if was is None else "D"
    if now.unmerged:
        return "U"
    if was is None:
        return "A"
    mode, object_id = was
    if mode != now.mode:
        return "T" if mode[:2] != now.mode[:2] else "M"
    return None if object_id == now.object_id else "M"


def _fetch_command(branch: str) -> str:
    """The git command that fetches ``branch`` from origin, for a shell: the name comes from the CI job's
    environment or its event payload, so it is quoted, and one that looks like an option follows ``--``."""
    import shlex  # start-up time: only a check whose base is not fetched says how to fetch it

    return "git fetch origin " + ("-- " if branch.startswith("-") else "") + shlex.quote(branch)


def _unreadable(shown: str) -> GitError:
    """The one message for a base object git cannot read: never "absent", which would pass any change."""
    return GitError(
        f"git cannot read {shown} in the registry repository (an object missing from a partial or "
        "shallow clone?); freezer never fetches, and cannot tell what was frozen without it",
        hint="check in a full clone (actions/checkout: no filter, fetch-depth: 0), or fetch the base first",
    )


def _not_fetched(base: str, fetch: str | None, more: str = "") -> UsageError:
    """The one message for a base the job has not fetched: a pull request's, a push's, a new branch's."""
    return UsageError(
        f"the base {base} is not fetched, so freezer cannot tell what was frozen before this change",
        hint=(f"fetch it first ({fetch}; " if fetch else "pass --base REF (")
        + "with actions/checkout, set fetch-depth: 0)"
        + more,
    )


class RegistryGit:
    """The registry's own git repository, for the pre-merge guard."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._top: Path | None = None  # learnt with the base (resolve), which check asks first

    def _run(self, *args: str) -> str:
        return run_git(list(args), self.root)

    def is_repo(self) -> bool:
        try:
            return self._run("rev-parse", "--is-inside-work-tree").strip() == "true"
        except GitError:
            return False

    def require_repo(self) -> None:
        """Asked only once something failed: is the registry in a git repository at all?"""
        if not self.is_repo():
            raise UsageError(
                f"{display_path(self.root)} is not a git repository; freezer check compares against a base ref"
            )

    def resolve(self, ref: str) -> str:
        try:
            check_ref(ref, "base ref")
        except GitError as exc:  # --base is a command-line value: a usage error
            raise UsageError(exc.message, hint="pass a branch, tag or commit id to --base") from None
        try:
            # The top folder comes with the commit, in one git process instead of two (each costs a
            # pre-commit hook some milliseconds): the commit id is the last line, the top all before it.
            out = self._run(
                "rev-parse", "--show-toplevel", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"
            )
            top, _, commit = out.rstrip("\n").rpartition("\n")
            self._top = Path(top)
            return commit.strip()
        except GitError:
            pass  # not in a working tree, or no such commit: asked apart, so each says what it is
        try:
            return self._run("rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}").strip()
        except GitError:
            self.require_repo()
            raise UsageError(
                f"base ref {ref!r} does not name a commit in the registry repository",
                hint="fetch it first (e.g. git fetch origin main) or pass --base",
            ) from None

    def _commit(self, name: str) -> str | None:
        """The commit ``name`` resolves to, or None when the registry repository does not have it."""
        try:
            return self._run("rev-parse", "--verify", "--quiet", "--end-of-options", f"{name}^{{commit}}").strip()
        except GitError:
            return None

    def _head_learning_top(self) -> str | None:
        """HEAD's commit, or None while HEAD is unborn; raises UsageError outside a git repository.
        Where HEAD is a commit, the top folder comes with it: one git process where a pre-commit hook
        in a repository without an upstream ran three (is it a repository, HEAD, the top)."""
        try:
            out = self._run("rev-parse", "--show-toplevel", "--verify", "--quiet", "HEAD^{commit}")
        except GitError:  # no repository, an unborn HEAD, or no working tree: asked apart, as before
            self.require_repo()
            return self._commit("HEAD")
        top, _, head = out.rstrip("\n").rpartition("\n")
        self._top = Path(top)
        return head.strip()

    def _merge_base(self, tip: str, label: str) -> str:
        try:
            return self._run("merge-base", tip, "HEAD").strip()
        except GitError:
            raise UsageError(
                f"HEAD and {label} share no history in the registry repository, so freezer cannot tell "
                "what was frozen before this change",
                hint="fetch the full history (git fetch --unshallow, or actions/checkout with fetch-depth: 0) "
                "or pass --base",
            ) from None

    def default_base(self) -> tuple[str, str]:
        """The base a CI user expects: on a push, the commit before it; on a pull request, its target;
        else the upstream or origin's default branch.

        Under CI a base that is not fetched, or a push whose base nobody can know, is an error, never
        a silent fallback: comparing with HEAD would pass a committed tamper. A local run with none
        of them compares with HEAD and says so.
        """
        event = ci_event()
        if event.is_push:
            found = self._push_base(event)
            if found is not None:
                return found
        if event.names_no_change:
            return self._scheduled_base(event)
        candidates: list[tuple[str, str]] = []
        if event.base_ref:
            candidates.append((f"origin/{event.base_ref}", f"origin/{event.base_ref}"))
        if event.is_pull_request and is_object_id(event.pull_base_sha):
            assert event.pull_base_sha is not None
            candidates.append((event.pull_base_sha, f"the pull request's base {event.pull_base_sha[:8]}"))
        fallback = not candidates
        for candidate, label in candidates or [("@{upstream}", "@{upstream}"), ("origin/HEAD", "origin/HEAD")]:
            tip = self._commit(candidate)
            if tip is None:
                continue
            base = self._merge_base(tip, label)
            if fallback and event.in_ci and base == self._commit("HEAD"):
                # A push job's upstream is the pushed commit: comparing with it checks nothing committed.
                raise UsageError(
                    f"the base {label} is HEAD itself, so freezer cannot tell what was frozen before this change",
                    hint="pass --base REF (the commit the change starts from); on GitHub Actions, run on push "
                    "or pull_request, whose base freezer reads from the event",
                )
            return base, f"merge-base of HEAD and {label}"
        head = self._head_learning_top()
        if head is None:
            # An unborn HEAD has no base to fetch, in CI or not: nothing can have been frozen yet.
            return EMPTY_TREE, "nothing committed yet: every version is new"
        if event.in_ci:
            if event.base_ref:
                raise _not_fetched(f"origin/{event.base_ref}", _fetch_command(event.base_ref))
            if candidates:
                raise _not_fetched(f"{candidates[0][0][:12]} (the pull request's base commit)", None)
            raise UsageError(
                "the base of this change (the branch it merges into) is not fetched, so freezer cannot tell "
                "what was frozen before this change",
                hint="pass --base REF (with actions/checkout, set fetch-depth: 0)",
            )
        return (
            head,
            "HEAD, as there is no upstream branch or origin/HEAD: the uncommitted changes; "
            "--base REF checks commits too",
        )

    def _scheduled_base(self, event: CiEvent) -> tuple[str, str]:
        """A scheduled or hand-started run's base: on the default branch, HEAD itself (everything there
        was checked when it was pushed, and the audit that follows re-verifies every version); on
        another branch, where it left the default branch, as for a new branch's first push."""
        head = self._commit("HEAD")
        if event.on_default_branch or head is None:
            return head or EMPTY_TREE, (
                f"a {event.name} run on the default branch names no change: only uncommitted changes are "
                "checked, and the audit re-verifies every version"
            )
        label = f"origin/{event.default_branch}" if event.default_branch else "origin/HEAD"
        tip = self._commit(label)
        if tip is None:
            raise _not_fetched(
                f"{label} (the default branch this {event.name} run's branch is compared with)",
                _fetch_command(event.default_branch) if event.default_branch else None,
            )
        ran_on = (event.pushed_ref or "this branch").removeprefix("refs/heads/")
        return self._merge_base(tip, label), f"merge-base of HEAD and {label}: a {event.name} run on {ran_on}"

    def _push_base(self, event: CiEvent) -> tuple[str, str] | None:
        """A push's base: the commit before it; for a new branch, where it left the default branch.

        None outside CI when the push names no usable base (the local defaults apply then)."""
        before = event.before
        if event.payload_problem is not None or not is_object_id(before):
            if not event.in_ci:
                return None
            why = event.payload_problem or f"its payload gives no commit before the push (before: {before!r})"
            raise UsageError(
                f"this job runs on a push, but {why}; so freezer cannot tell what was frozen before this change",
                hint="run freezer check where GitHub Actions writes the event (GITHUB_EVENT_PATH), or pass --base REF",
            )
        assert before is not None
        if not event.creates_branch:
            found = self._commit(before)
            if found is None:
                if not event.in_ci:
                    return None
                raise _not_fetched(
                    f"{before[:12]} (the commit before this push)",
                    f"git fetch origin {before}",
                    "; after a force-push that commit may be on no branch: pass --base REF",
                )
            return found, f"the commit before this push ({before[:8]})"
        default = event.default_branch
        pushed = event.pushed_ref or "a new branch"
        if default is not None and pushed == f"refs/heads/{default}":
            # The first push of the default branch: nothing was frozen before it.
            return EMPTY_TREE, f"this push creates {default}, the default branch: every version is new"
        label = f"origin/{default}" if default else "origin/HEAD"
        tip = self._commit(label)
        if tip is None:
            if not event.in_ci:
                return None
            raise _not_fetched(
                f"{label} (the default branch {pushed.removeprefix('refs/heads/')} was pushed from)",
                _fetch_command(default) if default else None,
            )
        return self._merge_base(tip, label), f"merge-base of HEAD and {label}: this push creates {pushed}"

    def at(self, ref: str, place: str) -> "BaseTree":
        """Files and folders of commit ``ref`` under ``place`` (``""``, the repository's top, or
        ``"a/b/"``), read through one ``git cat-file --batch``."""
        return BaseTree(self.root, ref, place)

    def top(self) -> Path:
        """The repository's top folder, every link resolved (as git resolves it)."""
        if self._top is None:
            self._top = Path(self._run("rev-parse", "--show-toplevel").rstrip("\n"))
        return self._top

    def places_of(self, ref: str, name: str) -> list[str]:
        """Every folder of commit ``ref`` (``""`` or ``"a/b/"``) that holds an entry called ``name``:
        where the base kept registries, whatever the working tree now holds there."""
        try:
            out = self._run("ls-tree", "-r", "-z", "--full-tree", "--name-only", check_ref(ref))
        except GitError:
            raise _unreadable(f"the folders of {ref[:8]}") from None
        return sorted(path[: -len(name)] for path in out.split("\0") if path == name or path.endswith(f"/{name}"))

    def left_out(self, path: str) -> bool:
        """Does a sparse checkout leave ``path`` (from the top) out of the working tree on purpose?"""
        return any(entry.skip_worktree for entry in self._staged([f":(top,literal){path}"]).values())

    def changes(self, base: str, folders: list[str]) -> list[Change]:
        """Every difference under ``folders`` between ``base`` and what the change holds: its index
        (what a commit records) or its working tree (what freezer reads).

        git is asked only for stored object ids (``ls-tree``, ``ls-files -s``), which neither runs a
        filter nor reads the working tree; :class:`~freezer.git.worktree.WorkingTree` hashes the working
        tree's raw bytes itself. So no ``filter=``, ``diff=`` or ``merge=`` driver runs, and a
        conversion a checkout applied (``ident``, ``working-tree-encoding``, a smudge filter) is a
        change, as it is to every reader of the file."""
        if not folders:
            return []
        specs = [f":(literal){folder.rstrip('/')}/" for folder in folders]
        recorded = self._recorded(base, specs)
        staged = self._staged(specs)
        working = WorkingTree(self.root)
        found = []
        for path in sorted(recorded.keys() | staged.keys()):
            was, now = recorded.get(path), staged.get(path)
            in_index = _index_status(was, now)
            in_tree = None if was is None else working.status(path, was)
            if in_tree == "D" and now is not None and now.skip_worktree:
                in_tree = None  # a sparse checkout leaves it out on purpose; if it is there, it is compared
            if in_index or in_tree:
                status = max((s for s in (in_index, in_tree) if s), key=_SEVERITY.index)
                found.append(Change(status, path, staged=in_index is not None))
        return found

    def _recorded(self, ref: str, specs: list[str]) -> dict[str, Entry]:
        """path → (mode, object id) of every entry of ``ref`` under ``specs`` (object sizes would cost
        git a read of every object's header, more than hashing the files)."""
        out = self._run("ls-tree", "-r", "-z", check_ref(ref), "--", *specs)
        entries: dict[str, Entry] = {}
        for record in out.split("\0"):
            meta, tab, path = record.partition("\t")
            fields = meta.split()
            if tab and len(fields) == 3:
                entries[path] = (fields[0], fields[2])
        return entries

    def _staged(self, specs: list[str]) -> dict[str, Staged]:
        """path → what the index holds for it under ``specs`` (``ls-files -s`` reads no file)."""
        out = self._run("ls-files", "-s", "-t", "-z", "--", *specs)
        entries: dict[str, Staged] = {}
        for record in out.split("\0"):
            meta, tab, path = record.partition("\t")
            fields = meta.split()
            if not tab or len(fields) != 4:
                continue
            tag, mode, object_id, stage = fields
            known = entries.get(path)
            entries[path] = Staged(
                mode,
                object_id,
                stage != "0" or (known is not None and known.unmerged),
                tag.upper() == "S",
            )
        return entries


class BaseTree:
    """Read blobs and folder listings of one commit through a single ``git cat-file --batch``:
    the pre-merge check reads a config and a folder or two, and each git process costs ~4 ms."""

    def __init__(self, root: Path, ref: str, place: str) -> None:
        self._ref = check_ref(ref)
        self._place = place  # from the repository's top, never the working folder: see freezer.git.place
        self._objects = CatFile(root)

    def __enter__(self) -> "BaseTree":
        return self

    def __exit__(self, *exc: object) -> None:
        self._objects.close()

    def _object(self, path: str) -> tuple[str, bytes] | None:
        """(type, bytes) of ``path`` at the commit, or None if the commit has no such path. An object
        git cannot read (a partial clone's blob or tree, never fetched) is an error, never "absent":
        a base read as holding nothing would pass any change as new."""
        if "\n" in path:
            return None
        try:
            full = f"{self._place}{path}".rstrip("/")
            return self._objects.get(f"{self._ref}:{full}".encode("utf-8", "surrogateescape"))
        except Unreadable:
            raise _unreadable(f"{self._place}{path} at {self._ref[:8]}") from None

    def blob(self, path: str) -> bytes | None:
        found = self._object(path)
        return found[1] if found and found[0] == "blob" else None

    def names(self, folder: str) -> set[str]:
        """The entries directly inside ``folder`` (none if it is not a folder there)."""
        found = self._object(folder.rstrip("/"))
        if not found or found[0] != "tree":
            return set()
        names, data, at = set(), found[1], 0
        width = 20 if len(self._ref) == 40 else 32  # the object id length: SHA-1 or SHA-256
        while at < len(data):
            end = data.index(b"\0", at)
            names.add(data[at:end].split(b" ", 1)[1].decode("utf-8", "surrogateescape"))
            at = end + 1 + width
        return names
