"""The spellings of the options that are read before typer is imported, declared once.

typer parses every command line; its options (:mod:`freezer.cli.options`) take
their spellings from here. Two small readers of argv work without typer, for
start-up time, and read these same tables: :func:`freezer.cli.hooks.parse`
(the plain hook calls, answered without importing typer) and the fallback of
:func:`freezer.cli.output.json_command` (a command line refused before a
command was known). Every option listed here takes a value.
"""

from __future__ import annotations

import os

from freezer.domain.errors import UsageError
from freezer.git.place import logical_cwd

DIRECTORY = ("--directory", "-C")  # before the command: run as if started in DIR (as git -C does)
REGISTRY = ("--registry", "-C")  # after the command; before it, only the long spelling (-C is DIRECTORY there)
ROOT_REGISTRY = REGISTRY[:1]
FORMAT = ("--format", "-f")
SUITE = ("--suite", "-s")
BASE = ("--base",)

# The options given before the command, by the name the root callback takes them as.
ROOT: dict[str, tuple[str, ...]] = {"directory": DIRECTORY, "registry": ROOT_REGISTRY}
# The options of the hook commands, by parameter name: the same as their typer commands (freezer.cli.guard
# and freezer.cli.drafts), which tests/test_hooks.py holds to the same answers.
HOOKS: dict[str, dict[str, tuple[str, ...]]] = {
    "check": {"base": BASE, "registry": REGISTRY, "fmt": FORMAT},
    "validate": {"registry": REGISTRY, "suite": SUITE, "fmt": FORMAT},
}


def by_spelling(table: dict[str, tuple[str, ...]]) -> dict[str, str]:
    """Each spelling of ``table``'s options, mapped to the option's name."""
    return {spelling: name for name, spellings in table.items() for spelling in spellings}


def enter_directory(directory: str) -> None:
    """``freezer -C DIR COMMAND``: run as if started in DIR, as ``git -C`` does (then the registry is
    found from there). The typer root callback and the hooks' fast path both call this."""
    # As a shell's cd does, PWD keeps the folder as named: check reads it to see a link inside the
    # repository that the chdir resolves away (freezer.git.place).
    named = os.path.normpath(os.path.join(logical_cwd(), directory))
    try:
        os.chdir(directory)
        os.environ["PWD"] = named
    except OSError as exc:
        raise UsageError(
            f"cannot run in {directory!r}: {exc.strerror or exc}", hint="name an existing folder"
        ) from None
