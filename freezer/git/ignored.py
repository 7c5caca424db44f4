"""The files of a folder that git ignores: what ``git add -A`` leaves out, so a clone never has them.

A frozen version must be exactly what git publishes: a file of the drafts that
git ignores (a ``__pycache__/`` or ``.DS_Store`` line in ``.gitignore``) would
otherwise be frozen and listed in the manifest, pass every check on the
author's machine, and be missing from every clone. One ``git ls-files
--others --ignored --exclude-standard`` answers for a whole folder; it reads
the working tree's names and the repository's ignore files (``.gitignore``
files, ``.git/info/exclude``), never a file's content, so no filter runs. The
user's global excludes file is not read (the policy of
:mod:`freezer.git.gitpolicy`): what a clone publishes must not depend on one
author's machine. A tracked file is never among the ignored: git publishes it
whatever ``.gitignore`` says.
"""

from __future__ import annotations

from pathlib import Path

from freezer.domain.errors import GitError, UsageError
from freezer.domain.problems import display_path
from freezer.git.gitpolicy import git_status


def ignored_files(folder: Path) -> frozenset[str] | None:
    """Every file under ``folder`` that git ignores, '/'-separated and relative to it; None where
    ``folder`` lies in no git working tree (or git is not installed), so git publishes nothing."""
    # Not --directory: git (2.39) fails with an internal error on it when the folder itself is ignored.
    args = ["ls-files", "-z", "--others", "--ignored", "--exclude-standard"]
    try:
        code, out, err = git_status(args, folder)
    except UsageError:  # no git on this machine: nothing here is published through it
        return None
    if code != 0:
        if "not a git repository" in err:
            return None
        raise GitError(f"git ls-files failed in {display_path(folder)}: {err.strip()}")
    return frozenset(path for path in out.split("\0") if path)
