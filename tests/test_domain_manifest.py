"""The typed manifest: one reader for every manifest format, one writer for the current ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from freezer.domain import canonical
from freezer.domain.manifest import LEGACY_GREP_ENGINE, Comparability, Manifest

from conftest import REPO, run_inprocess
from registry_helpers import set_drafts


def _manifests(root: Path) -> list[Path]:
    return sorted(root.glob("versions/*/manifest.json"))


def test_every_manifest_a_cut_writes_round_trips_byte_for_byte(reg: Path) -> None:
    assert run_inprocess("cut", "v1", cwd=reg).code == 0
    set_drafts(reg, "v2")
    assert run_inprocess("cut", "v2", cwd=reg).code == 0
    found = _manifests(reg)
    assert len(found) == 2
    for path in found:
        frozen = path.read_bytes()
        manifest = Manifest.from_data(json.loads(frozen))
        assert manifest.format == 3
        assert canonical.frozen_file(manifest.to_json()) == frozen, path


def test_the_demo_registry_round_trips_and_audits(demo_build: Path) -> None:
    found = _manifests(demo_build)
    assert found
    for path in found:
        frozen = path.read_bytes()
        assert canonical.frozen_file(Manifest.from_data(json.loads(frozen)).to_json()) == frozen, path


def test_format_1_is_read_and_never_written() -> None:
    for path in _manifests(REPO):
        data = json.loads(path.read_bytes())
        assert data["manifest_format"] == 1
        manifest = Manifest.from_data(data)
        assert manifest.checks.grep is not None and manifest.checks.grep.engine == LEGACY_GREP_ENGINE
        assert manifest.checks.dimensions is None and not manifest.code_history_recorded
        assert manifest.recorded_scan is None  # what 0.1.0 recorded is scanned_from/scanned_to
        assert manifest.legacy_scan == (data["tool_surface"]["scanned_from"], data["tool_surface"]["scanned_to"])
        assert manifest.pinned_sha == data["pinned_sha"]["full"] and manifest.cut_at == data["cut_at"]
        with pytest.raises(ValueError, match="read-only"):
            manifest.to_json()


def test_the_comparability_record_is_read_in_canonical_order() -> None:
    digest = "0" * 64
    record = Comparability.from_data(
        {
            "arms": {"zeta": ["b", "a"], "alpha": ["code"]},
            "groups": {"title": "cosmetic", "input": "input"},
            "fixtures": {
                "t2": dict.fromkeys(("input", "grading", "cosmetic", "score"), digest),
                "t1": {"input": digest, "grading": digest, "cosmetic": digest, "score": digest},
            },
            "environment": digest,
        }
    )
    assert list(record.arms) == ["alpha", "zeta"]
    assert record.arms["zeta"] == ("b", "a")  # what an arm depends on keeps its recorded order
    assert list(record.groups) == ["input", "title"]
    assert list(record.fixtures) == ["t1", "t2"]
    assert record.to_json()["environment"] == digest
