"""The glob engine matches whole names, newlines included."""

from __future__ import annotations

from freezer.globs import glob_regex


def test_globs_match_whole_names_with_newlines() -> None:
    assert glob_regex("tools/**").match("tools/x\ny.rs")
    assert not glob_regex("*.yaml").match("a.yaml\n")
    assert not glob_regex("fixtures/*.yaml").match("fixtures/a.yaml\n")
    assert glob_regex("fixtures/*.yaml").match("fixtures/a.yaml")
