"""Issue 27: `freezer next` bumps the version number in a title, and a title is a label: a version
record that moved only in its title moves no arm (comparability format 5), while §Delta still
lists the change. A change to what the record says (its purpose) still moves the record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from freezer.compare.comparerecord import RECORD_FORMAT

from conftest import run_inprocess
from nocode_helpers import compare, cut, drafts, frozen, ok, registry

ARMS = "    arms:\n      reader: [record]\n"
# The suite's own arm, and the default arm `all` (which depends on the record) of a suite with none.
ARM_CASES = pytest.mark.parametrize(("arms", "arm"), [(ARMS, "reader"), ("", "all")])


def _retitle(root: Path, old: str, new: str) -> None:
    version = root / "drafts" / "qa" / "version.yaml"
    text = version.read_text(encoding="utf-8")
    assert old in text
    version.write_text(text.replace(old, new), encoding="utf-8")


def _two(tmp_path: Path, edit: tuple[str, str], arms: str) -> Path:
    root = registry(tmp_path, arms)
    drafts(root, 1)
    _retitle(root, "title: Reading questions", "title: Reading questions v1")
    cut(root, "v1")
    drafts(root, 2)
    _retitle(root, "title: Reading questions", "title: Reading questions v2")
    _retitle(root, *edit)
    cut(root, "v2")
    return root


@ARM_CASES
def test_a_title_alone_moves_no_arm_and_delta_still_lists_it(tmp_path: Path, arms: str, arm: str) -> None:
    root = _two(tmp_path, ("title: Reading questions v2", "title: Reading questions, second cut v2"), arms)
    delta = json.loads((frozen(root, 2) / "delta.json").read_bytes())
    assert [change["path"] for change in delta["version_record"]] == ["$.title"]
    record = compare(root, "qa_v1", "qa_v2")[arm]
    assert record["moved"] == [] and sorted(record["comparable"]) == ["capital-city", "river-length"]
    stored = json.loads((frozen(root, 2) / "comparability.json").read_bytes())
    assert stored["comparability_format"] == RECORD_FORMAT == 6
    assert "title" in (frozen(root, 2) / "METHOD.md").read_text(encoding="utf-8")
    ok(run_inprocess("audit", "--suite", "qa", cwd=root))


@ARM_CASES
def test_a_title_with_a_purpose_change_moves_the_record(tmp_path: Path, arms: str, arm: str) -> None:
    root = _two(tmp_path, ("purpose: >-", "purpose: >-\n  Scored on exact match now.\n "), arms)
    delta = json.loads((frozen(root, 2) / "delta.json").read_bytes())
    assert {change["path"] for change in delta["version_record"]} == {"$.title", "$.purpose"}
    record = compare(root, "qa_v1", "qa_v2")[arm]
    assert record["moved"] == ["record"] and record["comparable"] == []
    assert "purpose" in record["excluded"]["capital-city"]
    ok(run_inprocess("audit", "--suite", "qa", cwd=root))
