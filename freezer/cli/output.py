"""Turning results into text, JSON or GitHub annotations. Nothing here decides exit codes."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from typing import Any

from freezer.errors import FreezerError
from freezer.escape import github_data, github_property, json_safe, visible, visible_block
from freezer.problems import Problem, format_json_path

FORMATS = ("text", "json", "github")


def resolve_format(requested: str | None) -> str:
    if requested:
        return requested
    return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"


def say(text: str = "", *, err: bool = False) -> None:
    """Print one line of output. Every character that could act on a terminal is shown escaped,
    newlines included, so no piece of data can forge a line, a colour or a cursor move."""
    _write(visible(text) + "\n", err)


def say_block(text: str, *, err: bool = False) -> None:
    """Print a document (METHOD.md, JSON): its own newlines kept, every other control shown escaped."""
    _write(visible_block(text) + ("" if text.endswith("\n") else "\n"), err)


def say_error(exc: FreezerError) -> None:
    say(f"freezer: error: {exc.message}", err=True)
    if exc.hint:
        say(f"  hint: {exc.hint}", err=True)
    for problem in getattr(exc, "problems", []):
        say(f"  {problem}", err=True)


def progress(text: str) -> None:
    """A transient status line on a terminal's stderr (rewritten in place), nothing when redirected."""
    if sys.stderr.isatty():
        _write(f"\r\033[K· {visible(text)}", True)


def end_progress() -> None:
    if sys.stderr.isatty():
        _write("\r\033[K", True)


def _write(text: str, err: bool) -> None:
    stream = sys.stderr if err else sys.stdout
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
    return [str(p) for p in problems]


def dumps(data: Any) -> str:
    """JSON for output: standard (NaN is refused, never printed) and terminal-safe."""
    return json_safe(json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False, allow_nan=False))
