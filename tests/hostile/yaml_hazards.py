"""YAML that reads other than it looks (issue 23, class 13).

Each hazard is a text and every problem freezer must report for it, where it
is written: ``(line, column, JSON path, a fragment of the message)``, kept as
data in ``tests/cases/yaml-hazards`` (NAME.yaml, NAME.expect.json). Several
instances of each kind: anchors and aliases (Rust's ``&mut``, ``&self``,
``&str``, ``*const``), merge and value keys, integers and floats that YAML 1.1
and 1.2 read differently or that are not plain decimal, YAML 1.1-only
booleans, every tag, directives, and line breaks only YAML sees (NEL, LS, PS,
a lone CR), in comments too. ``ACCEPTED`` holds what must still load, and as
what. ``yaml_cases()`` gives the same hazards as subprocess cases of the
hostile campaign (one fixture of a valid drafts folder each).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hostile.corpus import BAD, Case, _write

Expected = tuple[int, int, str, str]

HAZARD_CASES = Path(__file__).resolve().parent.parent / "cases" / "yaml-hazards"


def _hazards() -> dict[str, tuple[str, list[Expected]]]:
    """Every case of ``tests/cases/yaml-hazards``: NAME.yaml as written, NAME.expect.json its problems."""
    cases = {}
    for path in sorted(HAZARD_CASES.glob("*.yaml")):
        expected = json.loads(path.with_name(f"{path.stem}.expect.json").read_text(encoding="utf-8"))
        cases[path.stem] = (
            path.read_bytes().decode("utf-8"),
            [(line, column, where, message) for line, column, where, message in expected],
        )
    return cases


HAZARDS: dict[str, tuple[str, list[Expected]]] = _hazards()

# What must still load, and as what (YAML 1.1 and 1.2 read these alike).
ACCEPTED: dict[str, tuple[str, Any]] = {
    "quoted-anchor-text": ("symbol: '&mut deterministic('\n", {"symbol": "&mut deterministic("}),
    "quoted-alias-text": ('symbol: "*const u8"\n', {"symbol": "*const u8"}),
    "ampersand-inside-text": ("sig: fn(&self) -> &str\n", {"sig": "fn(&self) -> &str"}),
    "quoted-numbers": ("a: '0414'\nb: \"1_000\"\n", {"a": "0414", "b": "1_000"}),
    "quoted-booleans": ("a: 'yes'\nb: \"off\"\n", {"a": "yes", "b": "off"}),
    "plain-decimal": ("a: 0\nb: -0\nc: 268\nd: -12\n", {"a": 0, "b": 0, "c": 268, "d": -12}),
    "decimal-floats": (
        "a: 1.5\nb: -0.25\nc: 1.\nd: .5\ne: 1.5e+3\n",
        {"a": 1.5, "b": -0.25, "c": 1.0, "d": 0.5, "e": 1500.0},
    ),
    "core-booleans": ("a: true\nb: False\nc: TRUE\n", {"a": True, "b": False, "c": True}),
    "y-and-n-are-text": ("a: y\nb: n\nc: Y\nd: N\n", {"a": "y", "b": "n", "c": "Y", "d": "N"}),
    "dates-are-text": ("d: 2026-12-01\nt: 2026-12-01T10:00:00Z\n", {"d": "2026-12-01", "t": "2026-12-01T10:00:00Z"}),
    "null-forms": ("a: ~\nb: null\nc: Null\nd: NULL\ne:\n", dict.fromkeys("abcde")),
    "crlf": ("a: 1\r\nb: two words\r\n", {"a": 1, "b": "two words"}),
    "tab-in-text": ("a: x\ty\n", {"a": "x\ty"}),
    "quoted-merge-key": ("'<<': x\n", {"<<": "x"}),
    "hex-like-sha": ("sha: 0a1b2c3\n", {"sha": "0a1b2c3"}),
    "question-marks-in-text": ("question: why? and ?x\n", {"question": "why? and ?x"}),
    "block-question-is-text": ("- ?x\n- ? y\n", ["?x", {"y": None}]),
    "flow-explicit-key": ("a: [? x]\n", {"a": [{"x": None}]}),
    "trailing-spaces-after-content": ("a: x   ", {"a": "x"}),
}


def yaml_cases() -> Iterator[Case]:
    """Each hazard as one fixture of a valid drafts folder, for the subprocess campaign."""
    for name, (text, _) in HAZARDS.items():
        yield Case(f"yaml-hazard-{name}", "yaml", _write(BAD, text.encode("utf-8")), BAD)
