"""Command-line entry point.

``main`` is the only place where errors become exit codes and messages. It
answers ``--version`` before importing typer so that the cheapest call stays
cheap, lets :mod:`freezer.cli.hooks` answer the plain forms of the hook
commands (also without typer), and sends everything else through
:mod:`freezer.cli.app`. A command's own failure is answered where the command
was parsed (in JSON too, when asked for); what reaches ``main`` is said here.

Whatever the output is, ``main`` returns with nothing left for the
interpreter to flush: a full device (``>/dev/full``) gets one message on
stderr and exit 1, a reader that went away (``| head``) gets exit 141 and
silence, and Python never prints "Exception ignored" at exit. An encoding
that cannot hold a character (``PYTHONIOENCODING=ascii``) gets it escaped.
"""

from __future__ import annotations

import os
import sys

from freezer.domain.release import version_line


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if sys.stdout is None:
        # Started with fd 1 closed: whatever the command did, nobody could read what it says.
        _tell("freezer: error: standard output is closed; redirect it (e.g. >/dev/null) instead")
        return 2
    from freezer.cli.terminal import never_fail_to_encode  # start-up time: a closed stdout needs none of it

    never_fail_to_encode(sys.stdout)
    never_fail_to_encode(sys.stderr)
    try:
        code = _answer(args)
        sys.stdout.flush()  # a full device or a closed pipe shows up here, not in the interpreter's exit
        return code
    except BrokenPipeError:
        # The reader went away (freezer audit | head): nothing is wrong with freezer or the input.
        _discard(sys.stdout)
        return 141  # freezer.domain.errors.EXIT_BROKEN_PIPE
    except OSError as exc:
        # Writing the output failed, even while reporting something else.
        _discard(sys.stdout)
        _tell(f"freezer: error: writing the output: {exc.strerror or exc}")
        return 1
    finally:
        _settle(sys.stderr)


def _answer(args: list[str]) -> int:
    if args in (["--version"], ["-V"]):
        sys.stdout.write(version_line() + "\n")
        return 0
    # start-up time: `freezer --version` answers above without loading these (nor the output layer)
    from freezer.cli.output import say, say_error
    from freezer.domain.errors import EXIT_BROKEN_PIPE, EXIT_INVALID, FreezerError  # as above
    from freezer.domain.escape import visible  # as above
    from freezer.domain.problems import display_path  # as above

    try:
        code = _dispatch(args)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        _discard(sys.stdout)
        return EXIT_BROKEN_PIPE
    except FreezerError as exc:
        say_error(exc)  # raised before a command was parsed (freezer -C DIR that cannot be entered)
        return exc.exit_code
    except OSError as exc:
        # Unforeseen file-system failures (the output device full, a folder gone mid-run) are the
        # environment's, not a bug: say which file and why.
        _settle(sys.stdout)
        where = f"{display_path(exc.filename)}: " if exc.filename else "writing the output: "
        say(f"freezer: error: {where}{exc.strerror or exc}", err=True)
        return EXIT_INVALID
    except KeyboardInterrupt:
        _tell("freezer: interrupted")
        return 130
    except Exception as exc:
        if os.environ.get("FREEZER_DEBUG"):
            raise
        _tell(
            f"freezer: internal error: {type(exc).__name__}: {visible(str(exc))}\n"
            "  this is a bug in freezer; rerun with FREEZER_DEBUG=1 for the traceback and report it"
        )
        return EXIT_INVALID


def _dispatch(args: list[str]) -> int:
    from freezer.cli import hooks  # start-up time: `freezer --version` loads neither hooks nor the core

    code = hooks.fast_path(args)
    if code is not None:
        return code
    from freezer.cli.app import run  # start-up time: typer and every command, only when the hooks did not answer

    return run(args)


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
