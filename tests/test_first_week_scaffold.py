"""Issue 27, first week item 2: a cut refuses the scaffold (a ``TODO(freezer …)`` line, the example
fixture init wrote), saying which file and line and what to do, and writes nothing; ``next`` bumps
the title's version number. Real registries and git repositories in tmp_path.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from freezer.freeze.versionedit import bump_title, next_version_text

from conftest import assert_clean_failure, run_inprocess
from registry_helpers import small_code_repo, snapshot, write_own_prose


def _init(tmp_path: Path, kind: str) -> Path:
    small_code_repo(tmp_path / "code")
    made = run_inprocess("init", "reg", "--kind", kind, "--suite", "bench", "--code-repo", "code", cwd=tmp_path)
    assert made.code == 0, made.text
    return tmp_path / "reg"


def _refused(root: Path, label: str = "v1") -> str:
    before = snapshot(root)
    result = run_inprocess("cut", label, cwd=root)
    assert_clean_failure(result)
    assert snapshot(root) == before  # nothing written: no versions/, drafts as they were
    assert not (root / "versions").exists() or label != "v1"
    return result.err


@pytest.mark.parametrize("kind", ["generic", "graph"])
def test_cutting_the_untouched_scaffold_is_refused(tmp_path: Path, kind: str) -> None:
    root = _init(tmp_path, kind)
    if kind == "graph":  # a graph fixture must pass Gate B before the cut reaches the scaffold check
        fixture = root / "drafts/bench/fixtures/example-task.yaml"
        assert "task_id: example-task" in fixture.read_text()
    err = _refused(root)
    if kind == "generic":
        assert "cut refused at step 'scaffold'" in err
        assert (
            "drafts/bench/fixtures/example-task.yaml:4:1: $.task_id: is the example fixture freezer init wrote" in err
        )
        assert "write a task of your benchmark here, with its own task_id, or delete the file" in err
    else:
        assert "drafts/bench/fixtures/example-task.yaml" in err


def test_an_edited_example_that_keeps_its_task_id_is_refused(tmp_path: Path) -> None:
    root = _init(tmp_path, "generic")
    fixture = root / "drafts/bench/fixtures/example-task.yaml"
    for old, new in (("entry point", "main function"), ("locate", "find")):
        fixture.write_text(fixture.read_text().replace(old, new, 1))
        err = _refused(root)
        assert "example-task.yaml:4:1: $.task_id: carries the example fixture's task_id 'example-task'" in err
    fixture.write_text(fixture.read_text().replace("task_id: example-task", "task_id: find-main"))
    write_own_prose(root / "drafts/bench/version.yaml")  # what else the scaffold left is the author's too
    result = run_inprocess("cut", "v1", cwd=root)
    assert result.code == 0, result.text


@pytest.mark.parametrize(
    "marker", ["# TODO(freezer init): say where the task comes from", "  # TODO(freezer next): recheck the line"]
)
def test_a_todo_line_in_a_fixture_is_refused_at_its_line(tmp_path: Path, marker: str) -> None:
    root = _init(tmp_path, "generic")
    fixture = root / "drafts/bench/fixtures/example-task.yaml"
    text = fixture.read_text().replace("task_id: example-task", "task_id: find-main")
    lines = text.splitlines(keepends=True)
    lines.insert(6, marker + "\n")
    fixture.write_text("".join(lines))
    err = _refused(root)
    column = marker.index("#") + 1
    said = marker.strip()
    assert f"example-task.yaml:7:{column}: $: still holds the scaffold's marker '{said}'" in err
    assert "do what it says, then delete the line" in err
    assert "is the example fixture" not in err


def test_next_s_todo_line_is_refused_until_it_is_done(reg: Path) -> None:
    assert run_inprocess("cut", "v1", cwd=reg).code == 0
    assert run_inprocess("next", cwd=reg).code == 0
    version = reg / "drafts/graph/version.yaml"
    line = next(n for n, text in enumerate(version.read_text().splitlines(), 1) if "TODO(freezer next)" in text)
    err = _refused(reg, "v2")
    assert (
        f"drafts/graph/version.yaml:{line}:1: $: still holds the scaffold's marker '# TODO(freezer next): set " in err
    )
    status = run_inprocess("status", cwd=reg)
    assert_clean_failure(status)
    assert ", valid" not in status.out and "TODO(freezer next)" in status.out
    version.write_text(re.sub(r"# TODO\(freezer next\).*\n", "", version.read_text()))
    dry = run_inprocess("cut", "v2", "--dry-run", cwd=reg)
    assert "step 'scaffold'" not in dry.text


@pytest.mark.parametrize(
    ("title", "bumped"),
    [
        ("bench v1", "bench v2"),
        ('"**bench v1**"', "**bench v2**"),
        ("'Bench, version 1 (pilot)'", "Bench, version 2 (pilot)"),
        ("v1 Graph Benchmark Fixtures", "v2 Graph Benchmark Fixtures"),
        ("bench V1 - the first cut", "bench V2 - the first cut"),
        (">-\n  bench v1,\n  folded", "bench v2, folded"),
    ],
)
def test_next_bumps_the_version_in_titles_of_many_shapes(title: str, bumped: str) -> None:
    raw = f"suite: bench\nversion: 1\ntitle: {title}\npinned_sha: abcdef1\n".encode()
    edited = next_version_text(raw, "version.yaml", 1, "bench_v1", 2)
    assert edited.title_after == bumped
    assert b"version: 2\n" in edited.text
    assert edited.text.decode().count("2") >= 2


@pytest.mark.parametrize("title", ["My benchmark", "bench v1.5", "uv1 tools", "bench v10", "bench v3"])
def test_a_title_without_this_version_number_is_left_alone(title: str) -> None:
    raw = f"suite: bench\nversion: 1\ntitle: {title}\n".encode()
    edited = next_version_text(raw, "version.yaml", 1, "bench_v1", 2)
    assert edited.title_after is None and edited.title_before == title
    assert f"title: {title}\n".encode() in edited.text
    assert bump_title(title, 1, 2) == title


@pytest.mark.parametrize(
    ("title", "said", "after"),
    [
        ("v1 Graph Benchmark Fixtures", "title: v1 Graph Benchmark Fixtures → v2 Graph Benchmark Fixtures", None),
        ('"**graph v1**"', "title: **graph v1** → **graph v2**", 'title: "**graph v2**"'),
        ("Graph fixtures", "title kept as 'Graph fixtures': it names no version number; edit it if it should", None),
    ],
)
def test_next_says_what_became_of_the_title(reg: Path, title: str, said: str, after: str | None) -> None:
    version = reg / "drafts/graph/version.yaml"
    version.write_text(version.read_text().replace("title: v1 Graph Benchmark Fixtures", f"title: {title}", 1))
    assert run_inprocess("cut", "v1", cwd=reg).code == 0
    started = run_inprocess("next", cwd=reg)
    assert started.code == 0, started.text
    assert said in started.out
    expected = after or f"title: {title.replace('v1', 'v2')}"
    assert expected in version.read_text()
