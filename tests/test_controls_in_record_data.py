"""Record data may carry control characters (real SWE-bench logs hold ANSI colour codes); no output
carries one raw. Every page of the site, `show` (text and JSON), `compare` and METHOD.md escape the
C0 and C1 controls, DEL and the bidirectional overrides of record data (freezer/domain/escape.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_kind_records import IDS, _jsonl, _record, _swe, _version_yaml

from conftest import run_inprocess
from registry_helpers import commit_all

# A clipboard-writing OSC 52 escape, a CSI in its C1 form, a right-to-left override, DEL, a colour.
HOSTILE = ("\x1b]52;c;ZXZpbA==\x07", "\x9b31m", "\u202e", "\x7f", "\x1b[31mFAILED\x1b[0m", "\u2066")
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\x7f", "\u2066")


def _hostile_drafts(reg: Path) -> Path:
    drafts = _swe(reg)
    records = [_record(i) for i in IDS[:3]]
    for n, text in enumerate(HOSTILE):
        target = records[n % 3]
        target[f"log_{n}"] = f"before {text} after"
        target["problem_statement"] = str(target["problem_statement"]) + text
    (drafts / "instances" / "part1.jsonl").write_text(_jsonl(records), encoding="utf-8")
    commit_all(reg, "records carrying controls")
    return drafts


def _assert_no_raw(where: str, text: str) -> None:
    for char in RAW:
        assert char not in text, f"{where} carries U+{ord(char):04X} raw"


@pytest.fixture
def frozen(reg: Path) -> Path:
    drafts = _hostile_drafts(reg)
    assert run_inprocess("validate", "--suite", "swe", cwd=reg).code == 0
    assert run_inprocess("cut", "swe_v1", cwd=reg).code == 0
    commit_all(reg, "freeze swe_v1")
    records = [_record(i) for i in IDS[:3]]
    records[0]["log_9"] = "changed \x1b]52;c;b3RoZXI=\x07 \u202e"
    (drafts / "instances" / "part1.jsonl").write_text(_jsonl(records), encoding="utf-8")
    (drafts / "version.yaml").write_text(_version_yaml(2))
    assert run_inprocess("cut", "swe_v2", cwd=reg).code == 0
    commit_all(reg, "freeze swe_v2")
    return reg


def test_the_frozen_bytes_keep_the_record_data_as_written(frozen: Path) -> None:
    frozen_file = (frozen / "versions/swe_v1/instances/part1.jsonl").read_text(encoding="utf-8")
    assert "\\u001b]52" in frozen_file  # the data is the benchmark's: kept, as JSON escapes


def test_no_site_page_carries_a_raw_control_from_record_data(frozen: Path) -> None:
    out = frozen.parent / "site"
    built = run_inprocess("site", str(out), cwd=frozen)
    assert built.code == 0, built.text
    # A version's download (<vN>.tar.gz) is the frozen bytes themselves, control characters included,
    # as sha256sum must find them; every page and text file the site renders is checked.
    pages = [p for p in out.rglob("*") if p.is_file() and not p.name.endswith(".tar.gz")]
    assert any("orbit__orbit-101" in p.read_text(encoding="utf-8", errors="replace") for p in pages)
    for page in pages:
        _assert_no_raw(str(page.relative_to(out)), page.read_text(encoding="utf-8", errors="replace"))


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_show_and_compare_carry_no_raw_control_from_record_data(frozen: Path, fmt: str) -> None:
    for command in (("show", "swe_v1"), ("show", "swe_v2"), ("compare", "swe_v1", "swe_v2")):
        result = run_inprocess(*command, "--format", fmt, cwd=frozen)
        assert result.code == 0, result.text
        _assert_no_raw(" ".join(command), result.text)
        if fmt == "json":
            json.loads(result.out)


def test_method_md_carries_no_raw_control_from_record_data(frozen: Path) -> None:
    for name in ("swe_v1", "swe_v2"):
        method = (frozen / "versions" / name / "METHOD.md").read_text(encoding="utf-8")
        _assert_no_raw(f"{name}/METHOD.md", method)
