"""The registry's own git repository, for the pre-merge guard (``freezer check``).

Every call runs through :func:`freezer.gitrepo.run_git`, under the same policy as
the code repository's: no configured program, no fetch, no hooks.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from freezer.errors import GitError, UsageError
from freezer.gitrepo import cat_file_batch, check_ref, run_git
from freezer.problems import display_path

# git's empty tree: the base of a registry with nothing committed yet.
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


class RegistryGit:
    """The registry's own git repository, for the pre-merge guard."""

    def __init__(self, root: Path) -> None:
        self.root = root

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
        check_ref(ref, "base ref")
        try:
            return self._run("rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}").strip()
        except GitError:
            self.require_repo()
            raise UsageError(
                f"base ref {ref!r} does not name a commit in the registry repository",
                hint="fetch it first (e.g. git fetch origin main) or pass --base",
            ) from None

    def default_base(self) -> tuple[str, str]:
        """The base a CI user expects: the pull request's target, the upstream, origin's default branch.

        Under CI a base that is not fetched is an error, never a silent fallback: comparing with
        HEAD would pass a committed tamper. A local run with none of them compares with HEAD and
        says so.
        """
        target = os.environ.get("GITHUB_BASE_REF")
        in_ci = bool(target) or os.environ.get("GITHUB_ACTIONS") == "true" or os.environ.get("CI") == "true"
        candidates = [f"origin/{target}"] if target else ["@{upstream}", "origin/HEAD"]
        for candidate in candidates:
            try:
                tip = self._run("rev-parse", "--verify", "--quiet", f"{candidate}^{{commit}}").strip()
            except GitError:
                continue
            try:
                base = self._run("merge-base", tip, "HEAD").strip()
            except GitError:
                raise UsageError(
                    f"HEAD and {candidate} share no history in the registry repository, so freezer cannot tell "
                    "what was frozen before this change",
                    hint="fetch the full history (git fetch --unshallow, or actions/checkout with fetch-depth: 0) "
                    "or pass --base",
                ) from None
            return base, f"merge-base of HEAD and {candidate}"
        self.require_repo()
        try:
            head = self._run("rev-parse", "--verify", "--quiet", "HEAD^{commit}").strip()
        except GitError:
            # An unborn HEAD has no base to fetch, in CI or not: nothing can have been frozen yet.
            return EMPTY_TREE, "nothing committed yet: every version is new"
        if in_ci:
            wanted = f"origin/{target}" if target else "the branch this change merges into"
            raise UsageError(
                f"the base {wanted} is not fetched, so freezer cannot tell what was frozen before this change",
                hint=(f"fetch it first (git fetch origin {target}; " if target else "pass --base REF (")
                + "with actions/checkout, set fetch-depth: 0)",
            )
        return (
            head,
            "HEAD: no upstream branch or origin/HEAD found, so only uncommitted changes are checked; pass --base",
        )

    def at(self, ref: str) -> BaseTree:
        """Files and folders of commit ``ref``, read through one ``git cat-file --batch``."""
        return BaseTree(self.root, ref)

    def changes(self, base: str, pathspecs: list[str]) -> list[tuple[str, str]]:
        """(status, path) for every tracked difference between ``base`` and the working tree (staged included)."""
        out = self._run(
            "diff",
            "--no-ext-diff",
            "--no-textconv",
            "--name-status",
            "--no-renames",
            "--relative",
            "-z",
            base,
            "--",
            *pathspecs,
        )
        fields = [f for f in out.split("\0") if f]
        return list(zip(fields[::2], fields[1::2], strict=False))

    def names_at(self, ref: str, folder: str) -> set[str]:
        """The entries directly inside ``folder`` at ``ref`` (one tree level: cheap however big it is)."""
        out = self._run("ls-tree", "--name-only", "-z", ref, "--", folder.rstrip("/") + "/")
        return {PurePosixPath(name).name for name in out.split("\0") if name}

    def has_path(self, ref: str, path: str) -> bool:
        return bool(self._run("ls-tree", "--name-only", ref, "--", path).strip())


class BaseTree:
    """Read blobs and folder listings of one commit through a single ``git cat-file --batch``:
    the pre-merge check reads a config and a folder or two, and each git process costs ~4 ms."""

    def __init__(self, root: Path, ref: str) -> None:
        self._ref = check_ref(ref)
        self._proc = cat_file_batch(root)

    def __enter__(self) -> BaseTree:
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.close()
        self._proc.wait()
        self._proc.stdout.close()

    def _object(self, path: str) -> tuple[str, bytes] | None:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        if "\n" in path:
            return None
        self._proc.stdin.write(f"{self._ref}:./{path}\n".encode("utf-8", "surrogateescape"))
        self._proc.stdin.flush()
        header = self._proc.stdout.readline().split()
        if len(header) != 3:
            return None  # "missing": not in that commit
        data = self._proc.stdout.read(int(header[2]))
        self._proc.stdout.read(1)
        return header[1].decode("ascii"), data

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
