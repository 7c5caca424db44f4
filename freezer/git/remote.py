"""The commit a branch or tag of a repository names today: ``git ls-remote``, for ``freezer lock`` alone.

Every other git call freezer makes refuses every transport (:mod:`freezer.git.gitpolicy`); this one
is the exception ``freezer lock`` needs, the one command allowed to reach a repository. It keeps
the rest of the policy (no outside config, no hooks, no ``GIT_*`` from the caller) and allows only
the transports that read a repository: ``file``, ``git``, ``http(s)`` and ``ssh``, never ``ext::``
(which runs a program the URL names). It runs in an empty folder, so no repository's own config
(``url.<base>.insteadOf``, a remote named like the URL) changes what the URL means.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from freezer.domain.errors import GitError
from freezer.git.gitpolicy import check_ref, git_status

_ALLOWED = "file:git:http:https:ssh"
_COMMIT = re.compile(r"^[0-9a-f]{40}$")


def remote_commit(url: str, ref: str, base: Path) -> str:
    """The commit ``ref`` (a branch or tag name, or a full ``refs/…`` name) names in the repository
    at ``url`` today; a relative path is read from ``base``. An annotated tag is peeled to its
    commit. :class:`GitError` when the repository cannot be read, or names no such ref, or names
    both a branch and a tag by it."""
    check_ref(ref, f"the revision of git source {url}")
    if url.startswith("-"):
        raise GitError(f"git source {url!r} looks like an option; refusing to pass it to git")
    where = url if ":" in url or Path(url).is_absolute() else str((base / url).resolve())
    wanted = [ref] if ref.startswith("refs/") else [f"refs/heads/{ref}", f"refs/tags/{ref}"]
    # Overrides protocol.allow=never for this call alone: each listed transport is allowed.
    env = {"GIT_ALLOW_PROTOCOL": _ALLOWED}
    args = ["ls-remote", where, *wanted, *(f"{name}^{{}}" for name in wanted)]
    with tempfile.TemporaryDirectory(prefix="freezer-ls-remote-") as empty:
        code, out, err = git_status(args, Path(empty), env)
    if code != 0:
        raise GitError(f"git source {url}: cannot read the repository: {err.strip() or f'git exited {code}'}")
    found: dict[str, str] = {}
    for line in out.splitlines():
        sha, _, name = line.partition("\t")
        if _COMMIT.match(sha):
            # name^{} is the commit an annotated tag points to: it wins over the tag object's own id
            peeled = name.removesuffix("^{}")
            if name.endswith("^{}") or peeled not in found:
                found[peeled] = sha
    named = sorted(name for name in found if name in wanted)
    if not named:
        raise GitError(
            f"git source {url}: no branch or tag is named {ref!r}",
            hint="write the branch or tag the source follows, or a full commit SHA, as its revision",
        )
    if len(named) > 1:
        raise GitError(
            f"git source {url}: {ref!r} names both {named[0]} and {named[1]}",
            hint=f"write the full name (e.g. {named[0]}) as the source's revision",
        )
    return found[named[0]]
