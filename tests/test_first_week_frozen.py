"""Issue 27, first week item 4: a version already frozen is said so first, and never rewritten.

`cut v2` when bench_v2 is frozen and the drafts say 3, or say 2 but do not validate, or were cut by an
older freezer (tests/cases/format-3-registry, freezer 0.3.0): each answer starts with
"graph_v2 is already frozen (versions/graph_v2, cut <date>)". Real registries in tmp_path.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from conftest import REPO, assert_clean_failure, run_inprocess
from registry_helpers import sample_repo, set_drafts, snapshot

FORMAT_3 = REPO / "tests/cases/format-3-registry"
FROZEN_LINE = re.compile(r"graph_v2 is already frozen \(versions/graph_v2, cut \d{4}-\d\d-\d\d\)")


def _set_version(reg: Path, number: int) -> None:
    version = reg / "drafts/graph/version.yaml"
    version.write_text(re.sub(r"(?m)^version: \d+$", f"version: {number}", version.read_text()))


def test_the_drafts_of_the_next_version_are_told_to_cut_as_it(v2_frozen: Path) -> None:
    reg = v2_frozen
    before = snapshot(reg / "versions")
    for number in (3, 4):
        _set_version(reg, number)
        result = run_inprocess("cut", "v2", cwd=reg)
        assert_clean_failure(result)
        first = result.err.strip().splitlines()[0]
        assert FROZEN_LINE.search(first), result.err
        assert f"The drafts say version {number}" in first
        assert f"freezer cut v{number}" in result.err
        assert "not 2" not in result.err
        assert snapshot(reg / "versions") == before


def test_drafts_that_do_not_validate_still_hear_the_version_is_frozen(v2_frozen: Path) -> None:
    reg = v2_frozen
    before = snapshot(reg / "versions")
    fixture = reg / "drafts/graph/fixtures/locate-loopaudit-variants.yaml"
    for broken in ("task_id: [", "status: maybe\n"):
        fixture.write_text(fixture.read_text() + "\n" + broken)
        result = run_inprocess("cut", "v2", cwd=reg)
        assert_clean_failure(result)
        assert FROZEN_LINE.search(result.err.strip().splitlines()[0]), result.err
        assert "locate-loopaudit-variants.yaml" in result.out + result.err
        assert snapshot(reg / "versions") == before
        set_drafts(reg, "v2")


def test_changed_drafts_of_a_frozen_version_are_refused_naming_it_first(v2_frozen: Path) -> None:
    reg = v2_frozen
    before = snapshot(reg / "versions")
    fixture = reg / "drafts/graph/fixtures/locate-loopaudit-variants.yaml"
    for old, new in (("difficulty: easy", "difficulty: medium"), ("difficulty: medium", "difficulty: hard")):
        fixture.write_text(fixture.read_text().replace(old, new, 1))
        result = run_inprocess("cut", "v2", cwd=reg)
        assert_clean_failure(result)
        assert FROZEN_LINE.search(result.err.strip().splitlines()[0]), result.err
        assert "fixtures/locate-loopaudit-variants.yaml differs from the frozen copy" in result.err
        assert snapshot(reg / "versions") == before
    dry = run_inprocess("cut", "v2", "--dry-run", cwd=reg)
    assert dry.code == 0, dry.text
    assert FROZEN_LINE.search(dry.err) and "as v3 instead: a real cut would be refused" in dry.err


def _drafts_from_frozen(root: Path, name: str, suite: str) -> None:
    """The drafts a version was cut from: every input file its manifest lists."""
    frozen = root / "versions" / name
    manifest = json.loads((frozen / "manifest.json").read_text())
    written = {"manifest.json", "METHOD.md", "METHOD.md.j2", "SHA256SUMS", "delta.json", "comparability.json"}
    written |= {"provenance.json", ".gitattributes", "fixture.schema.json", "delta.md.j2"}
    drafts = root / "drafts" / suite
    shutil.rmtree(drafts, ignore_errors=True)
    for rel in manifest["files"]:
        if rel not in written:
            (drafts / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(frozen / rel, drafts / rel)


def test_a_version_cut_by_an_older_freezer_is_already_frozen(tmp_path: Path, cache_root: Path) -> None:
    """The case in notes/stop.md: a re-cut of a 0.3.0 version read as 'manifest checks differs'."""
    root = tmp_path / "old"
    shutil.copytree(FORMAT_3, root)
    shutil.copytree(sample_repo(cache_root), root / "sample-code", symlinks=True)
    before = snapshot(root / "versions")
    for name, suite, label in (("graph_v2", "graph", "v2"), ("graph_v1", "graph", "v1"), ("api_v1", "api", "v1")):
        _drafts_from_frozen(root, name, suite)
        result = run_inprocess("cut", label, "--suite", suite, cwd=root)
        assert "Traceback" not in result.text
        assert_clean_failure(result)
        assert f"{name} is already frozen (versions/{name}, cut 2026-" in result.err, result.text
        assert "nothing was written. Its drafts are unchanged" in result.err
        assert "the inputs differ" not in result.err
        assert snapshot(root / "versions") == before
