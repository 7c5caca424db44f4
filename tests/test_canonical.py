"""One canonical-JSON function: each named form gives the bytes its call site wrote before it existed."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from freezer.domain import canonical

from conftest import REPO

RECORDS: list[Any] = [
    {},
    [],
    {"b": 1, "a": [1, 2.5, None, True], "é": "naïve ✓", "nested": {"z": {}, "y": []}},
    {"suites": {"graph": {"versions": 2, "latest": "graph_v2", "manifest_sha256": "0" * 64}}, "at": "2026"},
    ["\u2028 line separator", "tab\t", 'quote"', "\\"],
    "just text",
    10**30,
]


@pytest.mark.parametrize("value", RECORDS)
def test_each_form_is_the_bytes_its_call_site_wrote(value: Any) -> None:
    old_compact = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    assert canonical.compact(value) == old_compact.encode()
    old_frozen = (json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
    assert canonical.frozen_file(value) == old_frozen
    assert canonical.ascii_file(value) == json.dumps(value, indent=2, sort_keys=True) + "\n"
    assert canonical.log_line(value) == json.dumps(value, sort_keys=True, ensure_ascii=False).encode()
    assert canonical.spaced_ascii(value) == json.dumps(value, sort_keys=True)


def test_what_is_signed_or_digested_refuses_nan() -> None:
    with pytest.raises(ValueError):
        canonical.compact({"x": math.nan})
    assert canonical.frozen_file({"x": math.inf}) == b'{\n  "x": Infinity\n}\n'  # as cut wrote it


def test_the_frozen_json_files_of_the_shipped_versions_are_in_the_frozen_form() -> None:
    frozen = sorted(p for p in (REPO / "versions").rglob("*.json") if p.name != "fixture.schema.json")
    assert frozen, "the repository ships frozen versions"
    for path in frozen:
        data = path.read_bytes()
        assert canonical.frozen_file(json.loads(data)) == data, path


def test_no_other_module_sorts_keys_for_a_record() -> None:
    """json.dumps with sort_keys lives in freezer/domain/canonical.py alone (site's display of a
    value is no record: it is shown, never hashed or compared)."""
    found = []
    for path in sorted((REPO / "freezer").rglob("*.py")):
        if "_compiled" in path.parts or path == REPO / "freezer" / "domain" / "canonical.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if "json.dumps(" in line and "sort_keys=True" in line:
                found.append(f"{Path(path).relative_to(REPO)}:{number}")
    assert all(f.startswith("freezer/site/site.py:") for f in found), found
