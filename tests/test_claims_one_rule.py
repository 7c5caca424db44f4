"""§Delta and compare say which fixtures a changed file moves, and which changed files are the
suite's own, by one rule (:mod:`freezer.compare.claims`). These tests fail if either side derives
it again on its own, or if the two disagree on real frozen versions."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from freezer.compare import comparability
from freezer.compare.claims import changed_assets, claims_of, through_files, unclaimed_changes
from freezer.compare.delta import compute
from freezer.registry.config import load as load_config
from freezer.registry.model import Suite
from freezer.registry.record import Side, dimensions_of, read

ROOT = Path(__file__).resolve().parents[1]
COMPARE = ROOT / "freezer" / "compare"
FORMAT_4 = ROOT / "tests" / "cases" / "format-4-registry"
# What decides which files a fixture's entries name (through which files it moved: claims.moved_files).
PRIMITIVES = {"named_files"}
BBH_UTILS = ["bbh_slice_alphabetical_order", "bbh_slice_bracket_closing", "bbh_slice_item_tally"]


def _called(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            names.add(func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else "")
    return names


def test_no_module_of_the_compare_stage_but_claims_derives_the_rule() -> None:
    modules = sorted(COMPARE.glob("*.py"))
    assert len(modules) > 5
    for path in modules:
        if path.name != "claims.py":
            assert not _called(path) & PRIMITIVES, f"{path.name} derives what a fixture claims on its own"
    assert _called(COMPARE / "claims.py") >= PRIMITIVES
    defined = {
        n.name
        for n in ast.walk(ast.parse((COMPARE / "claims.py").read_text(encoding="utf-8")))
        if isinstance(n, ast.FunctionDef)
    }
    assert "moved_files" in defined, "claims.py decides through which files a fixture moved"


def test_delta_and_compare_both_call_the_rule() -> None:
    assert {"claims_of", "through_files", "unclaimed_changes"} <= _called(COMPARE / "delta.py")
    assert "moved_files" in _called(COMPARE / "comparability.py")
    # compare takes the suite's assets from the delta: no set of claimed files of its own.
    source = (COMPARE / "comparability.py").read_text(encoding="utf-8")
    assert "claimed" not in source.replace("unclaimed", "")


@pytest.fixture
def old(tmp_path: Path) -> Path:
    root = tmp_path / "old"
    shutil.copytree(FORMAT_4, root)
    return root


def _sides(root: Path, suite: str) -> list[Side]:
    config = load_config(root).suites[suite]
    return [read(v).side() for v in Suite.of(config).versions()]


@pytest.mark.parametrize(
    ("suite", "moved"),
    [
        ("bbh", {"tasks/utils.py": BBH_UTILS}),
        (
            "tb",
            {"tasks/count-words/instruction.md": ["count-words"], "tasks/rotate-logs/tests/test.sh": ["rotate-logs"]},
        ),
    ],
)
def test_the_delta_and_compare_agree_on_frozen_versions(old: Path, suite: str, moved: dict[str, list[str]]) -> None:
    v1, v2 = _sides(old, suite)
    claims = claims_of(v1, v2)
    for rel, tasks in moved.items():
        assert list(claims.of(rel)) == tasks
    through = {f.task_id: list(f.files) for f in through_files(v1, v2)}
    assert through == {task: [rel] for rel, tasks in moved.items() for task in tasks}
    delta = compute([v1, v2], dimensions_of(v2.manifest))
    assert delta.fixtures is not None and delta.assets is not None
    assert not set(delta.fixtures.unchanged) & set(through)
    assert set(delta.fixtures.changed_ids()) == set(through)
    assert ("assets" in delta.moved) == bool(unclaimed_changes(delta.assets, claims))
    arms = {"all": ["assets", "record"]}
    groups = dict(v2.manifest.comparability.groups) if v2.manifest.comparability else {}
    [record] = comparability.compare([v1, v2], dimensions_of(v2.manifest), arms, groups)
    assert set(record.excluded) == set(through) and "assets" not in record.moved
    # Comparability format 2, which versions cut before freezer named files froze, moves the
    # suite's assets for any changed asset: kept as it was, claimed or not.
    [frozen_2] = comparability.compare([v1, v2], dimensions_of(v2.manifest), arms, groups, record_format=2)
    assert ("assets" in frozen_2.moved) == bool(changed_assets(delta.assets))


def test_format_4_keeps_its_own_rule_when_recomputed(old: Path) -> None:
    v1, v2 = _sides(old, "bbh")
    four = compute([v1, v2], dimensions_of(v2.manifest), delta_format=4)
    five = compute([v1, v2], dimensions_of(v2.manifest))
    assert four.fixtures is not None and five.fixtures is not None
    assert four.fixtures.unchanged_yet_changed() == tuple(BBH_UTILS)
    assert five.fixtures.unchanged_yet_changed() == ()
    assert "assets" in four.moved and "fixture set" in four.unmoved
    assert "assets" in five.unmoved and "fixture set" in five.moved
    assert four.assets is not None and not four.assets.claimed
    assert five.assets is not None and dict(five.assets.claimed) == {"tasks/utils.py": tuple(BBH_UTILS)}
