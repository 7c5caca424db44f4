"""What the tool surface is made of at a commit: its globs, and what its links and submodules lead to.

A glob names paths; the tools read content. A file under a glob that is a
symbolic link shows whatever its target holds, wherever that is, and a
submodule under a glob (or above one: ``vendor/lib`` for ``vendor/lib/tools/**``)
changes when its gitlink is bumped, which no path inside it records. So the
scan follows them: each link's target, resolved in the commit's own tree
(links along the way included), is scanned as a literal path; each gitlink is
scanned as the path it sits at, and its submodule's history between the two
gitlink commits is read when the submodule's repository is there. What cannot
be followed (a link that leaves the repository, is absolute, dangles or loops;
a submodule whose repository or commits are not present) is *unknown*, with
the reason: never "did not move".
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass, field

from freezer.domain.errors import GitError
from freezer.domain.manifest import Followed, ScanUnknown, SubmoduleScan, TouchingCommit
from freezer.git.gitrepo import CodeRepo
from freezer.git.globs import GlobError, compile_glob

_LINK = "120000"
_MAX_LINKS = 40  # as the kernel's own limit on links followed in one lookup (ELOOP)


@dataclass
class Surface:
    """What the scan covers besides its globs, found at a set of commits."""

    literal: list[str] = field(default_factory=list)  # paths scanned as they are (targets, gitlinks)
    followed: list[Followed] = field(default_factory=list)
    unknown: list[ScanUnknown] = field(default_factory=list)
    gitlinks: dict[str, str] = field(default_factory=dict)  # gitlink path -> the globs it is under or above

    def add(self, path: str, via: str, target: str) -> None:
        item = Followed(path, via, target)
        if item not in self.followed:
            self.followed.append(item)
        if target not in self.literal:
            self.literal.append(target)

    def unknowable(self, path: str, why: str) -> None:
        item = ScanUnknown(path, why)
        if item not in self.unknown:
            self.unknown.append(item)


def _components(glob: str) -> list[str]:
    return [c for c in posixpath.normpath(glob).split("/") if c not in ("", ".")]


def above(path: str, glob: str) -> bool:
    """Could ``glob`` name a path inside the folder ``path`` (a link or a submodule there)?"""
    parts, wanted = path.split("/"), _components(glob)
    for index, part in enumerate(parts):
        if index >= len(wanted):
            return False
        if wanted[index] == "**":
            return True
        try:
            if not compile_glob(wanted[index]).matches(part):
                return False
        except GlobError:
            return False
    return len(wanted) > len(parts)


class _Tree:
    """One commit's entries, with symbolic links resolved the way a checkout would read them."""

    def __init__(self, repo: CodeRepo, sha: str) -> None:
        self.repo = repo
        self.sha = sha
        self.links: dict[str, str] = {}
        self.gitlinks: dict[str, str] = {}
        self.paths: set[str] = set()
        self.folders: set[str] = set()
        for mode, kind, oid, path in repo.entries(sha):
            self.paths.add(path)
            if kind == "commit":
                self.gitlinks[path] = oid
            elif mode == _LINK:
                self.links[path] = oid
            parent = posixpath.dirname(path)
            while parent and parent not in self.folders:
                self.folders.add(parent)
                parent = posixpath.dirname(parent)

    def target(self, link: str) -> str:
        return self.repo.blob(self.links[link]).decode("utf-8", "surrogateescape")

    def resolve(self, link: str, surface: Surface) -> str | None:
        """The path ``link`` leads to inside the repository, every link on the way followed and
        recorded (a retarget of any of them changes what the tools read); None, with the reason
        recorded as unknown, when it cannot be followed."""
        first = self.target(link)
        if first.startswith("/"):
            surface.unknowable(link, f"a symbolic link to {first!r}, outside the repository")
            return None
        done = [p for p in posixpath.dirname(link).split("/") if p]
        pending = [p for p in first.split("/") if p]
        hops = 0
        while pending:
            part = pending.pop(0)
            if part == ".":
                continue
            if part == "..":
                if not done:
                    surface.unknowable(link, f"a symbolic link to {first!r}, which leaves the repository")
                    return None
                done.pop()
                continue
            done.append(part)
            here = "/".join(done)
            if here in self.gitlinks:
                return here  # inside a submodule: its gitlink is what moves
            if here in self.links:
                hops += 1
                text = self.target(here)
                if hops > _MAX_LINKS or text.startswith("/"):
                    why = "a loop of symbolic links" if hops > _MAX_LINKS else f"{text!r}, outside the repository"
                    surface.unknowable(link, f"a symbolic link that leads through {here} to {why}")
                    return None
                surface.add(link, "symlink", here)
                done.pop()
                pending = [*(p for p in text.split("/") if p), *pending]
        resolved = "/".join(done)
        if not resolved:
            surface.unknowable(link, "a symbolic link to the top of the repository: the whole tree")
            return None
        if resolved not in self.paths and resolved not in self.folders:
            surface.unknowable(link, f"a symbolic link to {first!r}, which is not in the tree at {self.sha[:8]}")
            return None
        return resolved


def follow(repo: CodeRepo, shas: Sequence[str], globs: Sequence[str]) -> Surface:
    """Everything the scan must watch besides ``globs``, from the trees at ``shas`` (both ends)."""
    surface = Surface()
    compiled = []
    for glob in globs:
        try:
            compiled.append((glob, compile_glob(glob)))
        except GlobError:
            continue  # the config check reports it where it is written
    for sha in dict.fromkeys(shas):
        tree = _Tree(repo, sha)
        for path in sorted([*tree.links, *tree.gitlinks]):
            under = [g for g, c in compiled if c.matches(path)]
            over = [g for g, _ in compiled if above(path, g)]
            if not under and not over:
                continue
            if path in tree.gitlinks:
                surface.gitlinks[path] = ", ".join([*under, *over])
                surface.add(path, "gitlink", path)
                continue
            resolved = tree.resolve(path, surface)
            if resolved is None:
                continue
            if resolved in tree.gitlinks:
                surface.gitlinks.setdefault(resolved, ", ".join([*under, *over]))
            surface.add(path, "symlink", resolved)
    return surface


def submodule_history(repo: CodeRepo, path: str, before: str | None, after: str | None) -> SubmoduleScan:
    """What a gitlink bump brings: the submodule's commits from ``before`` to ``after`` when its
    repository is checked out at ``path`` and holds both; else why it cannot be read."""
    if before is None or after is None:
        how = "added" if before is None else "removed"
        return SubmoduleScan(path, before, after, (), f"the submodule was {how}; its whole content is new or gone")
    try:
        sub = CodeRepo(repo.path / path, f"submodule {path}")
    except GitError:
        return SubmoduleScan(
            path, before, after, (), "the submodule's repository is not present (git submodule update --init)"
        )
    with sub:
        for sha in (before, after):
            try:
                sub.resolve_object(sha, "gitlink commit")
            except GitError:
                return SubmoduleScan(
                    path, before, after, (), f"the submodule's repository does not hold commit {sha[:12]}"
                )
        commits = [
            TouchingCommit(c.sha, c.subject, tuple(c.paths)) for c in sub.commits_touching((before,), (after,), ("**",))
        ]
    return SubmoduleScan(path, before, after, tuple(commits), None)
