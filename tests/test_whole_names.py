"""Whole-name matching: globs, JSON path keys and SHA256SUMS lines, newlines and separators included."""

from __future__ import annotations

import pytest

from freezer.domain.errors import UsageError
from freezer.git.globs import compile_glob


def test_globs_match_whole_names_with_newlines() -> None:
    assert compile_glob("tools/**").matches("tools/x\ny.rs")
    assert not compile_glob("*.yaml").matches("a.yaml\n")
    assert not compile_glob("fixtures/*.yaml").matches("fixtures/a.yaml\n")
    assert compile_glob("fixtures/*.yaml").matches("fixtures/a.yaml")


def test_json_paths_quote_a_key_with_a_newline() -> None:
    from freezer.domain.findings import format_json_path

    assert format_json_path(("a\n",)) != "$.a\n"
    assert format_json_path(("a",)) == "$.a"


def test_sha256sums_lines_end_at_lf_only() -> None:
    from freezer.registry.integrity import _parse_sums

    digest = "0" * 64
    parsed = _parse_sums(f"{digest}  a\u2028b.yaml\n{digest}  c.yaml\n".encode())
    assert parsed == {"a\u2028b.yaml": digest, "c.yaml": digest}


def test_one_label_grammar_names_folders_and_labels() -> None:
    from freezer.registry.registry import number_in_name, parse_label

    assert number_in_name("graph", "graph_v2") == 2
    assert number_in_name("my_suite", "my_suite_v12") == 12
    assert number_in_name("graph", "graph_v2\n") is None
    assert number_in_name("graph", "other_v2") is None
    assert number_in_name("graph", "graph_v02") is None
    assert number_in_name("graph", "graph_v1234567") == 1234567  # found, so it is reported
    assert number_in_name("graph", "graph_v1234567", bounded=True) is None
    assert number_in_name("graph", 2) is None
    assert parse_label("graph_v2") == ("graph", 2)
    assert parse_label("v999999") == (None, 999999)
    with pytest.raises(UsageError):
        parse_label("v1000000")
