"""Where a registry sits in its git repository: as named, and as reached on disk.

A path resolved on disk says nothing about where the base kept the registry: a change can commit
``bench`` as a link to ``decoy``, and every path through ``bench`` then resolves into ``decoy``. So
the guard compares two places under the repository's top folder: the *named* place, the path the
user gave (or the shell's working folder, ``PWD``) taken component by component without following a
link once inside the repository; and the place the registry is really in (git's own answer, which
resolves every link). Links *outside* the repository (a checkout reached as ``/tmp/x``, a repository
under a linked home folder) are followed: they are the machine's layout, not the change's.
"""

from __future__ import annotations

import os
from pathlib import Path


def logical_cwd() -> Path:
    """The working folder as the user named it: ``PWD`` when it is absolute, has no ``.`` or ``..``
    and is this very folder (as POSIX ``pwd -L`` decides), else the resolved working folder."""
    named = os.environ.get("PWD", "")
    parts = named.split("/")
    if os.path.isabs(named) and "." not in parts and ".." not in parts:
        try:
            if os.path.samefile(named, "."):
                return Path(named)
        except OSError:
            pass  # a PWD that no longer exists names nothing
    return Path.cwd()


def named_root(config_path: Path, resolved_root: Path) -> Path:
    """The registry root as the user named it (``--registry``, ``-C`` or the working folder).

    ``config_path`` is the config file as it was located: relative to the working folder when named
    so, else absolute. A config found by walking up from the working folder is resolved already; the
    named root is then the same number of folders above the logical working folder, when that is the
    same folder (else the resolved one: nothing was named through a link)."""
    if not config_path.is_absolute():
        return Path(os.path.normpath(logical_cwd() / config_path.parent))
    if config_path.parent != resolved_root:
        return Path(os.path.normpath(config_path.parent))
    here = Path.cwd()
    if not here.is_relative_to(resolved_root):
        return resolved_root
    climbed = len(here.relative_to(resolved_root).parts)
    logical = logical_cwd()
    candidate = logical.parents[climbed - 1] if climbed else logical
    try:
        return candidate if os.path.samefile(candidate, resolved_root) else resolved_root
    except OSError:
        return resolved_root


def place_in(top: Path, named: Path) -> str | None:
    """``named``'s place under the repository's top folder (``""`` or ``"a/b/"``), following links only
    until the path enters the repository; None when the path never enters it."""
    walked = Path(named.anchor)
    rest = list(named.parts[1:])
    while True:
        real = Path(os.path.realpath(walked))
        if real == top or real.is_relative_to(top):
            inside = [*real.relative_to(top).parts, *rest]
            return "".join(f"{part}/" for part in inside)
        if not rest:
            return None
        walked = walked / rest.pop(0)
