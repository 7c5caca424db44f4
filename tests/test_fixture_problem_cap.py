"""Every fixture reader lists a file's problems up to one cap (freezer/runtime/limits.py
MAX_LISTED_PROBLEMS) and counts the rest in one last line: a file of another format, or a list of
non-records, never floods the terminal with a line per item."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_kind_records import _swe

from freezer.runtime.limits import MAX_LISTED_PROBLEMS

from conftest import assert_clean_failure, run_inprocess
from registry_helpers import commit_all

COUNT = 5_000


def _lines_about(text: str, name: str) -> list[str]:
    return [line for line in text.splitlines() if name in line]


@pytest.mark.parametrize(
    ("name", "body"),
    [
        ("flood.json", json.dumps(list(range(COUNT)))),  # a JSON array of non-objects
        ("flood.json", json.dumps([{"repo": "x"}] * COUNT)),  # records without their id field
        ("flood.yaml", "".join(f"- {n}\n" for n in range(COUNT))),  # a YAML list of non-objects
        ("flood.jsonl", "".join(f"{n}\n" for n in range(COUNT))),  # JSON Lines of non-objects
        ("flood.jsonl", "not json\n" * COUNT),  # not JSON at all
        ("flood.jsonl", json.dumps({"repo": "x"}) + "\n" + "{\n" * COUNT),  # one missing id, then broken lines
    ],
)
def test_a_records_file_of_many_bad_items_lists_the_cap_and_counts_the_rest(reg: Path, name: str, body: str) -> None:
    drafts = _swe(reg, glob="instances/*")
    (drafts / "instances" / name).write_text(body, encoding="utf-8")
    commit_all(reg, "a flood")
    result = run_inprocess("validate", "--suite", "swe", cwd=reg)
    assert_clean_failure(result)
    about = _lines_about(result.text, f"instances/{name}")
    assert len(about) == MAX_LISTED_PROBLEMS + 1, result.text[-3000:]
    assert "more problem(s) in this file, not listed" in about[-1], about[-1]
    more = COUNT - MAX_LISTED_PROBLEMS + (1 if name == "flood.jsonl" and body.startswith('{"repo"') else 0)
    assert f"{more:,} more" in about[-1], about[-1]
    checked = run_inprocess("validate", "--suite", "swe", "--format", "json", cwd=reg)
    problems = json.loads(checked.out)["result"]["problems"]
    assert len([p for p in problems if name in p["file"]]) == MAX_LISTED_PROBLEMS + 1
