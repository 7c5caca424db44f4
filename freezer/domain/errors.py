"""The one error hierarchy of freezer.

Every failure a user can cause is a :class:`FreezerError`. The CLI maps the
class to an exit code in one place (:func:`freezer.cli.exits.exit_code`: a
:class:`UsageError` is 2, every other one 1); the core never prints nor picks
an exit code.
Invalid *content* is reported as collected :class:`~freezer.domain.problems.Problem`
records instead, so a user sees every mistake at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from freezer.domain.problems import Problem


class FreezerError(Exception):
    """Base class: a message meant for the user, and a hint of what to do."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message}\n  hint: {self.hint}"
        return self.message


class UsageError(FreezerError):
    """The command line itself is wrong (unknown suite, bad version label...)."""


class ConfigError(FreezerError):
    """The registry config is missing or invalid."""


class InvalidInput(FreezerError):
    """Checked input is invalid; carries the collected problems."""

    def __init__(self, message: str, problems: Sequence[Problem] = (), *, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.problems = list(problems)


class GitError(FreezerError):
    """A git repository, ref or object could not be used."""


class VersionExists(FreezerError):
    """A frozen version already exists and differs from what would be cut."""


class LockBusy(FreezerError):
    """Another cut holds the registry lock."""


class IntegrityError(FreezerError):
    """A frozen version no longer matches what was cut."""
