"""The shape of one result row (schemas/results.schema.json), checked without jsonschema.

Every row of a results file is checked, and a million rows through jsonschema
take minutes; this check takes about a microsecond a row. It decides exactly
what the schema decides, with one deliberate difference: a ``pattern`` must
match the whole value, as in JSON Schema's own (ECMA-262) regular
expressions, so ``"arm": "all\\n"`` is refused where Python's jsonschema lets
``$`` match before a final newline. tests/test_results_check_hostile.py proves the
agreement on mutations of a valid row. Messages follow freezer.schema.schemas's
wording, and every quoted value is shortened.
"""

import re
from collections.abc import Callable
from typing import Any, NamedTuple

from freezer.domain import taskid
from freezer.domain.escape import quoted, unsafe_char
from freezer.domain.findings import JsonPath
from freezer.domain.jsontypes import JsonObject

_SHA256 = re.compile(r"[0-9a-f]{64}")
_ARM = re.compile(r"[a-z][a-z0-9_-]*")
_REQUIRED = ("manifest_sha256", "task_id", "arm", "score")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class ResultRow(NamedTuple):
    """One row of freezer's results format (schemas/results.schema.json): a task's mean score in one run."""

    manifest_sha256: str
    task_id: str
    arm: str
    score: float
    run: str
    fixture_digest: str
    harness: str
    harness_hash: str | None = None  # the harness's own hash of what it ran, for whoever can recompute it

    def to_json(self) -> JsonObject:
        """The row as written, one JSON line, its keys in this order: by ``results import`` and by
        ``results add`` (each stored row, freezer.guard.storedresults), the one place it is made."""
        out: JsonObject = {
            "manifest_sha256": self.manifest_sha256,
            "task_id": self.task_id,
            "arm": self.arm,
            "score": self.score,
            "run": self.run,
            "fixture_digest": self.fixture_digest,
            "harness": self.harness,
        }
        if self.harness_hash is not None:
            out["harness_hash"] = self.harness_hash
        return out


def _got(value: Any) -> str:
    """A parsed JSON value as a message shows it: its JSON type, then the value, shortened."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "boolean true", False: "boolean false"}[value]
    if isinstance(value, (int, float)):
        kind = "number"
    else:
        kind = "string" if isinstance(value, str) else "array" if isinstance(value, list) else "object"
    return f"{kind} {quoted(value)}"


def _text(value: Any, low: int, high: int) -> str | None:
    if not isinstance(value, str):
        return f"expected string, got {_got(value)}"
    if len(value) < low:
        return "must not be empty"
    if len(value) > high:
        return f"text is {len(value)} characters, over the limit of {high}"
    return None


def _matching(value: Any, pattern: re.Pattern[str], shown: str, high: int | None = None) -> str | None:
    if not isinstance(value, str):
        return f"expected string, got {_got(value)}"
    if high is not None and len(value) > high:
        return f"text is {len(value)} characters, over the limit of {high}"
    if pattern.fullmatch(value) is None:
        return f"{quoted(value)} does not match the pattern {shown}"
    return None


def _score(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        if 0 <= value <= 1:
            return None
        return f"{quoted(value)} is outside 0..1: a score is a number from 0 to 1, or true/false"
    return f"expected true, false or a number from 0 to 1, got {_got(value)}"


def _run(value: Any) -> str | None:
    problem = _text(value, 1, 200)
    if problem is None:
        bad = unsafe_char(value) or ("a lone surrogate" if _LONE_SURROGATE.search(value) else None)
        if bad:
            problem = f"a run name is printed in reports, so it may not hold {bad}"
    return problem


_CHECKS: tuple[tuple[str, Callable[[Any], str | None]], ...] = (
    ("manifest_sha256", lambda v: _matching(v, _SHA256, "^[0-9a-f]{64}$")),
    ("task_id", lambda v: _text(v, 1, taskid.MAX_LENGTH)),
    ("arm", lambda v: _matching(v, _ARM, "^[a-z][a-z0-9_-]*$", 60)),
    ("score", _score),
    ("run", _run),
    ("fixture_digest", lambda v: _matching(v, _SHA256, "^[0-9a-f]{64}$")),
)


def is_row(row: Any) -> bool:
    """Whether ``row`` is a valid result row: :func:`row_problems` is empty exactly when this is true.
    It runs on every row, so the common case is decided here in a few checks."""
    if type(row) is not dict:
        return False
    try:
        sha, task, arm, score = row["manifest_sha256"], row["task_id"], row["arm"], row["score"]
    except KeyError:
        return False
    if type(sha) is not str or len(sha) != 64 or _SHA256.fullmatch(sha) is None:
        return False
    if type(task) is not str or not 0 < len(task) <= taskid.MAX_LENGTH:
        return False
    if type(arm) is not str or len(arm) > 60 or _ARM.fullmatch(arm) is None:
        return False
    if type(score) is not bool and (type(score) not in (int, float) or not 0 <= score <= 1):
        return False
    if "run" in row and _run(row["run"]) is not None:
        return False
    return "fixture_digest" not in row or _matching(row["fixture_digest"], _SHA256, "") is None


def row_problems(row: Any) -> list[tuple[JsonPath, str]]:
    """What is wrong with one parsed line as a result row, by JSON path; empty when it is a valid row."""
    if not isinstance(row, dict):
        return [((), f"expected a JSON object (one result row per line), got {_got(row)}")]
    found: list[tuple[JsonPath, str]] = [((), f"missing required field {key!r}") for key in _REQUIRED if key not in row]
    for key, check in _CHECKS:
        if key in row:
            problem = check(row[key])
            if problem is not None:
                found.append(((key,), problem))
    return found
