"""Turning results into text, JSON or GitHub annotations. Nothing here decides exit codes."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Any

from freezer.problems import Problem, format_json_path

FORMATS = ("text", "json", "github")


def resolve_format(requested: str | None) -> str:
    if requested:
        return requested
    return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"


def _escape_annotation(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_annotation(problem: Problem) -> str:
    props = [f"file={problem.file}"]
    if problem.line is not None:
        props.append(f"line={problem.line}")
    if problem.col is not None:
        props.append(f"col={problem.col}")
    message = f"{format_json_path(problem.path)}: {problem.message}"
    return f"::error {','.join(props)}::{_escape_annotation(message)}"


def problem_lines(problems: Iterable[Problem], fmt: str) -> list[str]:
    if fmt == "github":
        return [github_annotation(p) for p in problems]
    return [str(p) for p in problems]


def dumps(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False)
