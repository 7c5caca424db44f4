"""Turning results into text, JSON or GitHub annotations. The exit code a JSON document states
comes from :func:`freezer.cli.exits.exit_code`, as the process's own does."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from typing import Any, TypeVar

from freezer.cli import flags
from freezer.cli.exits import exit_code
from freezer.cli.terminal import colour_marks, plain_marks
from freezer.domain.errors import FreezerError
from freezer.domain.escape import github_data, github_property, json_safe, visible, visible_block
from freezer.domain.findings import format_json_path
from freezer.domain.jsontypes import JsonObject
from freezer.domain.outcome import Outcome
from freezer.domain.problems import Problem
from freezer.domain.release import __version__

FORMATS = ("text", "json", "github")
# The version of the JSON document every command prints with --format json (schemas/output.schema.json).
OUTPUT_FORMAT = 1
Said = TypeVar("Said", bound=Outcome)


def invoked_as() -> str:
    """How to run freezer again from a shell, for a "then try" line: `freezer` when that name on PATH is
    this program, else the path it was started by (the README's set-up runs `.venv/bin/freezer`, which
    is not on PATH), else `python -m freezer` with this interpreter."""
    import shutil  # start-up time: asked only by a command that ends with a "then try" line

    started = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    on_path = shutil.which("freezer")
    if on_path and started and os.path.realpath(on_path) == os.path.realpath(started):
        return "freezer"
    if os.path.basename(started) == "freezer" and os.access(started, os.X_OK):
        return started
    return f"{sys.executable} -m freezer"


def resolve_format(requested: str | None) -> str:
    if requested:
        return requested
    return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"


def say(text: str = "", *, err: bool = False) -> None:
    """Print one line of output. Every character that could act on a terminal is shown escaped,
    newlines included, so no piece of data can forge a line, a colour or a cursor move; only
    then is the line's leading mark coloured (when the stream takes colour), and the marks spelt in
    ASCII when the stream's encoding cannot hold them."""
    stream = sys.stderr if err else sys.stdout
    _write(plain_marks(colour_marks(visible(text), stream), stream) + "\n", err)


def say_block(text: str, *, err: bool = False) -> None:
    """Print a document (METHOD.md, JSON): its own newlines kept, every other control shown escaped."""
    _write(visible_block(text) + ("" if text.endswith("\n") else "\n"), err)


def say_error(exc: FreezerError) -> None:
    say(f"freezer: error: {exc.message}", err=True)
    if exc.hint:
        say(f"  hint: {exc.hint}", err=True)
    for problem in getattr(exc, "problems", []):
        for line in text_lines(problem, "  "):
            say(line, err=True)


def progress(text: str) -> None:
    """A transient status line on a terminal's stderr (rewritten in place), nothing when redirected."""
    if sys.stderr.isatty():
        _write(plain_marks(f"\r\033[K· {visible(text)}", sys.stderr), True)


def end_progress() -> None:
    if sys.stderr.isatty():
        _write("\r\033[K", True)


def _write(text: str, err: bool) -> None:
    stream = sys.stderr if err else sys.stdout
    if stream is None:  # started with that descriptor closed (2>&-): nobody can read it
        return
    stream.write(text)
    if err:
        stream.flush()


def github_annotation(problem: Problem) -> str:
    props = [f"file={github_property(problem.file)}"]
    if problem.line is not None:
        props.append(f"line={problem.line}")
    if problem.col is not None:
        props.append(f"col={problem.col}")
    message = f"{format_json_path(problem.path)}: {problem.message}"
    return f"::error {','.join(props)}::{github_data(message)}"


def problem_lines(problems: Iterable[Problem], fmt: str) -> list[str]:
    if fmt == "github":
        return [github_annotation(p) for p in problems]
    return [line for p in problems for line in text_lines(p)]


def text_lines(problem: Problem, indent: str = "") -> list[str]:
    """A problem as text lines: a message of several lines (a tool's own report, such as rg's regex
    error with its caret) keeps them, each one indented under the problem's location, so none can
    pass for a problem line of its own and the caret still points where it did."""
    first, *rest = str(problem).split("\n")
    return [indent + first, *(f"{indent}    {line}" for line in rest)]


def dumps(data: Any) -> str:
    """JSON for output: standard (NaN is refused, never printed) and terminal-safe."""
    return json_safe(json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False, allow_nan=False))


def document(command: str, result: Any, *, exit_code: int, error: FreezerError | None = None) -> JsonObject:
    """The one JSON shape of every command: who printed it, whether it passed, and what it found."""
    return {
        "output_format": OUTPUT_FORMAT,
        "freezer": __version__,
        "command": command,
        "ok": exit_code == 0,
        "exit_code": exit_code,
        "result": result,
        "error": None
        if error is None
        else {
            "message": error.message,
            "hint": error.hint,
            "problems": [p.to_json() for p in getattr(error, "problems", [])],
        },
    }


def say_json(command: str, result: Any) -> None:
    """Print the result of a command that judges nothing (it succeeded) as the JSON document."""
    say_block(dumps(document(command, result, exit_code=exit_code(None))))


def say_outcome(command: str, outcome: Said) -> Said:
    """Print a command's outcome as the JSON document (its ``to_json()`` as the result, the exit
    code the outcome gets); returns the outcome, which the command returns in turn."""
    say_block(dumps(document(command, outcome.to_json(), exit_code=exit_code(outcome))))
    return outcome


def say_json_error(command: str, error: FreezerError, *, code: int | None = None) -> None:
    """The JSON document of a command that stopped with ``error`` (its exit code, unless ``code`` says
    the failure was another one, freezer's own)."""
    stated = exit_code(error) if code is None else code
    say_block(dumps(document(command, None, exit_code=stated, error=error)))


def say_failure(error: FreezerError, json_command: str | None) -> None:
    """A command's failure: its message on stderr (first: should stdout fail, the reason is said
    already), then, when JSON was asked for, the JSON document naming ``json_command``."""
    say_error(error)
    if json_command:
        say_json_error(json_command, error)


def asked_format(args: list[str]) -> str | None:
    """The last ``--format`` value in ``args`` (spelt as :data:`freezer.cli.flags.FORMAT`)."""
    long, short = flags.FORMAT
    found = None
    for index, arg in enumerate(args):
        if arg in flags.FORMAT and index + 1 < len(args):
            found = args[index + 1]
        elif arg.startswith(f"{long}="):
            found = arg.partition("=")[2]
        elif arg.startswith(short) and len(arg) > len(short):
            found = arg[len(short) :]
    return found


def json_command(args: list[str]) -> str | None:
    """For a command line refused before click knew its command (an unknown command or root option):
    the word that stands where the command goes when ``args`` ask for JSON, so that even that usage
    error answers in JSON. Wherever a command was parsed, it names the document instead
    (:mod:`freezer.cli.app`)."""
    if asked_format(args) != "json":
        return None
    root = flags.by_spelling(flags.ROOT)
    at = 0
    while at < len(args) and args[at].startswith("-"):
        at += 2 if args[at] in root else 1  # a root option's value is not the command
    return args[at] if at < len(args) else "freezer"
