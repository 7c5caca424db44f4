"""A path named to ``freezer validate`` that is not a regular file (a FIFO, a link to one) is
refused with a message, never read: the modeline reader opened a FIFO and waited for a writer
forever. The real CLI in a process of its own, with a timeout that a hang would hit."""

from __future__ import annotations

import os
from pathlib import Path

from conftest import assert_clean_failure, run_forked


def test_a_fifo_named_to_validate_is_refused_not_waited_on(tmp_path: Path) -> None:
    for name in ("f.yaml", "fixture.yml", "version.yaml"):
        os.mkfifo(tmp_path / name)
        result = run_forked("validate", name, cwd=tmp_path, timeout=30)
        assert_clean_failure(result)
        assert f"{name}: $: is not a regular file" in result.out, result.out


def test_a_fifo_among_loose_files_of_a_folder_is_refused_and_the_rest_checked(tmp_path: Path) -> None:
    folder = tmp_path / "loose"
    folder.mkdir()
    os.mkfifo(folder / "pipe.yaml")
    (folder / "ok.yaml").write_text("# yaml-language-server: $schema=generic.schema.json\ntask_id: a\n")
    result = run_forked("validate", "loose", cwd=tmp_path, timeout=30)
    assert_clean_failure(result)
    assert "loose/pipe.yaml: $: is not a regular file" in result.out, result.out
    assert "loose/ok.yaml" in result.out, result.out


def test_a_link_to_a_fifo_is_refused_as_a_link(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "f.yaml").symlink_to("pipe")
    result = run_forked("validate", "f.yaml", cwd=tmp_path, timeout=30)
    assert_clean_failure(result)
    assert "f.yaml: $: is a symbolic link" in result.out, result.out
