"""The files of a folder that git ignores: what ``git add -A`` leaves out, so a clone never has them.

A frozen version must be exactly what git publishes: a file of the drafts that
git ignores (a ``__pycache__/`` or ``.DS_Store`` line in ``.gitignore``) would
otherwise be frozen and listed in the manifest, pass every check on the
author's machine, and be missing from every clone. One ``git ls-files
--others --ignored --exclude-standard`` answers for a whole folder; it reads
the working tree's names and the repository's ignore files (``.gitignore``
files, ``.git/info/exclude``), never a file's content, so no filter runs. The
user's global excludes file is read too (``core.excludesFile`` of the user's
git config, by default ``$XDG_CONFIG_HOME/git/ignore``), though the policy of
:mod:`freezer.git.gitpolicy` reads no user config otherwise: ``git add -A`` on
the author's machine honours it, so a file it ignores would be frozen, never
committed, and missing from every clone. Only that one key is read, from the
two files git reads it from, with ``git config --file``. A tracked file is
never among the ignored: git publishes it whatever ``.gitignore`` says.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from freezer.domain.errors import GitError, UsageError
from freezer.domain.problems import display_path
from freezer.git.gitpolicy import git_status
from freezer.runtime.limits import MAX_DOCUMENT_BYTES
from freezer.runtime.reading import ReadRefused, read_bounded


class IgnoredFiles:
    """What git ignores under each of a command's drafts folders: one git process for all of them
    where they share a working tree (a check of five suites ran five, each a pre-commit hook's
    milliseconds); otherwise each folder is asked alone when it is asked about, as
    :func:`ignored_files` asks, so a missing folder fails only where it is read."""

    def __init__(self, folders: Iterable[Path]) -> None:
        self._folders = list(dict.fromkeys(folders))
        self._known: dict[Path, frozenset[str] | None] | None = None

    def under(self, folder: Path) -> frozenset[str] | None:
        """As :func:`ignored_files` for ``folder``; on the first call, git is asked for every folder
        that one call can answer for."""
        if self._known is None:
            self._known = _ignored_by_folder([f for f in self._folders if f.is_dir()])
        if folder in self._known:
            return self._known[folder]
        return ignored_files(folder)


def _ignored_by_folder(folders: list[Path]) -> dict[Path, frozenset[str] | None]:
    shared = _shared_folder(folders) if len(folders) > 1 else None
    if shared is None:
        return {}
    inside = {folder: folder.absolute().relative_to(shared).as_posix() for folder in folders}
    # No pathspec when a folder is the shared one: git walks that folder whole anyway.
    within = [] if "." in inside.values() else [f":(literal){rel}/" for rel in sorted(set(inside.values()))]
    listed = ignored_files(shared, within)
    if listed is None:
        return dict.fromkeys(folders)
    found: dict[Path, frozenset[str] | None] = {}
    for folder, rel in inside.items():
        prefix = "" if rel == "." else rel + "/"
        found[folder] = frozenset(path[len(prefix) :] for path in listed if path.startswith(prefix))
    return found


def _shared_folder(folders: list[Path]) -> Path | None:
    """The folder above all of ``folders`` from which one ``git ls-files`` answers for each as asking
    from the folder itself would, or None. It does when git, looking for the repository upwards from
    each folder, would pass nothing but plain folders on one file system until it reaches the
    shared one: no ``.git`` (a nested repository, a submodule, a worktree), nothing git could take
    for a bare repository, no symbolic link, no mount point in between; and a repository without
    submodules, since git does not list what lies in one that is not checked out, which a call from
    inside it does. Otherwise each folder is asked apart."""
    absolute = [folder.absolute() for folder in folders]
    if any(os.path.normpath(folder) != str(folder) or ".git" in folder.parts for folder in absolute):
        # A "..": git names what it lists by the folders it walked, which these would not match;
        # a folder inside .git: git lists nothing there from the top, and fails from inside it.
        return None
    try:
        shared = Path(os.path.commonpath(absolute))
        device = shared.stat().st_dev
        for folder in absolute:
            for level in (folder, *folder.parents):
                if level == shared:
                    break
                if level.is_symlink() or not level.is_dir() or level.stat().st_dev != device:
                    return None
                if os.path.lexists(level / ".git") or _looks_like_a_git_folder(level):
                    return None
        for level in (shared, *shared.parents):  # the repository's top, found as git finds it
            if os.path.lexists(level / ".git"):
                return None if os.path.lexists(level / ".gitmodules") else shared
    except (OSError, ValueError):
        return None
    return shared


def _looks_like_a_git_folder(folder: Path) -> bool:
    """What git's search for a repository would stop at as a bare one (HEAD, objects/, refs/)."""
    return (folder / "HEAD").is_file() and (folder / "objects").is_dir() and (folder / "refs").is_dir()


def ignored_files(folder: Path, within: Sequence[str] = ()) -> frozenset[str] | None:
    """Every file under ``folder`` (under its pathspecs ``within``, when given) that git ignores,
    '/'-separated and relative to it; None where ``folder`` lies in no git working tree (or git is
    not installed), so git publishes nothing."""
    # Not --directory: git (2.39) fails with an internal error on it when the folder itself is ignored.
    args = ["ls-files", "-z", "--others", "--ignored"]
    try:
        excludes = _global_excludes(folder)
        # Before --exclude-standard: of the exclude files, the later given wins, and git ranks the
        # repository's info/exclude above the user's global file.
        args += [f"--exclude-from={excludes}"] if excludes is not None else []
        args.append("--exclude-standard")
        args += ["--", *within] if within else []
        code, out, err = git_status(args, folder)
    except UsageError:  # no git on this machine: nothing here is published through it
        return None
    if code != 0:
        if "not a git repository" in err:
            return None
        raise GitError(f"git ls-files failed in {display_path(folder)}: {err.strip()}")
    return frozenset(path for path in out.split("\0") if path)


def _global_excludes(folder: Path) -> Path | None:
    """The user's global excludes file, as ``git add`` finds it: ``core.excludesFile`` of
    ``$XDG_CONFIG_HOME/git/config`` then ``~/.gitconfig`` (the later wins), else
    ``$XDG_CONFIG_HOME/git/ignore``; None when that file does not exist."""
    home = Path(os.environ.get("HOME") or Path.home())
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    named = None
    for config in (xdg / "git" / "config", home / ".gitconfig"):
        if not config.is_file() or not _may_name_excludes(config):
            continue
        code, out, _ = git_status(["config", "--file", str(config), "--path", "--get", "core.excludesFile"], folder)
        if code == 0 and out.strip():
            named = out.strip()
    path = Path(named) if named else xdg / "git" / "ignore"
    return path if path.is_file() else None


def _may_name_excludes(config: Path) -> bool:
    """Whether the config file holds the key at all (git's keys are case-insensitive): git is asked
    only then, which spares a pre-commit hook one git process on the usual ~/.gitconfig. ``--file``
    follows no ``include``, so a file without the word cannot set it."""
    try:
        return b"excludesfile" in read_bounded(config, MAX_DOCUMENT_BYTES).lower()
    except (OSError, ReadRefused):
        return True  # a link (dotfiles often are), too large, unreadable here: git says what it makes of it
