"""Read-only access to the code repository (``code_repo``), under the git policy.

Every git call freezer makes runs under the policy of :mod:`freezer.git.gitpolicy`
(no program, no fetch, no outside config, one absolute git); its names are
re-exported here, where callers have always found them. On top of it, the code
repository must be a clone with a working tree, whose top level is the
configured folder: a bare repository, or a git directory laid out as plain
files (``HEAD``, ``config``, ``objects/``), is refused.

Only stored objects are read: tree listings (each commit's once) and blobs,
through one long-lived ``git cat-file --batch`` process; never the working
tree, so no checkout filter or attribute applies.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from freezer.domain.errors import GitError
from freezer.domain.problems import display_path
from freezer.git.catfile import CatFile, Unreadable
from freezer.git.gitpolicy import (
    DETERMINISTIC_ENV,
    POLICY_CONFIG,
    POLICY_ENV,
    check_ref,
    git_argv,
    git_env,
    git_executable,
    git_status,
    run_git,
)
from freezer.git.globs import compile_glob
from freezer.git.history import Commit, History

if TYPE_CHECKING:
    from freezer.git.trees import TreeCache

__all__ = [
    "DETERMINISTIC_ENV",
    "POLICY_CONFIG",
    "POLICY_ENV",
    "CodeRepo",
    "Commit",
    "check_ref",
    "git_argv",
    "git_env",
    "git_executable",
    "git_status",
    "run_git",
]

# A commit id or its prefix, as a version records it (SHA-1 or SHA-256 object format).
_OBJECT_ID = re.compile(r"[0-9a-f]{7,64}")
_WHOLE_ID_LENGTHS = (40, 64)  # SHA-1's and SHA-256's


class CodeRepo(History):
    """Read-only access to the git repository of the code under test."""

    def __init__(self, path: Path, configured_at: str = "freezer.yaml") -> None:
        self.path = path
        where = f"{configured_at}: code_repo {display_path(path)}"
        hint = "point code_repo in freezer.yaml at a clone of the code under test"
        if not path.exists():
            raise GitError(f"{where} does not exist", hint=hint)
        if not path.is_dir():
            raise GitError(f"{where} is not a folder", hint=hint)
        self._is_shallow = self._read_clone(where, hint)
        if not self._git("rev-list", "--all", "--max-count=1").strip():
            raise GitError(
                f"{where} has no commits on any branch or tag, nor at HEAD",
                hint="check out the branch that holds the pinned commit, or fetch it",
            )
        self._entries: dict[str, tuple[tuple[str, str, str, str], ...]] = {}
        self._trees: dict[str, dict[str, tuple[str, str]]] = {}
        self._names: dict[str, list[tuple[str, bytes]]] = {}
        self._blobs: dict[str, bytes] = {}
        self._texts: dict[str, str | None] = {}
        self._lines: dict[str, list[str]] = {}
        self._objects = CatFile(path)
        self._identity: dict[str, Any] | None = None
        self._checkouts: TreeCache | None = None
        self._shallow: tuple[str, ...] | None = None

    def _read_clone(self, where: str, hint: str) -> bool:
        """Refuse anything but a clone with a working tree whose top level is this folder; whether
        the clone is shallow, asked of the same ``rev-parse`` (a cut or an audit opens the code
        repository once per version, and each git process is a start of git)."""
        try:
            shallow, _, top_line = self._git("rev-parse", "--is-shallow-repository", "--show-toplevel").partition("\n")
            top = Path(top_line.removesuffix("\n")).resolve()
        except GitError as exc:
            if "bare repository" in exc.message or "must be run in a work tree" in exc.message:
                raise GitError(
                    f"{where} is a bare repository or a git directory laid out as plain files; "
                    "freezer reads only a clone with a working tree",
                    hint="clone the code under test (git clone URL FOLDER) and point code_repo at that folder",
                ) from None
            raise GitError(f"{where} is not a git repository", hint=hint) from None
        if top != self.path.resolve():
            raise GitError(f"{where} is not the top level of a git repository (that is {display_path(top)})", hint=hint)
        if not (self.path / ".git").exists():
            raise GitError(f"{where} has no .git: it is not a clone with a working tree", hint=hint)
        return shallow == "true"

    def close(self) -> None:
        if self._checkouts is not None:
            self._checkouts.close()
            self._checkouts = None
        self._objects.close()

    def __enter__(self) -> CodeRepo:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def resolve(self, ref: str, what: str = "commit") -> str:
        """The full 40-hex SHA of the commit ``ref`` names."""
        check_ref(ref, what)
        code, out, err = git_status(["rev-parse", "--verify", "--end-of-options", f"{ref}^{{commit}}"], self.path)
        if code == 0:
            return out.strip()
        if "ambiguous" in err:
            raise GitError(
                f"{what} {ref!r} is ambiguous in {display_path(self.path)}", hint="give more hex digits of the SHA"
            )
        shallow = (self.path / ".git" / "shallow").exists()
        raise GitError(
            f"{what} {ref!r} does not name a commit in the code repository {display_path(self.path)}",
            hint="this is a shallow clone: fetch its whole history (git fetch --unshallow)"
            if shallow
            else "check the SHA, or fetch the history that contains it (freezer never fetches)",
        )

    def resolve_object(self, sha: str, what: str = "commit") -> str:
        """The commit whose object id begins with ``sha``, read as an object id only, never as a ref.

        git's own lookup prefers a tag or branch named ``7df885db`` over the commit with that prefix;
        a version's SHAs must name the same commit whatever refs the repository grows. A short SHA
        that is also a ref's name pointing elsewhere, or the prefix of several commits, is refused."""
        check_ref(sha, what)
        prefix = sha.lower()
        if not _OBJECT_ID.fullmatch(prefix):
            raise GitError(f"{what} {sha!r} is not a commit SHA: write 7 to 40 hex digits (git rev-parse gives them)")
        if len(prefix) in _WHOLE_ID_LENGTHS and self._peeled_commit(prefix) == prefix:
            # A whole id names one object, here a commit: the running cat-file process says so, as a
            # rev-parse --disambiguate would (a version pins full SHAs, and a cut or an audit resolves
            # each). Only a whole id is asked: a short one that several objects begin is no answer
            # cat-file can give, and _peeled_commit would then start a rev-parse as well.
            return prefix
        code, out, _ = git_status(["rev-parse", f"--disambiguate={prefix}"], self.path)
        found = out.split() if code == 0 else []
        commits = [oid for oid in found if self._peeled_commit(oid) == oid]
        if len(commits) > 1:
            raise GitError(
                f"{what} {sha!r} is ambiguous in {display_path(self.path)}: it begins {len(commits)} commits",
                hint="give more hex digits of the SHA",
            )
        if not commits:
            return self.resolve(prefix, what)  # raises, with the shallow-clone hint where it applies
        full = commits[0]
        if len(prefix) < len(full):
            for ref, target in self._refs_named(prefix):
                if target != full:
                    raise GitError(
                        f"{what} {sha!r} is ambiguous in {display_path(self.path)}: it is the start of commit "
                        f"{full[:12]} and the name of {ref}, which points at {target[:12]}",
                        hint=f"write the full SHA ({full}), or remove the ref",
                    )
        return full

    def _peeled_commit(self, name: str) -> str | None:
        """The commit a full object id or a full ref name peels to (a commit id: itself), or None.

        Asked of the repository's ``cat-file --batch`` process, not a ``rev-parse`` each: a cut peels
        every candidate of every SHA it resolves, and five ref spellings of each short one. Both look
        ``NAME^{commit}`` up alike (a commit, a tag chain ending at one, a symref, packed or loose
        refs) and both find nothing for a tag of a tree or blob, a dangling symref or a missing name
        (tests/test_pins_are_object_ids.py); cat-file's header names the commit peeled to. Any other
        answer (the process gone, an object git cannot parse) is left to ``rev-parse --verify``, as
        before: cat-file says no more than "not an object" there, and rev-parse's exit code is the rule."""
        try:
            found = self._objects.find(f"{name}^{{commit}}".encode("ascii"))
            if found is None:
                return None
            if found[1] == "commit":
                return found[0]
        except Unreadable:
            pass
        code, out, _ = git_status(
            ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{name}^{{commit}}"], self.path
        )
        return out.strip() if code == 0 else None

    def _refs_named(self, name: str) -> list[tuple[str, str]]:
        """The refs that git's lookup would take ``name`` for (gitrevisions), and the commit each names."""
        found = []
        for ref in (f"refs/{name}", f"refs/tags/{name}", f"refs/heads/{name}", f"refs/remotes/{name}",
                    f"refs/remotes/{name}/HEAD"):  # fmt: skip
            target = self._peeled_commit(ref)
            if target is not None:
                found.append((ref, target))
        return found

    def reachable_from(self, sha: str) -> str:
        """Where ``sha`` is reachable from: the remote-tracking branches that contain it, else the local
        branches, else the empty string (no branch: only the object store holds it)."""
        for option in ("-r", "-l"):
            code, out, _ = git_status(
                ["branch", option, "--format=%(refname:short)", "--contains", check_ref(sha)], self.path
            )
            names = out.split() if code == 0 else []
            if names:
                shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
                return f"remote-tracking {shown}" if option == "-r" else f"local {shown} (on no remote-tracking branch)"
        return ""

    def publication(self, sha: str) -> str | None:
        """Why ``sha`` may exist only on this machine (no remote, or on no remote-tracking branch);
        None when a remote branch holds it."""
        if not self._git("remote").strip():
            return "the code repository has no remote"
        code, out, _ = git_status(["branch", "-r", "--contains", check_ref(sha)], self.path)
        if code == 0 and not out.strip():
            return "no remote-tracking branch of the code repository contains it"
        return None

    def subject(self, sha: str) -> str:
        return self._git("log", "-1", "--no-walk", "--format=%s", "--end-of-options", check_ref(sha)).strip()

    @property
    def identity(self) -> dict[str, Any]:
        """What identifies the repository: its root commits and its origin URL, if any. A shallow
        clone has none to show: its cut-off commits only look like roots."""
        if self._identity is None:
            # An unborn HEAD (an orphan branch checked out, nothing committed on it) names no
            # commit; the repository's branches and tags still say which history it is.
            start = "HEAD" if self._peeled_commit("HEAD") is not None else "--all"
            roots = [] if self.shallow_boundary else self._git("rev-list", "--max-parents=0", start).split()
            code, out, _ = git_status(["config", "--get", "remote.origin.url"], self.path)
            self._identity = {"root_commits": sorted(roots), "origin": out.strip() if code == 0 else None}
        return self._identity

    def tree(self, sha: str) -> dict[str, tuple[str, str]]:
        """Every file path at ``sha`` mapped to (mode, blob sha); read once per commit."""
        cached = self._trees.get(sha)
        if cached is None:
            cached = {path: (mode, blob) for mode, kind, blob, path in self.entries(sha) if kind == "blob"}
            self._trees[sha] = cached
        return cached

    def missing_file_hint(self, path: str, sha: str) -> str:
        """Where ``path``, absent from commit ``sha``, is after all: uncommitted in the working tree,
        or in a later HEAD; "" when git knows it nowhere. Asked only for a file already found missing."""
        code, out, _ = git_status(["status", "--porcelain=v1", "-z", "--", f":(literal){path}"], self.path)
        state = out[:2] if code == 0 else ""
        if state == "??":
            return "; it is in the working tree, never committed: commit it, then pin that commit"
        if state[:1] in ("A", "M", "R", "C"):
            return "; it is staged, not yet committed: commit it, then pin that commit"
        head = self._peeled_commit("HEAD")
        if head is not None and head != sha and path in self.tree(head):
            return f"; it is at HEAD ({head[:8]}): pin a commit that holds it"
        return ""

    def entries(self, sha: str) -> tuple[tuple[str, str, str, str], ...]:
        """(mode, kind, object sha, path) of every entry of the tree at ``sha``, submodules included;
        listed once per commit, for :meth:`tree` too (a cut asks both of the same commits)."""
        cached = self._entries.get(sha)
        if cached is None:
            listing = self._git("ls-tree", "-r", "-z", "--full-tree", check_ref(sha))
            found = []
            for entry in listing.split("\0"):
                if entry:
                    meta, _, path = entry.partition("\t")
                    mode, kind, object_sha = meta.split()
                    found.append((mode, kind, object_sha, path))
            cached = self._entries[sha] = tuple(found)
        return cached

    def stream_blobs(self, shas: list[str]) -> Iterator[bytes]:
        """The bytes of each blob in ``shas``, in order, in one stream (:meth:`CatFile.stream`)."""
        try:
            yield from self._objects.stream(shas)
        except Unreadable as exc:
            raise self._unreadable(exc.name.decode("ascii", "replace")) from None

    def _unreadable(self, sha: str) -> GitError:
        return GitError(
            f"git cannot read object {sha} in {display_path(self.path)} (missing: a partial or damaged "
            "clone?); freezer never fetches",
            hint="make a full clone of the code under test and point code_repo at it",
        )

    def checkout(self, sha: str) -> Path:
        """The tree of ``sha`` written out as files, for ripgrep (:mod:`freezer.git.trees`)."""
        if self._checkouts is None:
            # Local: writing trees out (tempfile, shutil) serves Gate B's rg, not ground truth or a hook.
            from freezer.git.trees import TreeCache

            self._checkouts = TreeCache(self)
        return self._checkouts.path(sha)

    def blob(self, blob_sha: str, keep: bool = True) -> bytes:
        """A blob's bytes, read through the repository's long-lived ``git cat-file --batch``;
        ``keep=False`` reads without keeping them (writing a whole tree out)."""
        data = self._blobs.get(blob_sha)
        if data is None:
            try:
                found = self._objects.get(blob_sha.encode("ascii"))
            except Unreadable:
                found = None
            if found is None:
                raise self._unreadable(blob_sha)
            data = found[1]
            if keep:
                self._blobs[blob_sha] = data
        return data

    def text(self, blob_sha: str) -> str | None:
        """A blob decoded as text (undecodable bytes replaced), or None for a binary blob (a NUL byte)."""
        if blob_sha not in self._texts:
            data = self.blob(blob_sha)
            self._texts[blob_sha] = None if b"\0" in data else data.decode("utf-8", errors="replace")
        return self._texts[blob_sha]

    def lines(self, blob_sha: str) -> list[str]:
        """A blob's lines (the newline ending the last line starts no other), split once per blob
        however many ground-truth sites and greps look into it."""
        if blob_sha not in self._lines:
            text = self.text(blob_sha)
            if text is None:  # a site may point into a file rg would skip as binary
                text = self.blob(blob_sha).decode("utf-8", errors="replace")
            lines = text.split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            self._lines[blob_sha] = lines
        return self._lines[blob_sha]

    def read(self, sha: str, path: str) -> bytes | None:
        entry = self.tree(sha).get(path)
        return None if entry is None else self.blob(entry[1])

    def matching_paths(self, sha: str, glob: str) -> list[str]:
        """Paths at ``sha`` that the tool-surface glob matches, with git's ``:(glob)`` rules."""
        if sha not in self._names:  # encoded once per commit, however many globs are checked
            self._names[sha] = [(path, path.encode("utf-8", "surrogateescape")) for path in self.tree(sha)]
        match = compile_glob(glob).regex.fullmatch
        return [path for path, name in self._names[sha] if match(name)]
