"""The registry's own git repository, for the pre-merge guard (``freezer check``).

Every call runs through :func:`freezer.gitrepo.run_git`, under the same policy as
the code repository's: no configured program, no fetch, no hooks.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path, PurePosixPath

from freezer.errors import GitError, UsageError
from freezer.gitrepo import check_ref, git_argv, git_env, run_git

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

    def resolve(self, ref: str) -> str:
        check_ref(ref, "base ref")
        try:
            return self._run("rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}").strip()
        except GitError:
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
        if in_ci:
            wanted = f"origin/{target}" if target else "the branch this change merges into"
            raise UsageError(
                f"the base {wanted} is not fetched, so freezer cannot tell what was frozen before this change",
                hint=(f"fetch it first (git fetch origin {target}; " if target else "pass --base REF (")
                + "with actions/checkout, set fetch-depth: 0)",
            )
        try:
            head = self._run("rev-parse", "--verify", "--quiet", "HEAD^{commit}").strip()
        except GitError:
            return EMPTY_TREE, "nothing committed yet: every version is new"
        return (
            head,
            "HEAD: no upstream branch or origin/HEAD found, so only uncommitted changes are checked; pass --base",
        )

    def show(self, ref: str, path: str) -> bytes | None:
        """The bytes of ``path`` (relative to the registry root) at ``ref``, or None if it is not there."""
        result = subprocess.run(
            git_argv(["cat-file", "blob", f"{check_ref(ref)}:./{path}"]),
            cwd=self.root,
            env=git_env(),
            capture_output=True,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        return result.stdout if result.returncode == 0 else None

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

    def untracked(self, pathspecs: list[str]) -> list[str]:
        """Files under ``pathspecs`` that git does not track (and does not ignore)."""
        out = self._run("ls-files", "--others", "--exclude-standard", "-z", "--", *pathspecs)
        return [name for name in out.split("\0") if name]

    def names_at(self, ref: str, folder: str) -> set[str]:
        """The entries directly inside ``folder`` at ``ref`` (one tree level: cheap however big it is)."""
        out = self._run("ls-tree", "--name-only", "-z", ref, "--", folder.rstrip("/") + "/")
        return {PurePosixPath(name).name for name in out.split("\0") if name}

    def has_path(self, ref: str, path: str) -> bool:
        return bool(self._run("ls-tree", "--name-only", ref, "--", path).strip())
