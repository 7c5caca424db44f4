"""How a run of freezer ends: :func:`exit_code` is the one function that picks an exit code, for
an outcome or for the exception a run stopped with; :func:`freezer.cli.main` is the one place that
catches that exception and says it (as pre-commit's ``error_handler``). The codes, as the README's
"Exit codes" table gives them:

- 0: the command did what was asked, and what it checked is valid;
- 1: the input was checked and is invalid (a fixture, a frozen version that fails its audit, a
  registry freezer cannot use), or the machine refused (a file that cannot be read, a full device);
- 2: the command line is wrong (an unknown option or suite, a version that is not frozen);
- 3: freezer itself failed: a bug, said in one line with where to report it;
- 130: interrupted (Ctrl-C);
- 141: the reader of the output went away (``freezer audit | head``), in silence, as a shell
  reports a SIGPIPE.

A command returns its :class:`~freezer.domain.outcome.Outcome` (or None when there is nothing to
judge) and never a number. This module is loaded by ``freezer --version`` too: it loads nothing more.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from freezer.domain.errors import FreezerError, UsageError
from freezer.domain.release import REPOSITORY

if TYPE_CHECKING:
    from freezer.domain.outcome import Outcome

OK = 0
INVALID = 1
USAGE = 2
INTERNAL = 3
INTERRUPTED = 130
BROKEN_PIPE = 141  # 128 + SIGPIPE
# Where an internal error (exit 3) tells the user to report it.
ISSUES = f"https://github.com/{REPOSITORY}/issues"


class Invocation:
    """What is known of the command line, for the answer to its failure: the top-level command (the
    JSON document's "command"), the ``--format`` asked for, and the arguments the innermost group
    handed to its command (read again, leniently, when click refused them before ``--format``).
    A plain class: a dataclass would load ``inspect`` into ``freezer --version``."""

    def __init__(self) -> None:
        self.command: str | None = None
        self.fmt: str | None = None
        self.args: list[str] = []

    @property
    def json_command(self) -> str | None:
        """The command's name when JSON output was asked for, so that even an error answers in JSON."""
        return self.command if self.command is not None and self.fmt == "json" else None


def exit_code(answer: Outcome | BaseException | None) -> int:
    """The exit code of a run that answered ``answer``: its outcome (None: done, nothing to judge),
    or the exception it stopped with."""
    if answer is None:
        return OK
    if not isinstance(answer, BaseException):
        return OK if answer.ok else INVALID
    if isinstance(answer, BrokenPipeError):
        return BROKEN_PIPE
    if isinstance(answer, KeyboardInterrupt):
        return INTERRUPTED
    if isinstance(answer, UsageError):
        return USAGE
    if isinstance(answer, (FreezerError, OSError)):
        # OSError: what the machine refused (a folder gone mid-run, a full device), not a bug.
        return INVALID
    return INTERNAL
