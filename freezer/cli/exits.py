"""How a run of freezer ends: its exit code, and what it says when it fails.

:func:`exit_code` is the one function that picks an exit code; :func:`handle` runs a command
line and is the one place where an exception becomes that code and a message (as pre-commit's
``error_handler``). The codes, as the README's "Exit codes" table gives them:

- 0: the command did what was asked, and what it checked is valid;
- 1: the input was checked and is invalid (a fixture, a frozen version that fails its audit, a
  registry freezer cannot use), or the machine refused (a file that cannot be read, a full device);
- 2: the command line is wrong (an unknown option or suite, a version that is not frozen);
- 3: freezer itself failed: a bug, said in one line with where to report it;
- 130: interrupted (Ctrl-C);
- 141: the reader of the output went away (``freezer audit | head``), in silence, as a shell
  reports a SIGPIPE.

A command returns its :class:`~freezer.domain.outcome.Outcome` (or None when there is nothing to
judge) and never a number. This module loads nothing that ``freezer --version`` does not need
until a failure has to be said.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
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
ISSUES = f"https://github.com/{REPOSITORY}/issues"
# Set, it prints an internal error's traceback above its one line.
DEBUG_VARIABLE = "FREEZER_DEBUG"


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


def handle(run: Callable[[Invocation], Outcome | None]) -> int:
    """Run ``run`` and return its exit code. Whatever happens, nothing is left for the interpreter to
    flush: a reader gone away gets silence, and Python never prints "Exception ignored" at exit."""
    asked = Invocation()
    try:
        try:
            answer = run(asked)
            _flush_stdout()  # a full device or a closed pipe shows up here, not in the interpreter's exit
            return exit_code(answer)
        except (Exception, KeyboardInterrupt) as failure:  # noqa: BLE001 - the one handler: every failure is said here
            _say(failure, asked)
            _flush_stdout()
            return exit_code(failure)
    except BrokenPipeError as gone:
        # The reader went away, perhaps while a failure was said: nothing more can reach it.
        _discard(sys.stdout)
        return exit_code(gone)
    except OSError as refused:
        # Writing the output failed, even while reporting something else.
        _discard(sys.stdout)
        tell(f"freezer: error: writing the output: {refused.strerror or refused}")
        return exit_code(refused)
    finally:
        settle(sys.stderr)


def _say(failure: BaseException, asked: Invocation) -> None:
    """The one message of a failure, on stderr; when JSON was asked for, its document on stdout."""
    # start-up time: only a failure needs the output layer (`freezer --version` never loads it)
    from freezer.cli import output
    from freezer.domain.escape import visible  # as above
    from freezer.domain.problems import display_path  # as above

    code = exit_code(failure)
    if code == BROKEN_PIPE:
        _discard(sys.stdout)
    elif code == INTERRUPTED:
        tell("freezer: interrupted")
    elif isinstance(failure, FreezerError):
        output.say_failure(failure, asked.json_command)
    elif isinstance(failure, OSError):
        settle(sys.stdout)
        name = failure.filename
        where = f"{display_path(name)}: " if isinstance(name, (str, os.PathLike)) else "writing the output: "
        output.say(f"freezer: error: {where}{failure.strerror or failure}", err=True)
    else:
        if os.environ.get(DEBUG_VARIABLE):
            import traceback  # start-up time: only for a bug report

            traceback.print_exception(failure, file=sys.stderr)
        what = f"{type(failure).__name__}: {visible(str(failure))}" if str(failure) else type(failure).__name__
        said = (
            f"internal error ({what}); this is a bug in freezer, not in your input: please report it at "
            f"{ISSUES} ({DEBUG_VARIABLE}=1 shows the traceback)"
        )
        settle(sys.stdout)
        tell(f"freezer: {said}")
        if asked.json_command:
            output.say_json_error(asked.json_command, FreezerError(said), code=code)


def _flush_stdout() -> None:
    if sys.stdout is not None:  # None: started with fd 1 closed (said as a usage error)
        sys.stdout.flush()


def tell(text: str) -> None:
    """A last-resort message on stderr; if stderr cannot take it either, nothing more can be said."""
    stream = sys.stderr
    if stream is None:
        return
    try:
        stream.write(text + "\n")
        stream.flush()
    except (OSError, ValueError):
        _discard(stream)


def settle(stream: object) -> None:
    """Flush what is pending, or drop it if the stream cannot take it (so exit prints no 'Exception ignored')."""
    try:
        stream.flush()  # type: ignore[attr-defined]
    except (OSError, ValueError, AttributeError):
        _discard(stream)


def _discard(stream: object) -> None:
    """Point the stream's file descriptor at /dev/null, so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())  # type: ignore[attr-defined]
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real file descriptor (tests redirect the streams)
        pass
