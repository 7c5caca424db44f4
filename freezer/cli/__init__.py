"""Command-line entry point.

``main`` is the one place where a failure is caught and said, as pre-commit's ``error_handler``;
:func:`freezer.cli.exits.exit_code` picks the exit code of what it caught, or of the outcome the
command returned. It answers ``--version`` before importing typer so
that the cheapest call stays cheap, lets :mod:`freezer.cli.hooks` answer the plain forms of the
hook commands (also without typer), and sends everything else through :mod:`freezer.cli.app`.

Whatever the output is, ``main`` returns with nothing left for the interpreter to flush: a full
device (``>/dev/full``) gets one message on stderr and exit 1, a reader that went away (``| head``)
gets exit 141 and silence, and Python never prints "Exception ignored" at exit. An encoding that
cannot hold a character (``PYTHONIOENCODING=ascii``) gets it escaped.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from freezer.cli import exits
from freezer.domain.errors import FreezerError, UsageError
from freezer.domain.release import version_line

if TYPE_CHECKING:
    from freezer.domain.outcome import Outcome

# Set, it prints an internal error's traceback above its one line.
DEBUG_VARIABLE = "FREEZER_DEBUG"


def main(argv: list[str] | None = None) -> int:
    """Run the command line ``argv`` and return its exit code. Whatever happens, nothing is left for
    the interpreter to flush: a reader gone away gets silence, and Python never prints "Exception
    ignored" at exit."""
    args = sys.argv[1:] if argv is None else argv
    asked = exits.Invocation()
    try:
        try:
            answer = _answer(args, asked)
            _flush_stdout()  # a full device or a closed pipe shows up here, not in the interpreter's exit
            return exits.exit_code(answer)
        except (Exception, KeyboardInterrupt) as failure:  # noqa: BLE001 - the one handler: every failure is said here
            _say(failure, asked)
            _flush_stdout()
            return exits.exit_code(failure)
    except BrokenPipeError as gone:
        # The reader went away, perhaps while a failure was said: nothing more can reach it.
        _discard(sys.stdout)
        return exits.exit_code(gone)
    except OSError as refused:
        # Writing the output failed, even while reporting something else.
        _discard(sys.stdout)
        _tell(f"freezer: error: writing the output: {refused.strerror or refused}")
        return exits.exit_code(refused)
    finally:
        _settle(sys.stderr)


def _answer(args: list[str], asked: exits.Invocation) -> Outcome | None:
    if sys.stdout is None:
        # Started with fd 1 closed: whatever the command did, nobody could read what it says.
        raise UsageError("standard output is closed; redirect it (e.g. >/dev/null) instead")
    from freezer.cli.terminal import never_fail_to_encode  # start-up time: a closed stdout needs none of it

    never_fail_to_encode(sys.stdout)
    never_fail_to_encode(sys.stderr)
    if args in (["--version"], ["-V"]):
        sys.stdout.write(version_line() + "\n")
        return None
    from freezer.cli import hooks  # start-up time: `freezer --version` loads neither hooks nor the core

    answered = hooks.fast_path(args, asked)
    if answered is not None:
        return answered
    from freezer.cli.app import run  # start-up time: typer and the command run, only when the hooks did not answer

    return run(args, asked)


def _say(failure: BaseException, asked: exits.Invocation) -> None:
    """The one message of a failure, on stderr; when JSON was asked for, its document on stdout."""
    # start-up time: only a failure needs the output layer (`freezer --version` never loads it)
    from freezer.cli import output
    from freezer.domain.escape import visible  # as above
    from freezer.domain.problems import display_path  # as above

    code = exits.exit_code(failure)
    if code == exits.BROKEN_PIPE:
        _discard(sys.stdout)
    elif code == exits.INTERRUPTED:
        _tell("freezer: interrupted")
    elif isinstance(failure, FreezerError):
        output.say_failure(failure, asked.json_command)
    elif isinstance(failure, OSError):
        _settle(sys.stdout)
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
            f"{exits.ISSUES} ({DEBUG_VARIABLE}=1 shows the traceback)"
        )
        _settle(sys.stdout)
        _tell(f"freezer: {said}")
        if asked.json_command:
            output.say_json_error(asked.json_command, FreezerError(said), code=code)


def _flush_stdout() -> None:
    if sys.stdout is not None:  # None: started with fd 1 closed (said as a usage error)
        sys.stdout.flush()


def _tell(text: str) -> None:
    """A last-resort message on stderr; if stderr cannot take it either, nothing more can be said."""
    stream = sys.stderr
    if stream is None:
        return
    try:
        stream.write(text + "\n")
        stream.flush()
    except (OSError, ValueError):
        _discard(stream)


def _settle(stream: object) -> None:
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
