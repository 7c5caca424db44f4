"""The code repository's history: which commits lie between versions, and whether git can show them.

A shallow clone's cut-off commits read as parentless commits that add every file they hold, so
every walk of the history first makes sure no cut lies inside it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from freezer.domain.errors import FreezerError, GitError
from freezer.domain.problems import display_path
from freezer.git.gitpolicy import check_ref, git_status, run_git
from freezer.runtime.reading import read_whole

_FULL_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


@dataclass(frozen=True)
class Commit:
    """A commit of the code repository as ``git log`` lists it, with the paths it touches within the pathspecs asked."""

    sha: str
    subject: str
    paths: tuple[str, ...]


def _range(excluded: Sequence[str], tips: Sequence[str]) -> str:
    shown = ", ".join(t[:8] for t in tips)
    return (
        f"the history from {', '.join(e[:8] for e in excluded)} to {shown}" if excluded else f"the history of {shown}"
    )


class History:
    """The history walks of :class:`freezer.git.gitrepo.CodeRepo` (read-only, under the git policy)."""

    path: Path
    _is_shallow: bool  # what ``git rev-parse --is-shallow-repository`` said when the repository was opened
    _shallow: tuple[str, ...] | None = None

    def _git(self, *args: str) -> str:
        return run_git(list(args), self.path)

    @property
    def shallow_boundary(self) -> tuple[str, ...]:
        """The commits at which a shallow clone's history is cut (empty for a full clone): git
        shows each as a parentless commit that adds every file it holds."""
        if self._shallow is None:
            self._shallow = ()
            if self._is_shallow:
                shallow = Path(self._git("rev-parse", "--absolute-git-dir").strip()) / "shallow"
                try:  # bounded, regular files only: a code repository's .git is as untrusted as its tree
                    self._shallow = tuple(read_whole(shallow).decode("ascii").split())
                except (FreezerError, UnicodeDecodeError):
                    self._shallow = ("(unreadable .git/shallow)",)
        return self._shallow

    def require_whole_history(self, excluded: Sequence[str], tips: Sequence[str], what: str) -> None:
        """Refuse to read the history from ``excluded`` to ``tips`` when a shallow clone cuts it: a
        cut-off commit would read as a root that adds every file, or hide the commits before it."""
        for cut in self.shallow_boundary:
            if not _FULL_SHA.fullmatch(cut):
                raise GitError(f"{display_path(self.path)} is a shallow clone whose cut-off list cannot be read")
            inside = any(self.is_ancestor(cut, tip) for tip in tips)
            if inside and not any(self.is_ancestor(cut, old) for old in excluded):
                raise GitError(
                    f"the code repository {display_path(self.path)} is a shallow clone, and its history is cut "
                    f"at {cut[:12]}, inside {what}: freezer cannot see the commits before it",
                    hint="fetch its whole history (git fetch --unshallow); freezer never fetches",
                )

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        code, _, err = git_status(
            ["merge-base", "--is-ancestor", check_ref(ancestor), check_ref(descendant)], self.path
        )
        if code > 1:
            raise GitError(f"git merge-base failed in {display_path(self.path)}: {err.strip()}")
        return code == 0

    def commits_touching(
        self,
        excluded: Sequence[str],
        tips: Sequence[str],
        globs: Sequence[str],
        magic: str = "glob",
        walk: bool = True,
        literal: Sequence[str] = (),
    ) -> list[Commit]:
        """Commits reachable from ``tips`` and from none of ``excluded``, touching ``globs``
        (git pathspecs with ``magic``: "glob" for tool-surface globs, "literal" for file names)
        or the ``literal`` paths (what the surface's links and submodules lead to).
        Without ``walk``, only the ``tips`` themselves are looked at.

        A merge's paths are those it brings to its first parent (``--diff-merges=first-parent``):
        git shows no paths for a merge by default. Which commits are listed is git's default
        history simplification, so a merge is listed only when it differs from every parent
        within the pathspecs, and a side branch it took nothing from is not walked."""
        if not (globs or literal) or not tips:
            return []
        revs = [check_ref(t) for t in tips] + [f"^{check_ref(e)}" for e in excluded]
        if walk:
            self.require_whole_history(excluded, tips, _range(excluded, tips))
        out = self._git(
            "log",
            *(() if walk else ("--no-walk=unsorted",)),
            "--no-ext-diff",
            "--no-textconv",
            "--format=%x00%H%x01%s",
            "--name-only",
            "--no-renames",
            "--diff-merges=first-parent",
            *revs,
            "--",
            *(f":({magic}){g}" for g in globs),
            *(f":(literal){p}" for p in literal),
        )
        commits = []
        for record in out.split("\0"):
            if not record.strip():
                continue
            head, _, names = record.partition("\n")
            sha, _, subject = head.partition("\x01")
            commits.append(Commit(sha, subject, tuple(n for n in names.split("\n") if n)))
        return commits

    def count(self, excluded: str, tip: str) -> int:
        """How many commits ``tip`` has that ``excluded`` has not."""
        self.require_whole_history((excluded,), (tip,), _range((excluded,), (tip,)))
        return int(self._git("rev-list", "--count", check_ref(tip), f"^{check_ref(excluded)}").strip())
