"""A place the user names for output (``site OUT``, ``results import --out``) is checked by one owner,
freezer.runtime.writing: never written through a link, never one of freezer's own folders."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from freezer.domain.errors import FreezerError, UsageError
from freezer.runtime.writing import write_new, write_output

from conftest import assert_clean_failure, run_inprocess


@pytest.fixture
def demo(tmp_path: Path, demo_build: Path) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    return root


@pytest.mark.parametrize("inside", [True, False])
def test_site_refuses_an_output_folder_that_is_a_link(demo: Path, inside: bool) -> None:
    elsewhere = demo.parent / "elsewhere"
    elsewhere.mkdir()
    link = (demo if inside else demo.parent) / "site-link"
    link.symlink_to(elsewhere)
    result = run_inprocess("site", str(link), cwd=demo)
    assert_clean_failure(result, 1 if inside else 2)
    assert "symbolic link" in result.text and "site-link" in result.text
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("place", [".git/rows.jsonl", ".freezer/rows.jsonl", "drafts/tb/rows.jsonl", "versions/x"])
def test_write_output_refuses_freezers_own_folders(demo: Path, place: str) -> None:
    kept = [demo / "drafts" / "tb", demo / "versions"]
    with pytest.raises(UsageError, match="where freezer keeps its own files"):
        write_output(demo / place, "row\n", "the rows", registry_root=demo, protected=kept)
    assert not (demo / place).exists()


def test_write_output_and_write_new_never_write_through_a_link(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep")
    link = tmp_path / "link"
    link.symlink_to(victim)
    registry = tmp_path / "registry"
    registry.mkdir()
    with pytest.raises(FreezerError, match="symbolic link"):
        write_output(link, "new", "the rows", registry_root=registry, protected=[])
    with pytest.raises(FileExistsError):
        write_new(link, b"new")
    assert victim.read_text() == "keep"
    write_output(tmp_path / "rows.jsonl", "new\n", "the rows", registry_root=registry, protected=[])
    assert (tmp_path / "rows.jsonl").read_text() == "new\n"
