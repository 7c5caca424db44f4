"""The typed delta: a frozen delta.json of the current formats reads back and writes out byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from freezer.compare.deltamodel import Delta
from freezer.compare.fieldchange import FieldChange
from freezer.domain.canonical import frozen_file
from freezer.render.deltatext import change_text, delta_lines

V1_DELTAS = sorted((Path(__file__).resolve().parents[1] / "versions").glob("*/delta.json"))


def _current_deltas(root: Path) -> list[Path]:
    found = [p for p in sorted(root.rglob("delta.json")) if "delta_format" in json.loads(p.read_text())]
    assert found, f"no delta.json of format 2 or 3 under {root}"
    return found


def test_every_frozen_delta_of_the_demo_round_trips_byte_for_byte(demo_build: Path) -> None:
    for path in _current_deltas(demo_build):
        raw = path.read_bytes()
        delta = Delta.from_json(json.loads(raw))
        assert frozen_file(delta.to_json()) == raw, path
        assert Delta.from_json(delta.to_json()) == delta


def test_demo_deltas_say_what_moved(demo_build: Path) -> None:
    compared = [Delta.from_json(json.loads(p.read_text())) for p in _current_deltas(demo_build)]
    later = [d for d in compared if d.from_ is not None]
    assert later, "the demo has no second version"
    for delta in later:
        assert delta.fixtures is not None
        # A suite with code under test says what its pinned SHA and code did; bbh has none (issue 26).
        with_code = delta.to != "bbh_v2"
        assert (delta.pinned_sha is not None and delta.code is not None) is with_code, delta.to
        assert set(delta.moved).isdisjoint(delta.unmoved)
        assert delta_lines(delta)[0].startswith(f"{delta.from_} → {delta.to}") or delta.reversed
    for delta in compared:
        if delta.from_ is None:
            assert delta.fixtures is None and delta.code is None and delta.grep_oracle.before is None


def test_the_format_of_freezer_0_1_0_is_not_read_as_a_typed_delta() -> None:
    assert V1_DELTAS
    for path in V1_DELTAS:
        with pytest.raises(ValueError, match="format 2, 3, 4, 5 or 6"):
            Delta.from_json(json.loads(path.read_text()))


@pytest.mark.parametrize(
    ("record", "text"),
    [
        ({"path": "$.a", "change": "added", "new": "x"}, "∅ → x"),
        ({"path": "$.a", "change": "removed", "old": "x"}, "x → ∅"),
        ({"path": "$.a", "change": "changed", "old": None, "new": 3}, "null → 3"),  # never Python's None (issue 27)
        ({"path": "$.a", "change": "items", "added": ["b"], "removed": []}, "+['b'] -[]"),
    ],
)
def test_each_change_kind_keeps_exactly_its_keys(record: dict[str, object], text: str) -> None:
    change = FieldChange.from_json(dict(record))
    assert change.to_json() == record
    assert change_text(change) == text


def test_an_unknown_change_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown change kind 'moved'"):
        FieldChange.from_json({"path": "$.a", "change": "moved"})
