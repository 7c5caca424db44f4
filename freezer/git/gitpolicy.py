"""How every git call freezer makes runs: one executable, one environment, one set of ``-c`` options.

freezer only reads git repositories, and a registry pull request can choose
which repository that is (``code_repo``) and what its own tree holds
(``.gitattributes``, a program named ``git``). So git may do nothing on its own
behalf:

* the git that runs is found once, by absolute path, in the absolute entries
  of ``PATH``: an empty or relative entry (``PATH=:/usr/bin``) would make the
  current folder, a registry or a code checkout, supply ``git``;
* no network and no lazy fetch: a partial clone's missing object is reported,
  never fetched (``GIT_NO_LAZY_FETCH``, and a transport allow-list that names
  no protocol, which also keeps ``core.sshCommand``, ``core.gitProxy``,
  ``remote.*.uploadpack`` and ``ext::`` URLs from ever running);
* no external programs: no fsmonitor, hooks, pager, signature verification
  (``log.showSignature``/``gpg.program``), external diff or textconv, no
  background ``gc``; and freezer asks git only for stored objects (trees,
  blobs, the index's object ids), never for a comparison with the working tree,
  so no filter, ``diff=``/``merge=`` driver, ``ident`` or encoding attribute is
  ever applied (:mod:`freezer.git.worktree` reads the working tree itself);
* no system or user config, no user attributes or excludes file, no mailmap,
  and no inherited ``GIT_*`` variables, so a hook environment (``GIT_DIR``,
  ``GIT_INDEX_FILE``) cannot redirect a call;
* no optional locks: reading never rewrites the index;
* no replacement objects and no grafts: ``git replace`` refs and
  ``info/grafts`` make git show another commit's tree or parents under a SHA,
  so a pinned commit would read as something it is not (``GIT_NO_REPLACE_OBJECTS``,
  and ``GIT_GRAFT_FILE`` pointing at an empty file). freezer reads the objects
  the SHAs name, as a fresh clone would.

Refs that come from users are checked before they reach git, so that a
value such as ``--output=x`` can never be read as an option.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from freezer.domain.errors import FreezerError, GitError, UsageError
from freezer.domain.problems import display_path
from freezer.runtime.programs import find_program, trusted_path

_SAFE_REF = re.compile(r"[A-Za-z0-9._/@{}~^+-]+")

POLICY_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_NO_LAZY_FETCH": "1",
    # An allow-list naming no real protocol: every transport is refused before it connects.
    "GIT_ALLOW_PROTOCOL": "none",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_PAGER": "cat",
    "GIT_ATTR_NOSYSTEM": "1",
    # A SHA names its own object: never a replacement (git replace) nor grafted parents (info/grafts).
    "GIT_NO_REPLACE_OBJECTS": "1",
    "GIT_GRAFT_FILE": os.devnull,
}
POLICY_CONFIG = (
    "protocol.allow=never",
    "core.fsmonitor=false",
    "core.hooksPath=" + os.devnull,
    "core.pager=cat",
    "log.showSignature=false",
    "safe.bareRepository=explicit",
    "color.ui=never",
    "commit.gpgSign=false",
    "tag.gpgSign=false",
    # Files outside the repository that git would otherwise read by default ($XDG_CONFIG_HOME/git/...).
    "core.attributesFile=" + os.devnull,
    "core.excludesFile=" + os.devnull,
    "log.mailmap=false",
    # GIT_GRAFT_FILE names an (empty) graft file, which git would advertise as deprecated on every call.
    "advice.graftFileDeprecated=false",
    # The commits freezer makes (the demo) keep their bytes, and leave no gc running behind them.
    "core.autocrlf=false",
    "gc.auto=0",
    "maintenance.auto=false",
)
_POLICY_OPTIONS = ["--no-pager", *(arg for pair in POLICY_CONFIG for arg in ("-c", pair))]

# Fixed identity for the commits freezer makes itself (the demo and the tests).
DETERMINISTIC_ENV = {
    "GIT_AUTHOR_NAME": "freezer demo",
    "GIT_AUTHOR_EMAIL": "demo@freezer.invalid",
    "GIT_COMMITTER_NAME": "freezer demo",
    "GIT_COMMITTER_EMAIL": "demo@freezer.invalid",
}

_NO_GIT = "git is not installed or not on PATH; freezer reads repositories with it"


def git_executable() -> str:
    """The absolute path of the git every call runs, resolved once per ``PATH``."""
    found = find_program("git")
    if found is None:
        raise UsageError(_NO_GIT, hint="install git (e.g. apt-get install git), in a folder named by its full path")
    return found


def git_argv(args: list[str]) -> list[str]:
    return [git_executable(), *_POLICY_OPTIONS, *args]


def git_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The caller's environment without any ``GIT_*`` variable, plus the policy; ``PATH`` keeps only
    absolute entries, so nothing git starts is looked up in the current folder either."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    return {**env, "PATH": trusted_path(), **POLICY_ENV, **(extra or {})}


def check_ref(ref: str, what: str = "ref") -> str:
    """Refuse refs that git could read as options or that hold odd characters."""
    if not ref or ref.startswith("-"):
        raise GitError(f"{what} {ref!r} looks like an option; refusing to pass it to git")
    if not _SAFE_REF.fullmatch(ref) or ".." in ref:
        raise GitError(f"{what} {ref!r} is not a valid git ref or commit id")
    return ref


def cat_file_batch(cwd: Path) -> subprocess.Popen[bytes]:
    """A ``git cat-file --batch`` process under the policy, for reading many objects in one process."""
    argv = git_argv(["cat-file", "--batch"])
    try:
        return subprocess.Popen(
            argv, cwd=cwd, env=git_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
    except (FileNotFoundError, NotADirectoryError):
        raise _launch_failure(cwd) from None


def _launch_failure(cwd: Path) -> FreezerError:
    if not Path(cwd).is_dir():
        return GitError(f"{display_path(cwd)} is not a folder")
    return UsageError(_NO_GIT, hint="install git (e.g. apt-get install git)")


def git_status(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run git under the policy; (exit code, stdout, stderr). A file name that is not UTF-8 keeps
    its bytes as surrogates. Refs that come from users are checked with :func:`check_ref` first."""
    argv = git_argv(args)
    try:
        result = subprocess.run(
            argv, cwd=cwd, env=git_env(env), capture_output=True, stdin=subprocess.DEVNULL, check=False
        )
    except (FileNotFoundError, NotADirectoryError):
        raise _launch_failure(cwd) from None
    stderr = result.stderr.decode("utf-8", errors="replace")
    return result.returncode, result.stdout.decode("utf-8", errors="surrogateescape"), stderr


def run_git(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run git under the policy; its output as text, or :class:`GitError` with git's message."""
    code, out, err = git_status(args, cwd, env)
    if code != 0:
        raise GitError(f"git {' '.join(args[:2])} failed in {display_path(cwd)}: {err.strip()}")
    return out
