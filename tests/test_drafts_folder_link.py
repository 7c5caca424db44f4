"""A suite's drafts folder that is a symbolic link inside the registry (``mv drafts/graph
drafts/real; ln -s real drafts/graph``) is refused by ``validate`` of the whole registry, of a
folder holding it, and by ``cut``, as ``validate drafts/graph`` always refused it; nothing is frozen.
Real registries, real git, the real CLI (in-process: the interpreter's start is not the subject)."""

from __future__ import annotations

from pathlib import Path

from conftest import assert_clean_failure, run_inprocess
from registry_helpers import commit_all


def _link_drafts(reg: Path, link: str = "drafts/graph", real: str = "drafts/real") -> None:
    (reg / link).rename(reg / real)
    (reg / link).symlink_to(Path(real).name if Path(real).parent == Path(link).parent else reg / real)
    commit_all(reg, "drafts through a link")


def test_a_linked_drafts_folder_is_refused_by_every_validate_and_by_cut(reg: Path) -> None:
    _link_drafts(reg)
    for args in (("validate",), ("validate", "drafts"), ("validate", "drafts/graph"), ("validate", "--suite", "graph")):
        result = run_inprocess(*args, cwd=reg)
        assert_clean_failure(result)
        assert "symbolic link" in result.out, (args, result.out)
    whole = run_inprocess("validate", cwd=reg)
    assert "freezer.yaml:" in whole.out and "drafts/graph" in whole.out, whole.out
    for args in (("cut", "v1", "--dry-run"), ("cut", "v1")):
        result = run_inprocess(*args, cwd=reg)
        assert_clean_failure(result)
        assert "symbolic link" in result.text, (args, result.text)
    assert not (reg / "versions").exists() or not any((reg / "versions").iterdir())


def test_a_drafts_folder_under_a_linked_parent_is_refused(reg: Path) -> None:
    (reg / "drafts").rename(reg / "elsewhere")
    (reg / "drafts").symlink_to("elsewhere")
    commit_all(reg, "drafts parent through a link")
    result = run_inprocess("validate", cwd=reg)
    assert_clean_failure(result)
    assert "symbolic link" in result.out, result.out
    assert_clean_failure(run_inprocess("cut", "v1", cwd=reg))


def test_a_registry_reached_through_a_link_outside_it_still_validates_and_cuts(reg: Path, tmp_path: Path) -> None:
    # A checkout layout: the link is above the registry, not in it.
    outside = tmp_path / "checkout"
    outside.symlink_to(reg)
    result = run_inprocess("validate", cwd=outside)
    assert result.code == 0, result.text
    result = run_inprocess("cut", "v1", cwd=outside)
    assert result.code == 0, result.text
