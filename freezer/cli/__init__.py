"""Command-line entry point.

``main`` hands the command line to :func:`freezer.cli.exits.handle`, the one place where an
exception becomes an exit code and a message. It answers ``--version`` before importing typer so
that the cheapest call stays cheap, lets :mod:`freezer.cli.hooks` answer the plain forms of the
hook commands (also without typer), and sends everything else through :mod:`freezer.cli.app`.

Whatever the output is, ``main`` returns with nothing left for the interpreter to flush: a full
device (``>/dev/full``) gets one message on stderr and exit 1, a reader that went away (``| head``)
gets exit 141 and silence, and Python never prints "Exception ignored" at exit. An encoding that
cannot hold a character (``PYTHONIOENCODING=ascii``) gets it escaped.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from freezer.cli import exits
from freezer.domain.errors import UsageError
from freezer.domain.release import version_line

if TYPE_CHECKING:
    from freezer.domain.outcome import Outcome


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    return exits.handle(lambda asked: _answer(args, asked))


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
    from freezer.cli.app import run  # start-up time: typer and every command, only when the hooks did not answer

    return run(args, asked)
