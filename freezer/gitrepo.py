"""Every git call freezer makes goes through this module.

Refs that come from users are checked before they reach git, so that a
value such as ``--output=x`` can never be read as an option. Blob contents
are read through one long-lived ``git cat-file --batch`` process (GitPython's
persistent command), and each commit's tree listing is read once.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import Any

from freezer.errors import GitError
from freezer.problems import display_path

_SAFE_REF = re.compile(r"^[A-Za-z0-9._/@{}~^+-]+$")

# Fixed identity and no user or system config, so demo commits are reproducible.
DETERMINISTIC_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "freezer demo",
    "GIT_AUTHOR_EMAIL": "demo@freezer.invalid",
    "GIT_COMMITTER_NAME": "freezer demo",
    "GIT_COMMITTER_EMAIL": "demo@freezer.invalid",
    "GIT_TERMINAL_PROMPT": "0",
}


def check_ref(ref: str, what: str = "ref") -> str:
    """Refuse refs that git could read as options or that hold odd characters."""
    if not ref or ref.startswith("-"):
        raise GitError(f"{what} {ref!r} looks like an option; refusing to pass it to git")
    if not _SAFE_REF.match(ref) or ".." in ref:
        raise GitError(f"{what} {ref!r} is not a valid git ref or commit id")
    return ref


@dataclass(frozen=True)
class Commit:
    sha: str
    subject: str
    paths: tuple[str, ...]


class CodeRepo:
    """Read-only access to the git repository of the code under test."""

    def __init__(self, path: Path, configured_at: str = "freezer.yaml") -> None:
        self.path = path
        where = f"{configured_at}: code_repo {display_path(path)}"
        hint = "point code_repo in freezer.yaml at a clone of the code under test"
        if not path.exists():
            raise GitError(f"{where} does not exist", hint=hint)
        if not path.is_dir():
            raise GitError(f"{where} is not a folder", hint=hint)
        # Its own top level, not a folder inside some other repository.
        try:
            top = Path(self._git("rev-parse", "--show-toplevel").strip()).resolve()
        except GitError:
            top = None
        if top != path.resolve():
            raise GitError(f"{where} is not a git repository", hint=hint)
        if not self._git("rev-list", "--all", "--max-count=1").strip():
            raise GitError(f"{where} has no commits", hint=hint)
        self._trees: dict[str, dict[str, tuple[str, str]]] = {}
        self._blobs: dict[str, bytes] = {}
        self._texts: dict[str, str | None] = {}
        self._lines: dict[str, list[str]] = {}
        self._batch: subprocess.Popen[bytes] | None = None

    @cached_property
    def repo(self) -> Any:
        """The GitPython repository, opened only by the operations that use it (refs and history)."""
        import git

        return git.Repo(self.path)

    def close(self) -> None:
        if self._batch is not None:
            if self._batch.stdin:
                self._batch.stdin.close()
            self._batch.wait()
            if self._batch.stdout:
                self._batch.stdout.close()
            self._batch = None
        if "repo" in self.__dict__:
            self.repo.close()

    def __enter__(self) -> CodeRepo:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _git(self, *args: str) -> str:
        return run_git(list(args), self.path, {"GIT_TERMINAL_PROMPT": "0"})

    def resolve(self, ref: str, what: str = "commit") -> str:
        """The full 40-hex SHA of the commit ``ref`` names."""
        check_ref(ref, what)
        import git

        try:
            out = self.repo.git.execute(
                ["git", "rev-parse", "--verify", "--end-of-options", f"{ref}^{{commit}}"],
                with_extended_output=True,
            )
            sha = str(out[1]).strip()
        except git.GitCommandError as exc:
            stderr = str(exc.stderr or "")
            if "ambiguous" in stderr:
                raise GitError(
                    f"{what} {ref!r} is ambiguous in {display_path(self.path)}",
                    hint="give more hex digits of the SHA",
                ) from None
            raise GitError(
                f"{what} {ref!r} does not name a commit in {display_path(self.path)}",
                hint="check the SHA, or fetch the history that contains it",
            ) from None
        return sha

    @cached_property
    def identity(self) -> dict[str, Any]:
        """What identifies the repository: its root commits and its origin URL, if any."""
        roots = self._git("rev-list", "--max-parents=0", "HEAD").split()
        origin = None
        try:
            origin = self.repo.remotes.origin.url if "origin" in [r.name for r in self.repo.remotes] else None
        except Exception:  # noqa: BLE001 - a broken remote config is not fatal here
            origin = None
        return {"root_commits": sorted(roots), "origin": origin}

    def tree(self, sha: str) -> dict[str, tuple[str, str]]:
        """Every file path at ``sha`` mapped to (mode, blob sha); read once per commit."""
        cached = self._trees.get(sha)
        if cached is None:
            cached = {}
            listing = self._git("ls-tree", "-r", "-z", "--full-tree", sha)
            for entry in listing.split("\0"):
                if not entry:
                    continue
                meta, _, path = entry.partition("\t")
                mode, kind, blob = meta.split()
                if kind == "blob":
                    cached[path] = (mode, blob)
            self._trees[sha] = cached
        return cached

    def blob(self, blob_sha: str) -> bytes:
        """A blob's bytes, read through one long-lived ``git cat-file --batch`` process."""
        data = self._blobs.get(blob_sha)
        if data is None:
            if self._batch is None:
                self._batch = subprocess.Popen(
                    ["git", "cat-file", "--batch"], cwd=self.path, stdin=subprocess.PIPE, stdout=subprocess.PIPE
                )
            assert self._batch.stdin is not None and self._batch.stdout is not None
            self._batch.stdin.write(blob_sha.encode("ascii") + b"\n")
            self._batch.stdin.flush()
            header = self._batch.stdout.readline().split()
            if len(header) != 3:
                raise GitError(f"git cat-file cannot read object {blob_sha} in {display_path(self.path)}")
            data = self._batch.stdout.read(int(header[2]))
            self._batch.stdout.read(1)  # the newline after the content
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
        pattern = glob_regex(glob)
        return [path for path in self.tree(sha) if pattern.match(path)]

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        return bool(self.repo.is_ancestor(ancestor, descendant))

    def commits_touching(self, lower: str | None, upper: str, globs: tuple[str, ...]) -> list[Commit]:
        """Commits in ``lower..upper`` (all of ``upper`` when lower is None) touching ``globs``."""
        span = f"{lower}..{upper}" if lower else upper
        specs = [f":(glob){g}" for g in globs]
        out = self._git("log", "--format=%x00%H%x01%s", "--name-only", "--no-renames", span, "--", *specs)
        commits = []
        for record in out.split("\0"):
            if not record.strip():
                continue
            head, _, names = record.partition("\n")
            sha, _, subject = head.partition("\x01")
            commits.append(Commit(sha, subject, tuple(n for n in names.splitlines() if n)))
        return commits


def run_git(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run git; its output as text (a file name that is not UTF-8 keeps its bytes as surrogates).

    Refs that come from users are checked with :func:`check_ref` before they get here.
    """
    full_env = {**os.environ, **(env or {})}
    result = subprocess.run(["git", *args], cwd=cwd, env=full_env, capture_output=True, check=False)
    if result.returncode != 0:
        stderr = result.stderr.decode("utf-8", errors="replace").strip()
        raise GitError(f"git {' '.join(args[:2])} failed in {display_path(cwd)}: {stderr}")
    return result.stdout.decode("utf-8", errors="surrogateescape")


def glob_regex(glob: str) -> re.Pattern[str]:
    """git's ``:(glob)`` magic: ``*`` and ``?`` stay within a folder, ``**`` crosses folders.

    As in git, a pattern that names a folder also matches everything under it.
    """
    out = []
    index = 0
    while index < len(glob):
        char = glob[index]
        if glob.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
            continue
        if glob.startswith("**", index):
            out.append(".*")
            index += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = glob.find("]", index + 1)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = glob[index + 1 : end].replace("\\", "\\\\")
                out.append(f"[^{body[1:]}]" if body.startswith("!") else f"[{body}]")
                index = end
        else:
            out.append(re.escape(char))
        index += 1
    return re.compile("".join(out).rstrip("/") + "(?:/.*)?$")


class RegistryGit:
    """The registry's own git repository, for the pre-merge guard."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _run(self, *args: str) -> str:
        return run_git(list(args), self.root, {"GIT_TERMINAL_PROMPT": "0"})

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
            from freezer.errors import UsageError

            raise UsageError(
                f"base ref {ref!r} does not name a commit in the registry repository",
                hint="fetch it first (e.g. git fetch origin main) or pass --base",
            ) from None

    def default_base(self) -> tuple[str, str]:
        """The base a CI user expects: the PR target, the upstream, origin's default branch, else HEAD."""
        candidates = []
        target = os.environ.get("GITHUB_BASE_REF")
        if target:
            candidates.append(f"origin/{target}")
        candidates += ["@{upstream}", "origin/HEAD"]
        for candidate in candidates:
            try:
                tip = self._run("rev-parse", "--verify", "--quiet", f"{candidate}^{{commit}}").strip()
                base = self._run("merge-base", tip, "HEAD").strip()
                return base, f"merge-base of HEAD and {candidate}"
            except GitError:
                continue
        return self.resolve("HEAD"), "HEAD"

    def changes(self, base: str, pathspecs: list[str]) -> list[tuple[str, str]]:
        """(status, path) for every tracked difference between ``base`` and the working tree (staged included)."""
        out = self._run("diff", "--name-status", "--no-renames", "-z", base, "--", *pathspecs)
        fields = [f for f in out.split("\0") if f]
        return list(zip(fields[::2], fields[1::2], strict=False))

    def names_at(self, ref: str, folder: str) -> set[str]:
        """The entries directly inside ``folder`` at ``ref`` (one tree level: cheap however big it is)."""
        out = self._run("ls-tree", "--name-only", "-z", ref, "--", folder.rstrip("/") + "/")
        return {PurePosixPath(name).name for name in out.split("\0") if name}

    def has_path(self, ref: str, path: str) -> bool:
        return bool(self._run("ls-tree", "--name-only", ref, "--", path).strip())
