"""TOML through tomllib under the limits freezer puts on YAML: located problems, never a traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from freezer.parse.document import YamlDocument
from freezer.parse.tomlload import load_bytes, load_file, positions
from freezer.parse.yamllocate import DEFAULT_LIMITS, Limits

HARBOR_TASK = """\
version = "1.0"

[metadata]
author_name = "A. Maintainer"
difficulty = "medium"
category = "file-operations"
tags = ["bash",
  "files"]
created = 2025-03-01

[verifier]
timeout_sec = 120.0

[agent]
timeout_sec = 600.0

[environment]
build_timeout_sec = 600.0
docker_image = "ghcr.io/example/task@sha256:0123"
cpus = 1
memory_mb = 2048
"""


def write(tmp_path: Path, text: str | bytes, name: str = "task.toml") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def messages(raw: bytes | str, limits: Limits = DEFAULT_LIMITS) -> list[str]:
    result = load_bytes(raw.encode() if isinstance(raw, str) else raw, "t.toml", limits)
    assert result.document is None
    return [str(problem) for problem in result.problems]


def test_a_harbor_task_toml_loads_as_a_document(tmp_path: Path) -> None:
    result = load_file(write(tmp_path, HARBOR_TASK), "tasks/hello/task.toml")
    assert result.problems == []
    document = result.document
    assert isinstance(document, YamlDocument)
    assert document.data["environment"]["memory_mb"] == 2048
    assert document.data["verifier"]["timeout_sec"] == 120.0
    assert document.data["metadata"]["tags"] == ["bash", "files"]
    assert document.data["metadata"]["created"] == "2025-03-01"  # a date is text, as in YAML
    # A later check locates its problem at the line the key is written on.
    problem = document.problem(("environment", "docker_image"), "tag-only image", "rule")
    assert (problem.file, problem.line, problem.col) == ("tasks/hello/task.toml", 19, 1)
    assert document.locate(("metadata", "tags", 1)) == (7, 1)  # an array item: at its key
    assert document.locate(("agent", "nothing", "here")) == (14, 1)  # the nearest parent


@pytest.mark.parametrize(
    ("text", "where", "words"),
    [
        ("a = 1\nb = = 2\n", "t.toml:2:5: $:", "TOML syntax: Invalid value"),
        ('a = "x\n', "t.toml:1:7: $:", "Illegal character"),
        ("a = 1\na = 2\n", "t.toml:2:6: $:", "Cannot overwrite a value"),
        ("a = 1\n[b", "t.toml:2:3: $:", "at the end of a table declaration"),  # at the end of the document
        ("[t]\nx = 1\n[t]\n", "t.toml:3:", "TOML syntax"),
    ],
)
def test_broken_toml_is_one_located_problem(text: str, where: str, words: str) -> None:
    found = messages(text)
    assert len(found) == 1
    assert found[0].startswith(where)
    assert words in found[0]
    assert "(at line" not in found[0]  # the position went into the problem, not the text


def test_a_huge_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    big = write(tmp_path, "x = 1\n" + "# padding\n" * 120_000)
    result = load_file(big, "big.toml")
    assert result.document is None
    assert "over the 1048576-byte limit" in result.problems[0].message
    assert result.problems[0].layer == "file"
    assert messages("a = 'x'\n" * 10, Limits(max_bytes=50))[0].startswith("t.toml: $: file is 80 bytes")


def test_folders_fifos_and_links_are_refused(tmp_path: Path) -> None:
    (tmp_path / "dir.toml").mkdir()
    os.mkfifo(tmp_path / "fifo.toml")
    (tmp_path / "link.toml").symlink_to(write(tmp_path, "a = 1\n", "real.toml"))
    refused = {name: load_file(tmp_path / name, name).problems[0].message for name in ("dir.toml", "fifo.toml")}
    assert refused["dir.toml"] == "is a directory, expected a TOML file"
    assert "FIFO" in refused["fifo.toml"]
    # A link is named as one (it read "cannot open: Too many levels of symbolic links" before reading.py said why).
    assert "is a symbolic link" in load_file(tmp_path / "link.toml").problems[0].message


@pytest.mark.parametrize("levels", [65, 200, 3000])
def test_inline_nesting_deeper_than_the_limit_is_refused_located(levels: int) -> None:
    found = messages("x = " + "[" * levels + "]" * levels + "\n")
    assert len(found) == 1
    assert "nested deeper than 64 levels" in found[0]
    # At the 65th container's bracket: the root table and 63 arrays fit; 3000 levels end tomllib's recursion.
    assert found[0].startswith("t.toml:1:68: $")


def test_nesting_up_to_the_limit_loads() -> None:
    result = load_bytes(("x = " + "[" * 63 + "]" * 63).encode(), "t.toml")
    assert result.problems == []
    assert load_bytes(("x = " + "[" * 64 + "]" * 64).encode(), "t.toml").problems != []


def test_a_deep_table_header_is_refused_without_recursion() -> None:
    header = "[" + ".".join(["a"] * 5000) + "]\nx = 1\n"
    found = messages(header)
    assert len(found) == 1 and "nested deeper than 64 levels" in found[0]
    assert found[0].startswith("t.toml:1:1: $.a.a.a")


def test_too_many_values_are_refused() -> None:
    found = messages("a = [" + ", ".join("1" for _ in range(50)) + "]\n", Limits(max_nodes=20))
    assert len(found) == 1 and "more than 20 values" in found[0]


@pytest.mark.parametrize(
    ("text", "where", "what"),
    [
        ('[m]\nbad = "\\u001b[31mred"\n', "t.toml:2:1: $.m.bad:", "U+001B"),
        ('ok = 1\nnul = "a\\u0000b"\n', "t.toml:2:1: $.nul:", "U+0000"),
        ('"key\u202e" = 1\n', "t.toml:1:1: $['key\u202e']:", "U+202E"),  # a bidirectional override, raw, in a key
        ('s = """\nline\u2028two"""\n', "t.toml:1:1: $.s:", "U+2028"),  # in a multi-line string: at its key
    ],
)
def test_control_characters_in_data_are_refused_located(text: str, where: str, what: str) -> None:
    found = messages(text)
    assert len(found) == 1
    assert found[0].startswith(where)
    assert what in found[0] and "control character" in found[0]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("a = nan\n", "t.toml:1:1: $.a: nan is not a finite number"),
        ("[x]\nb = [1, -inf]\n", "t.toml:2:1: $.x.b[1]: -inf is not a finite number"),
        ("big = 9223372036854775808\n", "t.toml:1:1: $.big: an integer beyond TOML's 64 bits"),
        ("n = " + "9" * 5000 + "\n", "t.toml:1:5: $: an integer of more than 4300 digits"),
        ("\ufeffa = 1\n", "t.toml:1:1: $: starts with a byte-order mark"),
    ],
)
def test_values_freezer_cannot_record_are_refused(text: str, words: str) -> None:
    found = messages(text)
    assert len(found) == 1 and found[0].startswith(words)


def test_bytes_that_are_not_utf8_are_refused_located() -> None:
    found = messages(b"a = 1\nb = '\xff'\n")
    assert found == ["t.toml:2:6: $: not valid UTF-8: byte 0xff at offset 11; save the file as UTF-8"]


def test_positions_follow_arrays_of_tables_quoted_keys_and_multiline_values() -> None:
    text = """\
title = "x"
[[steps]]
name = "one"
[[steps]]
name = "two"
"dotted.key" = 1
site."quoted part".leaf = 2
[[steps.sub]]
n = 1
[env]
script = '''
fake = "not a key"
[not.a.table]
'''
list = [
  { inner = 1 },
]
after = true
"""
    marks = positions(text)
    assert marks[("steps", 0, "name")] == (3, 1)
    assert marks[("steps", 1, "name")] == (5, 1)
    assert marks[("steps", 1, "dotted.key")] == (6, 1)
    assert marks[("steps", 1, "site", "quoted part", "leaf")] == (7, 1)
    assert marks[("steps", 1, "sub", 0, "n")] == (9, 1)
    assert marks[("env", "after")] == (18, 1)
    assert ("env", "fake") not in marks and ("not",) not in marks and ("env", "inner") not in marks
    assert load_bytes(text.encode(), "t.toml").problems == []
